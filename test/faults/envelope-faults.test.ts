/**
 * JSON-RPC envelope faults over real loopback HTTP (test/faults/catalogue/envelope-faults.ts): ids of the other JSON
 * type and ids that match no request, in JSON and SSE replies; and string ids end to end.
 */
import { describe, expect, it } from 'vitest';
import {
  InvalidResponseError,
  isMcpClientError,
  PROTOCOL_VERSION,
  StreamableHttpTransport,
  StreamEndedError,
  type JsonRpcRequest,
} from '../../src/index.js';
import { META_KEYS } from '../../src/protocol/constants.js';
import { chain, envelopeFaults, sseFaults } from './catalogue/index.js';
import { rejectionOf, useFaultBench } from './setup.js';

const bench = useFaultBench();
const T = 5_000;

function rawRequest(id: string | number, method = 'tools/list'): JsonRpcRequest {
  const _meta = { [META_KEYS.protocolVersion]: PROTOCOL_VERSION, [META_KEYS.clientCapabilities]: {} };
  return { jsonrpc: '2.0', id, method, params: { _meta } };
}

describe('JSON-RPC id faults (1.6)', () => {
  it(
    'string ids work end to end (the server echoes them)',
    async () => {
      const transport = new StreamableHttpTransport(bench.server.url);
      const result = await transport.request(rawRequest('req-7'));
      expect(Array.isArray(result.tools)).toBe(true);
      expect(bench.server.log.at(-1)?.id).toBe('req-7');
    },
    T,
  );

  it(
    'a number id answered as a string: InvalidResponseError (1 and "1" are different ids)',
    async () => {
      bench.server.inject(envelopeFaults.idTypeSwapped(), { method: 'tools/list' });
      const error = await rejectionOf(bench.client().listTools());
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(error.message).toMatch(
        /^tools\/list failed: invalid response: response id "(\d+)" does not match request id \1$/,
      );
    },
    T,
  );

  it(
    'a string id answered as a number: InvalidResponseError',
    async () => {
      bench.server.inject(envelopeFaults.idTypeSwapped(), { method: 'tools/list' });
      const error = await rejectionOf(new StreamableHttpTransport(bench.server.url).request(rawRequest('7')));
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(error.message).toBe(
        'tools/list failed: invalid response: response id 7 does not match request id "7"',
      );
    },
    T,
  );

  it(
    'a JSON response whose id matches no request: InvalidResponseError naming both ids',
    async () => {
      bench.server.inject(envelopeFaults.mismatchedId(), { method: 'tools/list' });
      const error = await rejectionOf(bench.client().listTools());
      expect(isMcpClientError(error, 'INVALID_RESPONSE')).toBe(true);
      expect(error.message).toMatch(
        /^tools\/list failed: invalid response: response id (\d+) does not match request id \d+$/,
      );
    },
    T,
  );

  it(
    'a JSON-RPC error whose id matches no request: InvalidResponseError, not the foreign error',
    async () => {
      bench.server.inject(envelopeFaults.mismatchedId(), { method: 'no/such-method' });
      const error = await rejectionOf(bench.client().request('no/such-method'));
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(error.message).toMatch(/error response id \d+ does not match request id \d+/);
    },
    T,
  );

  it(
    'in an SSE stream, a response with a foreign id is skipped; the stream then ends: StreamEndedError',
    async () => {
      bench.server.inject(chain(sseFaults.sseWithComments(), envelopeFaults.mismatchedId()), {
        method: 'tools/list',
      });
      const error = await rejectionOf(bench.client().listTools());
      expect(error).toBeInstanceOf(StreamEndedError);
      expect(error.message).toBe('tools/list failed: the response stream ended before the response arrived');
    },
    T,
  );
});
