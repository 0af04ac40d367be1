/**
 * The message the CLI prints for an error: the real cause in words a person can act on. A refused connection, an
 * unknown host, a TLS failure or a port `fetch` will not use mean nothing was sent; an HTTP 404/405 without an MCP
 * error body means the URL is probably not the MCP endpoint; a timeout names `--timeout`; a stdio server that exited
 * shows the last lines it wrote to stderr. Only a request that may
 * have reached the server keeps "the work may or may not have started".
 *
 * Streamable HTTP endpoint: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports
 *
 * @module
 */
import { isMcpClientError, redactTaskId, safeLine } from 'mcp-tasks-client';
import type { ServerTarget } from './server/target.js';
import { isMissingAuthPeer, missingAuthPeerMessage } from './missing-peer.js';

/** Node/undici error codes that mean the connection was never made. */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const TLS_CODE =
  /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/;

/** The errors of `error`'s `cause` chain, outermost first (at most 10). */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (
    let e = error, i = 0;
    e !== undefined && e !== null && i < 10;
    e = (e as { cause?: unknown }).cause, i++
  )
    out.push(e);
  return out;
}

const codeOf = (e: unknown): unknown =>
  e !== null && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Where the server is, for a message: the URL's host, or the target's label. */
function whereOf(target: ServerTarget | undefined): string {
  if (!target) return 'the server';
  return target.kind === 'http' ? target.url.host : target.label;
}

/**
 * The text for `error`: the original message, or a clearer one when the cause is known. A task id the library
 * shortened for logs (`3f2a9c…(36)`) is shown whole, so it can be copied into the next command.
 *
 * @param target the server the command talked to, when known.
 */
export function explainError(error: unknown, target?: ServerTarget): string {
  let text = explain(error, target);
  for (const e of chain(error)) {
    const taskId = (e as { taskId?: unknown } | null)?.taskId;
    if (typeof taskId === 'string' && redactTaskId(taskId) !== taskId)
      text = text.split(redactTaskId(taskId)).join(safeLine(taskId));
  }
  return text;
}

function explain(error: unknown, target: ServerTarget | undefined): string {
  const all = chain(error);
  const where = whereOf(target);
  for (const e of all) {
    const code = codeOf(e);
    if (code === 'ECONNREFUSED')
      return `connection refused by ${where}: no server is listening there. Nothing was sent.`;
    if (typeof code === 'string' && DNS_CODES.has(code))
      return `cannot resolve the host ${target?.kind === 'http' ? target.url.hostname : where} (DNS ${code}). Nothing was sent.`;
    if (typeof code === 'string' && TLS_CODE.test(code))
      return `the TLS handshake with ${where} failed (${code}: ${messageOf(e).split('\n')[0]}). Nothing was sent.`;
    if (e instanceof Error && e.message === 'bad port')
      return `fetch refuses to connect to port ${target?.kind === 'http' ? target.url.port : '?'} (a blocked port). Nothing was sent.`;
  }
  if (isMissingAuthPeer(all)) return missingAuthPeerMessage();
  // A 404/405 as such, or as the JSON-RPC error body of the 2025-11-25 `initialize` tried after it (era 'auto').
  const notFound = all.find(
    (e) =>
      e !== null &&
      typeof e === 'object' &&
      (e as { method?: unknown }).method === 'initialize' &&
      [404, 405].includes((e as { httpStatus?: number }).httpStatus ?? 0),
  ) as { httpStatus: number } | undefined;
  const http =
    (all.find((e) => isMcpClientError(e, 'HTTP_ERROR')) as { status?: number } | undefined) ??
    (notFound ? { status: notFound.httpStatus } : undefined);
  if (http && (http.status === 404 || http.status === 405)) {
    const url =
      target?.kind === 'http' ? `${target.url.protocol}//${target.url.host}${target.url.pathname}` : where;
    return `HTTP ${http.status} at ${url}: is this the MCP endpoint? (the server answered, but not as MCP; nothing was started)`;
  }
  const timeout = all.find((e) => isMcpClientError(e, 'REQUEST_TIMEOUT')) as
    | { method?: string; timeoutMs?: number }
    | undefined;
  if (timeout) {
    const started =
      timeout.method === 'tools/call' ? '; the work may or may not have started on the server' : '';
    return `no answer from ${where} to ${timeout.method ?? 'a request'} within ${((timeout.timeoutMs ?? 0) / 1000).toFixed(1)} s (set another limit with --timeout)${started}`;
  }
  const exited = all.find((e) => isMcpClientError(e, 'SERVER_EXITED')) as { stderrTail?: string } | undefined;
  if (exited?.stderrTail) {
    const tail = exited.stderrTail.trimEnd().split('\n').slice(-5).join('\n  ');
    return `${messageOf(error)}; its last words on stderr:\n  ${tail}`;
  }
  return messageOf(error);
}
