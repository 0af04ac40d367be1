/**
 * The `subscriptions/listen` request of a {@link PushChannel}, sent straight through the transport so that each
 * notification on its stream reaches the channel. No time budget: the stream is meant to stay open; the channel
 * aborts it when the followed set changes or the client closes.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)
 *
 * @module
 */
import { InvalidResponseError } from '../../errors.js';
import { META_KEYS } from '../../protocol/constants.js';
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import { printableExcerpt } from '../../protocol/printable.js';
import type { Transport } from '../../transport/transport.js';
import type { ListenFn } from './push-channel.js';

let nextListenId = 1;

/**
 * A {@link ListenFn} over `transport`; `meta()` gives the request's `_meta` (protocol version, capabilities with the
 * Tasks extension, client info), as for every other request of the client. Request ids are strings
 * (`listen-<n>`), so they never collide with the client's numeric ids.
 *
 * A notification whose `_meta["io.modelcontextprotocol/subscriptionId"]` names another subscription is not this
 * stream's: it is dropped and reported to `onViolation` (never applied). The schema: "The server MUST include this
 * key on every notification delivered via a subscriptions/listen stream … The value is the JSON-RPC ID of the
 * `subscriptions/listen` request that opened the stream" (schema/2026-07-28 `NotificationMetaObject`). One without
 * the key is kept: on Streamable HTTP the stream itself belongs to one subscription.
 */
export function listenOver(
  transport: Transport,
  meta: () => Record<string, unknown>,
  onViolation?: (error: unknown) => void,
): ListenFn {
  return (taskIds, onNotification, signal) => {
    const id = `listen-${nextListenId++}`;
    const ours = (notification: JsonRpcNotification): void => {
      const m = notification.params?._meta;
      const named =
        m !== null && typeof m === 'object' && !Array.isArray(m)
          ? (m as Record<string, unknown>)[META_KEYS.subscriptionId]
          : undefined;
      if (named === undefined || named === id) return onNotification(notification);
      onViolation?.(
        new InvalidResponseError(
          'subscriptions/listen',
          `${notification.method} for subscription ${printableExcerpt(JSON.stringify(named) ?? String(named), 80)} on the stream of ${id}; ignored`,
        ),
      );
    };
    return transport.request(
      {
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { notifications: { taskIds: [...taskIds] }, _meta: meta() },
      },
      { signal, onNotification: ours },
    );
  };
}
