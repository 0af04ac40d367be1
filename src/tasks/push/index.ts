/**
 * Push merged with polling (ext-tasks "Task Status Notifications"): the client-side entry of `src/tasks/push/`.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications)
 *
 * @module
 * @internal
 */
import type { Transport } from '../../transport/transport.js';
import { listenOver } from './listen.js';
import { PushTracker, type PushTrackerOptions } from './push-tracker.js';

export {
  DEFAULT_MAX_PUSH_STREAMS,
  DEFAULT_MAX_PUSH_TASK_IDS,
  DEFAULT_PUSH_DEBOUNCE_MS,
  DEFAULT_SAFETY_POLL_MULTIPLE,
  PUSH_BACKOFF_MS,
  PushChannel,
} from './push-channel.js';
export type { ListenFn, PushCadence, PushChannelOptions, PushTarget } from './push-channel.js';
export { PushTracker } from './push-tracker.js';
export type { PushFollowable, PushTrackerOptions } from './push-tracker.js';

/** A {@link PushTracker} whose stream is a `subscriptions/listen` over `transport`, with `meta()` as its `_meta`. */
export function createPushTracker(
  transport: Transport,
  meta: () => Record<string, unknown>,
  onError: (error: unknown) => void,
  options?: PushTrackerOptions,
): PushTracker {
  return new PushTracker(listenOver(transport, meta, onError), onError, options);
}
