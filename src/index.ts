/**
 * mcp-tasks-client: a task-aware MCP client (revision 2026-07-28 + the Tasks extension).
 *
 * @example
 * import { TaskClient, StreamableHttpTransport } from 'mcp-tasks-client';
 * const client = new TaskClient({ transport: new StreamableHttpTransport('http://127.0.0.1:3000/mcp') });
 * const result = await client.callTool('reindex_corpus', { documents: 5000 });
 *
 * @module
 */

// client
export { TaskClient } from './client/task-client.js';
export type { AttachOptions, CallOptions, CallStart, TaskClientEvents } from './client/task-client.js';
export type { RequestOptions } from './client/request-pipeline.js';
export {
  DEFAULT_CLIENT_INFO,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_NOT_YET_VISIBLE_RETRIES,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from './client/options.js';
export { DEFAULT_IDEMPOTENCY_KEY_IN, defaultRedactParams } from './client/options.js';
export type { IdempotencyKeyPlacement, RedactParams, TaskClientOptions } from './client/options.js';
export { DEFAULT_CREATION_RETRY, isLostBeforeResponse } from './client/creation-retry.js';
export { DEFAULT_ABORT_GRACE_MS } from './tasks/abort-grace.js';
export type { CreationRetryOptions } from './client/creation-retry.js';
// Fleet mode; the store itself is in mcp-tasks-client/redis-store
export type { FleetRunner, FleetOptions, FleetEvents, FleetClaimEvent } from './fleet/fleet-runner.js';
export type { FleetQuestion } from './fleet/fleet-questions.js';
export type { FleetStart, FleetStartOptions } from './fleet/fleet-start.js';
export type { ResultOfOptions } from './fleet/result-of.js';

// store
export { isRecordExpired, MemoryTaskStore } from './store/task-store.js';
export type { TaskStore } from './store/task-store.js';
export type { QueuedAnswer, QueuedAnswers } from './store/queued-answers.js';
export {
  recordExpiresAt,
  serverIdentity,
  TASK_RECORD_VERSION,
  TaskOutcomeSchema,
  TaskRecordSchema,
} from './store/task-record.js';
export type { TaskOutcome, TaskRecord } from './store/task-record.js';
export type { ClientCapabilities, ClientInfo } from './client/meta.js';

// tasks
export { TaskHandle } from './tasks/task-handle.js';
export type {
  AnsweredDetail,
  CancelOptions,
  ResultOptions,
  Settled,
  TaskHandleEvents,
} from './tasks/task-handle.js';
export type { ExpiringEvent } from './tasks/task-driver.js';
export { DEFAULT_EXPIRING_MARGIN_RATIO } from './tasks/expiry.js';
export { DEFAULT_MAX_CONCURRENT_UPDATES } from './tasks/update-sender.js';
export { DELIVERY_BUDGET_MS } from './tasks/delivery.js';
export type {
  InputContext,
  InputHandlers,
  InputRequiredEvent,
  RespondOptions,
} from './tasks/input-broker.js';
export {
  DEFAULT_MAX_POLL_INTERVAL_MS,
  DEFAULT_MIN_POLL_INTERVAL_MS,
  DEFAULT_POLL_INTERVAL_MS,
  effectivePollIntervalMs,
} from './tasks/poll-interval.js';
export type { PollIntervalPolicy } from './tasks/poll-interval.js';
export { DEFAULT_MAX_POLL_RETRIES } from './tasks/poll-errors.js';
export { DEFAULT_JITTER_RATIO, DEFAULT_MAX_CONCURRENT_POLLS, PollScheduler } from './tasks/scheduler.js';
export type { Pollable, PollSchedulerOptions } from './tasks/scheduler.js';

// transport
export { DEFAULT_MAX_RESPONSE_BYTES, StreamableHttpTransport } from './transport/streamable-http.js';
export type { StreamableHttpTransportOptions } from './transport/streamable-http.js';
// MCP authorization
export { DEFAULT_MAX_STEP_UPS, DEFAULT_REFRESH_SKEW_MS } from './transport/auth.js';
export type { AuthorizationCallback, HttpAuthOptions } from './transport/auth.js';
export type {
  CustomTarget,
  HttpTarget,
  StdioTarget,
  Transport,
  TransportRequestOptions,
  TransportTarget,
} from './transport/transport.js';
export { encodeHeaderValue } from './transport/header-encoding.js';
export { DEFAULT_MAX_REDIRECTS } from './transport/redirects.js';

// errors
export {
  AuthorizationError,
  AuthorizationRequiredError,
  CancelDeliveryError,
  CancelNotConfirmedError,
  ClientClosedError,
  HttpError,
  InputDeliveryError,
  InputRequiredError,
  InvalidHeaderError,
  InvalidResponseError,
  isMcpClientError,
  McpClientError,
  McpError,
  NetworkError,
  GetHeadersError,
  MAX_LIST_PAGES,
  OutcomeUnknownError,
  PaginationError,
  RedirectBlockedError,
  redactTaskId,
  RequestTimeoutError,
  ResponseTooLargeError,
  ServerExitedError,
  StreamEndedError,
  TaskCancelledError,
  TaskError,
  TaskExpiredError,
  TaskFailedError,
  TaskNotFoundError,
  TooManyRoundsError,
  UnsupportedProtocolVersionError,
} from './errors.js';
export type {
  McpClientErrorCode,
  NetworkErrorOptions,
  TaskCancelOutcome,
  TaskNotFoundReason,
} from './errors.js';

// protocol
export {
  DEFAULT_TASK_METHODS,
  ErrorCode,
  HEADERS,
  IDEMPOTENCY_META_KEY,
  LEGACY_PROTOCOL_VERSION,
  META_KEYS,
  METHODS,
  PROTOCOL_VERSION,
  SPEC_TASK_METHODS,
  SUPPORTED_PROTOCOL_VERSIONS,
  TASKS_EXTENSION_ID,
} from './protocol/constants.js';
export { isTerminalStatus, parseCreateTaskResult, parseDetailedTask } from './protocol/tasks.js';
export { MAX_CANCEL_NAME_HEADER_BYTES, MAX_TASK_ID_BYTES } from './protocol/task-id.js';
export { escapeUnprintable, safeJson, safeLine, safeText } from './protocol/printable.js';
export { toJsonText } from './internal/deep-json.js';
export type {
  CancelledTask,
  CompletedTask,
  CreateTaskResult,
  DetailedTask,
  FailedTask,
  InputRequiredTask,
  Task,
  TaskStatus,
  WorkingTask,
} from './protocol/tasks.js';
export type {
  CreateMessageResult,
  ElicitInputRequest,
  ElicitRequestParams,
  ElicitResult,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  ListRootsResult,
} from './protocol/input.js';
export type {
  CallToolResult,
  ContentBlock,
  DiscoverResult,
  GetPromptResult,
  InputRequiredResult,
  Progress,
  ReadResourceResult,
  ResultType,
  Tool,
} from './protocol/results.js';
export type {
  JsonRpcErrorObject,
  JsonRpcNotification,
  JsonRpcRequest,
  RequestId,
} from './protocol/jsonrpc.js';
export { VERSION } from './version.js';
