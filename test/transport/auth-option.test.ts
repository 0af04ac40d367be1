/**
 * The `auth` option of StreamableHttpTransport at its boundary: bad options are TypeErrors that name the field; the
 * error classes carry stable codes, brands and no token.
 */
import { describe, expect, it } from 'vitest';
import {
  AuthorizationError,
  AuthorizationRequiredError,
  isMcpClientError,
  McpClientError,
  StreamableHttpTransport,
} from '../../src/index.js';

const provider = {} as never;

describe('StreamableHttpTransport auth option', () => {
  it('rejects a missing provider and a bad maxStepUps, naming the field', () => {
    expect(() => new StreamableHttpTransport('http://127.0.0.1:1/mcp', { auth: {} as never })).toThrow(
      /auth\.provider/,
    );
    expect(
      () =>
        new StreamableHttpTransport('http://127.0.0.1:1/mcp', {
          auth: { provider: {} as never, maxStepUps: -1 },
        }),
    ).toThrow(/auth\.maxStepUps.*-1/);
    expect(
      () =>
        new StreamableHttpTransport('http://127.0.0.1:1/mcp', {
          auth: { provider: {} as never, maxStepUps: 1.5 },
        }),
    ).toThrow(TypeError);
    expect(() => new StreamableHttpTransport('http://127.0.0.1:1/mcp', { auth: { provider } })).not.toThrow();
  });

  it('errors have stable codes and brands', () => {
    const required = new AuthorizationRequiredError('http://127.0.0.1:1/mcp', 'tools/call');
    expect(required).toBeInstanceOf(McpClientError);
    expect(isMcpClientError(required, 'AUTHORIZATION_REQUIRED')).toBe(true);
    expect(required.message).toBe('tools/call to http://127.0.0.1:1/mcp needs authorization by a person');
    const failed = new AuthorizationError('http://127.0.0.1:1/mcp', 'refresh', 'invalid_grant', {
      cause: new Error('x'),
    });
    expect(isMcpClientError(failed, 'AUTHORIZATION_FAILED')).toBe(true);
    expect(failed.step).toBe('refresh');
    expect(failed.cause).toBeInstanceOf(Error);
  });
});
