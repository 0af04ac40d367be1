/**
 * Every error this client throws. Each class has a stable `code` (a string for local failures; the JSON-RPC
 * integer for {@link McpError}), keeps `cause`, and names the operation and the (redacted) task id in its message.
 * `instanceof` works across the ESM and CJS copies of this package (brands via `Symbol.for`).
 * The classes live in `src/errors/`, one family per file; this module is the one import path.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-codes)
 *
 * @module
 */
export { McpClientError, redactTaskId } from './errors/base.js';
export type { McpClientErrorCode } from './errors/base.js';
export {
  HttpError,
  InputRequiredError,
  InvalidResponseError,
  MAX_LIST_PAGES,
  McpError,
  NetworkError,
  OutputValidationError,
  type OutputIssue,
  PaginationError,
  type NetworkErrorOptions,
  type TaskCancelOutcome,
  RequestTimeoutError,
  ResponseTooLargeError,
  StreamEndedError,
  TooManyInputRequestsError,
  TooManyRoundsError,
  UnsupportedProtocolVersionError,
} from './errors/request-errors.js';
export {
  CancelDeliveryError,
  CancelNotConfirmedError,
  InputDeliveryError,
  TaskCancelledError,
  TaskDetachedError,
  TaskError,
  TaskExpiredError,
  TaskFailedError,
  TaskFollowedElsewhereError,
  TaskNotFoundError,
} from './errors/task-errors.js';
export type { TaskNotFoundReason } from './errors/task-errors.js';
export {
  ClientClosedError,
  isMcpClientError,
  OutcomeUnknownError,
  ServerExitedError,
} from './errors/client-errors.js';
export { GetHeadersError, InvalidHeaderError, RedirectBlockedError } from './errors/http-errors.js';
export {
  AuthorizationError,
  AuthorizationRequiredError,
  type ResourceMetadataSource,
  type ResourceMismatch,
} from './errors/auth-errors.js';
