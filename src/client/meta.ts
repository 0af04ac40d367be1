/**
 * The one `_meta` builder for every request: protocol version, per-request client capabilities (with the Tasks
 * extension under `extensions`) and client info. (CLIENT-REQUIREMENTS 1.1–1.5, 5.1; "Seed vs spec" 1, 15)
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
}

/**
 * The capabilities for one request: what the host declared, plus elicitation (form) when a handler or an
 * `inputRequired` listener can answer it, sampling and roots when handlers exist, and always the Tasks extension.
 */
export function buildCapabilities({ declared, handlers, answersByEvent }: CapabilityInputs): ClientCapabilities {
  const caps: ClientCapabilities = { ...declared };
  if ((handlers?.elicitation || answersByEvent) && !caps.elicitation) caps.elicitation = { form: {} };
  if (handlers?.sampling && !caps.sampling) caps.sampling = {};
  if (handlers?.roots && !caps.roots) caps.roots = {};
  caps.extensions = { ...caps.extensions, [TASKS_EXTENSION_ID]: {} };
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
