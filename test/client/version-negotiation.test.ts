import { describe, expect, it } from 'vitest';
import { McpError, TaskClient, UnsupportedProtocolVersionError } from '../../src/index.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import { rpcError } from '../helpers/unit-fixtures.js';

const PV = 'io.modelcontextprotocol/protocolVersion';

function setup(handler: Handler) {
  const transport = new ScriptedTransport(handler);
  return { transport, client: new TaskClient({ transport }) };
}

describe('protocol version negotiation (1.8)', () => {
  it('1.8: -32022 with supported ["2026-07-28"] → re-sent once with a new id even though the version is unchanged', async () => {
    let n = 0;
    const { transport, client } = setup(() =>
      n++ === 0
        ? rpcError(-32022, 'Unsupported protocol version', {
            supported: ['2026-07-28'],
            requested: '2026-07-28',
          })
        : { tools: [] },
    );
    await expect(client.listTools()).resolves.toEqual([]);
    const sent = transport.of('tools/list');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.message.id).not.toBe(sent[0]!.message.id);
    expect(sent.map((s) => (s.message.params as { _meta: Record<string, unknown> })._meta[PV])).toEqual([
      '2026-07-28',
      '2026-07-28',
    ]);
    expect(client.protocolVersion).toBe('2026-07-28');
  });

  it('1.8: a second -32022 for the same version is not retried again → UnsupportedProtocolVersionError', async () => {
    const { transport, client } = setup(() => rpcError(-32022, 'nope', { supported: ['2026-07-28'] }));
    const error = await client.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect(transport.of('tools/list')).toHaveLength(2);
  });

  it('1.8: supported ["1999-01-01"] → UnsupportedProtocolVersionError without a resend', async () => {
    const { transport, client } = setup(() =>
      rpcError(-32022, 'Unsupported protocol version', {
        supported: ['1999-01-01'],
        requested: '2026-07-28',
      }),
    );
    const error = await client.callTool('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedProtocolVersionError);
    const e = error as UnsupportedProtocolVersionError;
    expect(e.code).toBe('UNSUPPORTED_PROTOCOL_VERSION');
    expect(e.requested).toBe('2026-07-28');
    expect(e.supported).toEqual(['1999-01-01']);
    expect(e.message).toBe('server does not support protocol 2026-07-28; it supports 1999-01-01');
    expect(e.cause).toBeInstanceOf(McpError);
    expect(transport.of('tools/call')).toHaveLength(1);
  });

  it('1.8: -32022 without data.supported → UnsupportedProtocolVersionError listing nothing', async () => {
    const { client } = setup(() => rpcError(-32022, 'bad version'));
    const error = await client.discover().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect((error as Error).message).toBe(
      'server does not support protocol 2026-07-28; it supports nothing listed',
    );
  });

  it('other JSON-RPC errors are not retried and surface as McpError with code and data', async () => {
    const { transport, client } = setup(() =>
      rpcError(-32021, 'missing capability', { requiredCapabilities: { extensions: {} } }),
    );
    const error = await client.callTool('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32021);
    expect((error as McpError).data).toEqual({ requiredCapabilities: { extensions: {} } });
    expect(transport.sent).toHaveLength(1);
  });
});
