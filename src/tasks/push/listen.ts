/**
 * The `subscriptions/listen` request of a {@link PushChannel}, sent straight through the transport so that each
 * notification on its stream reaches the channel. No time budget: the stream is meant to stay open; the channel
 * aborts it when the followed set changes or the client closes.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)
 *
 * @module
 */
import type { Transport } from '../../transport/transport.js';
import type { ListenFn } from './push-channel.js';

let nextListenId = 1;

/**
 * A {@link ListenFn} over `transport`; `meta()` gives the request's `_meta` (protocol version, capabilities with the
 * Tasks extension, client info), as for every other request of the client. Request ids are strings
 * (`listen-<n>`), so they never collide with the client's numeric ids.
 */
export function listenOver(transport: Transport, meta: () => Record<string, unknown>): ListenFn {
  return (taskIds, onNotification, signal) =>
    transport.request(
      { jsonrpc: '2.0', id: `listen-${nextListenId++}`, method: 'subscriptions/listen', params: { notifications: { taskIds: [...taskIds] }, _meta: meta() } },
      { signal, onNotification },
    );
}
