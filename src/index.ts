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
export type { CallOptions, CallStart, TaskClientEvents } from './client/task-client.js';
export type { TypedCallToolResult } from './tasks/typed-results.js';
export { DEFAULTS } from './tasks/config.js';
export type { AttachOptions, RequestOptions, TaskClientOptions } from './tasks/config.js';
// Fleet mode; the store itself is in mcp-tasks-client/redis-store
export type { FleetRunner, FleetOptions, FleetEvents } from './fleet/fleet-runner.js';
export type { FleetQuestion } from './fleet/fleet-questions.js';
export type { FleetStart, FleetStartOptions } from './fleet/fleet-start.js';
export type { ResultOfOptions } from './fleet/result-of.js';

// store
export { MemoryTaskStore } from './store/task-store.js';
export type { TaskStore } from './store/task-store.js';
export type { TaskOutcome, TaskRecord } from './store/task-record.js';
export type { ClientCapabilities, ClientInfo } from './protocol/client-info.js';

// tasks
export { TaskHandle } from './tasks/task-handle.js';
export type {
  AnsweredDetail,
  CancelOptions,
  ResultOptions,
  TaskHandleEvents,
} from './tasks/task-handle.js';
export type { ExpiringEvent } from './tasks/task-handle.js';
export type {
  InputContext,
  InputHandlers,
  InputRequiredEvent,
  RespondOptions,
} from './tasks/input-broker.js';

// transport
export { StreamableHttpTransport } from './transport/streamable-http.js';
export type { StreamableHttpTransportOptions } from './transport/streamable-http.js';
// MCP authorization
export type { AuthorizationCallback, HttpAuthOptions, OAuthClientProviderLike } from './transport/auth.js';
export type { Transport, TransportRequestOptions } from './transport/transport.js';

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
  OutcomeUnknownError,
  OutputValidationError,
  PaginationError,
  RedirectBlockedError,
  redactTaskId,
  RequestTimeoutError,
  ResponseTooLargeError,
  ServerExitedError,
  StreamEndedError,
  TaskCancelledError,
  TaskDetachedError,
  TaskError,
  TaskExpiredError,
  TaskFailedError,
  TaskFollowedElsewhereError,
  TaskNotFoundError,
  TooManyInputRequestsError,
  TooManyRoundsError,
  UnsupportedProtocolVersionError,
} from './errors.js';
export type { McpClientErrorCode, TaskCancelOutcome, TaskNotFoundReason } from './errors.js';

// protocol
export { PROTOCOL_VERSION } from './protocol/constants.js';
export { isTerminalStatus } from './protocol/tasks.js';
// server text made safe for a terminal or a log; JSON text of any nesting
export { escapeUnprintable, safeJson, safeLine, safeText } from './protocol/printable.js';
export { redactSecrets } from './protocol/redact.js';
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
  GetPromptResult,
  Progress,
  ReadResourceResult,
  Tool,
} from './protocol/results.js';
export type { JsonRpcNotification, JsonRpcRequest } from './protocol/jsonrpc.js';
export { VERSION } from './version.js';
