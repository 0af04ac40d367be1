/**
 * Protocol constants: versions, the Tasks extension id, reserved `_meta` keys, method names, header names and
 * JSON-RPC error codes. Pure data; no I/O.
 *
 * @module
 */

/** The protocol revision this client speaks natively. */
export const PROTOCOL_VERSION = '2026-07-28';

/** The previous revision, with experimental tasks, `initialize` and sessions. */
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

/** Versions this client can speak over the modern (stateless) wire, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [PROTOCOL_VERSION];

/** Identifier of the Tasks extension (SEP-2663), used as the key under `extensions`. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** Reserved `_meta` keys of 2026-07-28 requests. (https://modelcontextprotocol.io/specification/2026-07-28/basic § `_meta`) */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  /** Server name and version in a `server/discover` result's `_meta` (display only). */
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** Method names used by this client. */
export const METHODS = {
  discover: 'server/discover',
  listTools: 'tools/list',
  callTool: 'tools/call',
  readResource: 'resources/read',
  getPrompt: 'prompts/get',
  tasksGet: 'tasks/get',
  tasksUpdate: 'tasks/update',
  tasksCancel: 'tasks/cancel',
  progress: 'notifications/progress',
  message: 'notifications/message',
  tasksStatus: 'notifications/tasks',
} as const;

/** Methods the 2026-07-28 specification lets create tasks. */
export const SPEC_TASK_METHODS: readonly string[] = [METHODS.callTool];

/**
 * Methods this project accepts a task result for by default: the mission asks for all three.
 * Narrow with the `taskMethods` client option (this client's choice, beyond the specification).
 */
export const DEFAULT_TASK_METHODS: readonly string[] = [
  METHODS.callTool,
  METHODS.readResource,
  METHODS.getPrompt,
];

/** Methods whose result may be `input_required` (MRTR). */
export const MRTR_METHODS: readonly string[] = [METHODS.callTool, METHODS.readResource, METHODS.getPrompt];

/** Kinds of embedded server-to-client request that may appear in `inputRequests`. */
export const INPUT_METHODS = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
} as const;

/** HTTP header names of the 2026-07-28 Streamable HTTP transport. */
export const HEADERS = {
  protocolVersion: 'MCP-Protocol-Version',
  method: 'Mcp-Method',
  name: 'Mcp-Name',
  paramPrefix: 'Mcp-Param-',
  sessionId: 'Mcp-Session-Id',
} as const;

/**
 * JSON-RPC and MCP error codes the client acts on.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  /** Invalid params; on `tasks/*` it means the task is unknown or expired. */
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy (2025-11-25) resource not found. */
  ResourceNotFound: -32002,
  /** HTTP headers disagree with the body. */
  HeaderMismatch: -32020,
  /** A capability the request needs was not declared; `data.requiredCapabilities`. */
  MissingRequiredClientCapability: -32021,
  /** The protocol version is not supported; `data.supported`, `data.requested`. */
  UnsupportedProtocolVersion: -32022,
} as const;

/** Error codes that only a modern (2026-07-28) server sends in a 400 body. */
export const MODERN_REJECTION_CODES: readonly number[] = [
  ErrorCode.UnsupportedProtocolVersion,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.HeaderMismatch,
  ErrorCode.InvalidParams,
];

/**
 * The `_meta` key this client uses, by default, to send a caller's idempotency key on `tools/call`. The protocol
 * defines no idempotency field, so the key lives in our own namespace; a server that does not
 * know it ignores it.
 */
export const IDEMPOTENCY_META_KEY = 'io.github.mcp-tasks-client/idempotencyKey';
