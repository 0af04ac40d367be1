/**
 * The one `_meta` builder for every request: protocol version, per-request client capabilities (with the Tasks
 * extension under `extensions`) and client info.
 *
 * @module
 * @internal
 */
import { META_KEYS, TASKS_EXTENSION_ID } from '../protocol/constants.js';
import type { InputHandlers } from '../tasks/input-broker.js';

export type { ClientCapabilities, ClientInfo } from '../protocol/client-info.js';
import type { ClientCapabilities, ClientInfo } from '../protocol/client-info.js';

/** Inputs of {@link buildCapabilities}. */
export interface CapabilityInputs {
  declared: ClientCapabilities | undefined;
  handlers: InputHandlers | undefined;
  /** True when a host listens for `inputRequired` events and can answer elicitations by hand. */
  answersByEvent: boolean;
  /**
   * The request's method and the methods whose task result this client accepts. When both are given, the Tasks
   * extension is declared only for those methods and for `tasks/*`; when absent, it is always declared.
   */
  method?: string;
  taskMethods?: readonly string[];
}

/**
 * Whether a request of `method` declares the Tasks extension: only where a task result will be accepted (the
 * `taskMethods`) and on `tasks/*`, which need it. A server never creates a task the client would refuse.
 * (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md § Capability Negotiation:
 * "A client that has negotiated this extension MUST be prepared to handle either CallToolResult or CreateTaskResult
 * in response to any supported request it issues.")
 */
export function declaresTasks(
  method: string | undefined,
  taskMethods: readonly string[] | undefined,
): boolean {
  if (method === undefined || taskMethods === undefined) return true;
  return taskMethods.includes(method) || method.startsWith('tasks/');
}

/**
 * The capabilities for one request: what the host declared, plus elicitation (form) when a handler or an
 * `inputRequired` listener can answer it, sampling and roots when handlers exist, and the Tasks extension where
 * {@link declaresTasks} says so (it is removed elsewhere, even when declared by the host).
 */
export function buildCapabilities({
  declared,
  handlers,
  answersByEvent,
  method,
  taskMethods,
}: CapabilityInputs): ClientCapabilities {
  const caps: ClientCapabilities = { ...declared };
  if ((handlers?.elicitation || answersByEvent) && !caps.elicitation) caps.elicitation = { form: {} };
  if (handlers?.sampling && !caps.sampling) caps.sampling = {};
  if (handlers?.roots && !caps.roots) caps.roots = {};
  if (declaresTasks(method, taskMethods)) {
    caps.extensions = {
      ...caps.extensions,
      [TASKS_EXTENSION_ID]: caps.extensions?.[TASKS_EXTENSION_ID] ?? {},
    };
  } else if (caps.extensions && TASKS_EXTENSION_ID in caps.extensions) {
    const { [TASKS_EXTENSION_ID]: _dropped, ...others } = caps.extensions;
    caps.extensions = others;
  }
  return caps;
}

/** Builds `params._meta` for one request; `extra` (caller's `_meta`) cannot override the reserved keys. */
export function buildMeta(
  protocolVersion: string,
  capabilities: ClientCapabilities,
  clientInfo: ClientInfo | undefined,
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  const meta: Record<string, unknown> = { ...extra };
  meta[META_KEYS.protocolVersion] = protocolVersion;
  meta[META_KEYS.clientCapabilities] = capabilities;
  if (clientInfo) meta[META_KEYS.clientInfo] = clientInfo;
  return meta;
}
