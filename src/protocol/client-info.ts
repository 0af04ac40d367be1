/**
 * What a client says about itself on every request: its capabilities and `{ name, version }`.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta)
 *
 * @module
 */

/** Client capabilities as declared per request. Unknown keys are passed through. */
export interface ClientCapabilities {
  elicitation?: { form?: Record<string, unknown>; url?: Record<string, unknown> };
  sampling?: Record<string, unknown>;
  roots?: Record<string, unknown>;
  extensions?: Record<string, Record<string, unknown>>;
  experimental?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/** `{ name, version }` of the client software. */
export interface ClientInfo {
  name: string;
  version: string;
  [key: string]: unknown;
}
