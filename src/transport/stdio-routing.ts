/**
 * Where a notification the stdio server wrote goes: `notifications/progress` to the request whose `progressToken`
 * it names; one carrying `_meta["io.modelcontextprotocol/subscriptionId"]` to that request; a server
 * `notifications/cancelled` ends the request it names with `StreamEndedError`; anything else once, to the oldest
 * request in flight, or with none to the transport's `onNotification` option.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio;
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress)
 *
 * @module
 * @internal
 */
import { StreamEndedError } from '../errors.js';
import { META_KEYS, METHODS } from '../protocol/constants.js';
import type { JsonRpcNotification, RequestId } from '../protocol/jsonrpc.js';

/** A request in flight. */
export interface Pending {
  readonly id: RequestId;
  readonly method: string;
  readonly progressToken: unknown;
  readonly onNotification: ((notification: JsonRpcNotification) => void) | undefined;
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
}

/** Where routed notifications and warnings go. */
export interface RouteTargets {
  /** A one-line description of a notification that was dropped. */
  warn(detail: string): void;
  /** Runs a caller's callback, guarding the reader against its exceptions. */
  callback(fn: () => void): void;
  /** The transport's `onNotification` option. */
  onNotification: ((notification: JsonRpcNotification) => void) | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Delivers `notification` to its request in `inFlight` (see the module docs), or reports it dropped. */
export function routeNotification(
  notification: JsonRpcNotification,
  inFlight: Map<RequestId, Pending>,
  to: RouteTargets,
): void {
  const params = notification.params ?? {};
  if (notification.method === METHODS.progress) {
    const target = [...inFlight.values()].find(
      (p) => p.progressToken !== undefined && p.progressToken === params.progressToken,
    );
    if (target === undefined)
      return to.warn(
        `progress for token ${JSON.stringify(params.progressToken)} matches no request in flight; dropped`,
      );
    return to.callback(() => target.onNotification?.(notification));
  }
  const subscriptionId = isObject(params._meta) ? params._meta[META_KEYS.subscriptionId] : undefined;
  if (typeof subscriptionId === 'string' || typeof subscriptionId === 'number') {
    const target = inFlight.get(subscriptionId);
    if (target === undefined)
      return to.warn(
        `${notification.method} for subscription ${JSON.stringify(subscriptionId)} matches no request in flight; dropped`,
      );
    return to.callback(() => target.onNotification?.(notification));
  }
  if (notification.method === 'notifications/cancelled') {
    const id = params.requestId;
    const target = typeof id === 'string' || typeof id === 'number' ? inFlight.get(id) : undefined;
    if (target === undefined) return;
    inFlight.delete(target.id);
    return target.reject(new StreamEndedError(target.method));
  }
  const oldest = inFlight.values().next().value as Pending | undefined;
  if (oldest !== undefined) return to.callback(() => oldest.onNotification?.(notification));
  if (to.onNotification === undefined)
    return to.warn(`${notification.method} arrived with no request in flight; dropped`);
  to.callback(() => to.onNotification?.(notification));
}
