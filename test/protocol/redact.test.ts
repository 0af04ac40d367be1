/**
 * Secrets never reach output: codes, tokens, verifiers and client secrets in form bodies, query strings and JSON,
 * and credential header values, are replaced by `[redacted]`; and an authorization error whose token endpoint echoed
 * the request carries no code. (issue 24 item 4)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError, redactSecrets, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { ConformanceOAuthProvider } from '../conformance/oauth-provider.js';
import { startTestAuthServer, type TestAuthServer } from '../helpers/oauth-server.js';

describe('redactSecrets', () => {
  it('takes secrets out of form bodies, query strings, JSON and headers, and keeps the rest', () => {
    const text = [
      'grant_type=refresh_token&refresh_token=rt-SECRET1&client_id=abc',
      'GET /cb?code=code-SECRET2&state=s1',
      'grant_type=authorization_code&code=SECRET3&code_verifier=SECRET4&client_secret=SECRET5',
      '{"access_token":"at-SECRET6","token_type":"Bearer","refresh_token":"rt-SECRET7"}',
      'Authorization: Bearer SECRET8xyz',
      'authorization=SECRET11abc',
      'x-api-key: SECRET9',
      'sent Basic U0VDUkVUMTA6cHc= along',
    ].join('\n');
    const out = redactSecrets(text);
    expect(out).not.toMatch(/SECRET/);
    expect(out).toContain('grant_type=refresh_token&refresh_token=[redacted]&client_id=abc');
    expect(out).toContain('state=s1');
    expect(out).toContain('"token_type":"Bearer"');
  });

  it('leaves advice with placeholders alone', () => {
    const advice = 'Pass them as a header, e.g. --header "Authorization: Basic <base64 of user:password>"';
    expect(redactSecrets(advice)).toBe(advice);
  });

  it('takes out exact known values too', () => {
    expect(redactSecrets('the server said: opaque-123456 is bad', ['opaque-123456'])).toBe(
      'the server said: [redacted] is bad',
    );
  });
});

describe('an error page that echoes the token request', () => {
  let as: TestAuthServer | undefined;
  let server: TaskServer | undefined;
  afterEach(async () => {
    await server?.close();
    await as?.close();
  });

  it('the AuthorizationError names the failure without the authorization code or verifier', async () => {
    as = await startTestAuthServer();
    as.failTokenRequests = 500;
    const issuer = as.issuer;
    server = await createTaskServer({
      auth: { authorizationServers: [issuer], verifyAccessToken: (t) => as?.verifyAccessToken(t) },
    });
    const provider = new ConformanceOAuthProvider();
    const client = new TaskClient({
      transport: new StreamableHttpTransport(server.url, {
        auth: { provider, waitForAuthorizationCode: () => provider.waitForAuthorizationCode() },
      }),
    });
    const error = await client.discover().then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(error).toBeInstanceOf(AuthorizationError);
    const message = (error as Error).message;
    expect(message).toMatch(/500|Bad gateway/);
    expect(message).not.toMatch(/code=code-/);
    expect(message).not.toMatch(/code_verifier=[^[]/);
  });
});
