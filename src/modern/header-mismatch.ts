/**
 * Recovery from a -32020 `HeaderMismatch` on `tools/call`: a call sent before the client knew the tool's
 * `x-mcp-header` annotations (or with a stale list) lacks the right `Mcp-Param-*` headers. The client fetches
 * `tools/list` once, rebuilds the headers, and re-sends the call once, with a new id. A -32020 rejection means the
 * server did not run the call, so the re-send cannot start the work twice.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http § Client Behavior: "the
 * client SHOULD call tools/list to check for changes to the tool's inputSchema, then retry the original request with
 * the appropriate headers")
 *
 * @module
 * @internal
 */
import { McpError } from '../errors.js';
import { ErrorCode, HEADERS, METHODS } from '../protocol/constants.js';
import type { Tool } from '../protocol/results.js';
import { paramHeaders } from './param-headers.js';

/** What bounds the refresh: the call's own signal and per-request `timeoutMs`. */
export interface RefreshBounds {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Rebuilds the `Mcp-Param-*` headers of one `tools/call` after refreshing the tool list, within the call's bounds. */
export type RefreshParamHeaders = (
  params: Record<string, unknown>,
  bounds?: RefreshBounds,
) => Promise<Record<string, string>>;

/**
 * The refresh a `TaskClient` uses: `listTools()` (which also refreshes the client's own list), then the call's
 * `Mcp-Param-*` headers from the fresh definition of its tool.
 */
export function refreshFromToolList(
  listTools: (bounds: RefreshBounds) => Promise<Tool[]>,
): RefreshParamHeaders {
  return async (params, bounds = {}) =>
    paramHeaders(
      (await listTools(bounds)).find((t) => t.name === params.name),
      params.arguments as Record<string, unknown> | undefined,
    );
}

/** True when `error` is the server's -32020 answer to a `tools/call` (the only method with `Mcp-Param-*`). */
export function isParamHeaderMismatch(method: string, error: unknown): error is McpError {
  return method === METHODS.callTool && error instanceof McpError && error.code === ErrorCode.HeaderMismatch;
}

/** `headers` without any `Mcp-Param-*` entry, plus `fresh`. */
export function withFreshParamHeaders(
  headers: Record<string, string> | undefined,
  fresh: Record<string, string>,
): Record<string, string> {
  const prefix = HEADERS.paramPrefix.toLowerCase();
  const kept = Object.entries(headers ?? {}).filter(([name]) => !name.toLowerCase().startsWith(prefix));
  return { ...Object.fromEntries(kept), ...fresh };
}

/**
 * The headers for the one re-send after a -32020, or `undefined` when the refresh itself failed (the caller then
 * surfaces the original -32020: the call did not run).
 */
export async function headersAfterMismatch(
  refresh: RefreshParamHeaders,
  params: Record<string, unknown>,
  headers: Record<string, string> | undefined,
  bounds: RefreshBounds = {},
): Promise<Record<string, string> | undefined> {
  let fresh: Record<string, string>;
  try {
    fresh = await refresh(params, bounds);
  } catch {
    return undefined;
  }
  return withFreshParamHeaders(headers, fresh);
}
