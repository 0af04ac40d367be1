import { describe, expect, it } from 'vitest';
import { buildHeaders, protocolHeaderValues, staticHeaders } from '../../src/transport/request-headers.js';

const messages = [
  {
    jsonrpc: '2.0' as const,
    id: 1,
    method: 'tools/call',
    params: { name: 'échо', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  },
  { jsonrpc: '2.0' as const, id: 2, method: 'tasks/get', params: { taskId: 't-1' } },
  {
    jsonrpc: '2.0' as const,
    id: 3,
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  },
  { jsonrpc: '2.0' as const, method: 'notifications/cancelled' },
];

describe('buildHeaders', () => {
  it('gives the same names, values and order with no other headers as after the caller headers of the general path', () => {
    for (const message of messages) {
      const protocol = protocolHeaderValues(message);
      const alone = buildHeaders(staticHeaders(undefined), undefined, {}, protocol);
      const withStatic = buildHeaders(staticHeaders({ 'X-Static': 's' }), undefined, undefined, protocol);
      expect(Object.entries(withStatic)).toEqual([['x-static', 's'], ...Object.entries(alone)]);
      expect(Object.keys(alone).slice(0, 2)).toEqual(['content-type', 'accept']);
      expect(alone['mcp-method']).toBe(message.method);
    }
  });

  it('lets the protocol headers win over caller headers and never sends Mcp-Session-Id', () => {
    const protocol = protocolHeaderValues(messages[1]!);
    const out = buildHeaders(
      staticHeaders({ 'Mcp-Method': 'x', 'Mcp-Session-Id': 'sid' }),
      undefined,
      undefined,
      protocol,
    );
    expect(out['mcp-method']).toBe('tasks/get');
    expect(out['mcp-name']).toBe('t-1');
    expect('mcp-session-id' in out).toBe(false);
  });
});
