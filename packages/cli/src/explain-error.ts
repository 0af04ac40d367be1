/**
 * The message the CLI prints for an error: the real cause in words a person can act on. A refused connection, an
 * unknown host, a TLS failure or a port `fetch` will not use mean nothing was sent; an HTTP 404/405 without an MCP
 * error body means the URL is probably not the MCP endpoint; a timeout names `--timeout`; a stdio server that exited
 * shows the last lines it wrote to stderr; a malformed `CreateTaskResult` names the task it announced and what
 * became of it (cancel requested, not confirmed, not delivered, left running). Only a request that may
 * have reached the server keeps "the work may or may not have started".
 *
 * Streamable HTTP endpoint: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports
 *
 * @module
 */
import {
  type InvalidResponseError,
  isMcpClientError,
  redactTaskId,
  safeLine,
  type TaskCancelOutcome,
  type TaskFollowedElsewhereError,
} from 'mcp-tasks-client';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { formatMs } from './duration.js';
import { commandFor, type ServerTarget } from './server/target.js';
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
    // Over stdio, initialize comes after a server/discover probe that got no answer (its own wait, before this one).
    const after =
      timeout.method === 'initialize' && target?.kind === 'stdio'
        ? ', after its silence to server/discover (a server silent there is taken for a 2025-11-25 one and sent initialize; that wait came first, so the start took longer than --timeout)'
        : '';
    return `no answer from ${where} to ${timeout.method ?? 'a request'} within ${formatMs(timeout.timeoutMs ?? 0)}${after} (set another limit with --timeout)${started}`;
  }
  const elsewhere = all.find((e) => isMcpClientError(e, 'TASK_FOLLOWED_ELSEWHERE')) as
    | TaskFollowedElsewhereError
    | undefined;
  if (elsewhere) return followedElsewhereText(elsewhere, target);
  const malformed = all.find(
    (e): e is InvalidResponseError =>
      isMcpClientError(e, 'INVALID_RESPONSE') && (e as InvalidResponseError).taskIdEscaped !== undefined,
  );
  if (malformed) return `${messageOf(error)}. ${malformedTaskLine(malformed, target)}`;
  const exited = all.find((e) => isMcpClientError(e, 'SERVER_EXITED')) as { stderrTail?: string } | undefined;
  if (exited?.stderrTail)
    return `${messageOf(error)}; its last words on stderr:\n  ${lastWords(exited.stderrTail)}`;
  return messageOf(error);
}

/**
 * What became of the task a malformed creation result announced, in words: its id (escaped, whole) and the fate of
 * the `tasks/cancel` sent for it. An acknowledged cancel is a request: the task is cancelled only once the server
 * reports it so (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-cancellation).
 */
function malformedTaskLine(error: InvalidResponseError, target: ServerTarget | undefined): string {
  const shown = error.taskId !== undefined ? safeLine(error.taskId) : (error.taskIdEscaped as string);
  const see = (command: string): string =>
    error.taskId !== undefined && target !== undefined
      ? ` (${command === 'status' ? 'see how it ended' : 'try again'}: ${commandFor(command, error.taskId, target)})`
      : '';
  const fate = cancelFate(error.taskCancel);
  return `The server announced task ${shown} in it; ${fate.text}${fate.next ? see(fate.next) : ''}`;
}

function cancelFate(outcome: TaskCancelOutcome | undefined): { text: string; next?: 'status' | 'cancel' } {
  switch (outcome?.kind) {
    case 'cancel-requested':
      return {
        text: 'tasks/cancel was sent and the server acknowledged it: cancel requested (the server decides how the task ends)',
        next: 'status',
      };
    case 'cancel-not-confirmed':
      return {
        text: `tasks/cancel reached the server, but its reply was not an acknowledgement (${messageOf(outcome.cause)}); the task may still be running`,
        next: 'cancel',
      };
    case 'cancel-not-delivered':
      return {
        text: `tasks/cancel ${outcome.refused ? 'was refused' : 'could not be delivered'} (${messageOf(outcome.cause)}); the task may still be running`,
        next: 'cancel',
      };
    case 'not-sent':
      return outcome.reason === 'detached'
        ? { text: 'it was left running (--detach) and recorded (mcp-tasks ls)', next: 'status' }
        : { text: 'it was not cancelled: its id is too long to send back; the task may still be running' };
    default:
      return { text: 'nothing was sent about it; the task may still be running' };
  }
}

/**
 * A task's lease holder for a person: `process 4242 on this machine (mcp-tasks inbox --port 0)` or `process 4242 on
 * host build-7`, from the `host:pid:…` name a `FileTaskStore` gives it; any other name as it is, escaped.
 */
export function followerText(holder: string): string {
  const owner = /^(.*):(\d+):[^:]*$/.exec(holder);
  if (!owner) return safeLine(holder);
  const here = owner[1] === hostname();
  const command = here ? commandLineOf(Number(owner[2])) : undefined;
  return `process ${owner[2]} ${here ? 'on this machine' : `on host ${safeLine(owner[1] as string)}`}${command ? ` (${command})` : ''}`;
}

/**
 * Who follows the task instead (the lease holder: `host:pid:…` as a `FileTaskStore` names it) and what to do: answer
 * in that process (an inbox page, another terminal), look without following (`status`), or wait until it stopped.
 * On this machine the holder's command line is read from `/proc` when there is one, so "mcp-tasks inbox" shows.
 */
function followedElsewhereText(error: TaskFollowedElsewhereError, target: ServerTarget | undefined): string {
  const who = followerText(error.holder);
  const status = target ? `: ${commandFor('status', error.taskId, target)}` : ' with mcp-tasks status';
  return (
    `task ${safeLine(error.taskId)} is already followed by ${who}, which holds its lease in the task records: that ` +
    'process polls it and answers its questions (each is answered once), so this one does not. ' +
    'If it is mcp-tasks inbox, answer and cancel in its page (the link it printed at start); ' +
    `to look without following${status}; ` +
    'to follow it here, stop that process first, then run this again.'
  );
}

/** How many of a crashed server's last stderr lines are shown, and how long each may be (characters). */
const LAST_LINES = 5;
const LINE_CHARS = 300;

/**
 * A crashed stdio server's stderr for a message: its last lines, preceded by its first error-looking line when that
 * is further up (a Node crash ends with `code: 'MODULE_NOT_FOUND' … Node.js v20` while the useful line is
 * `Error: Cannot find module …`). Each line escaped and cut to {@link LINE_CHARS}.
 */
export function lastWords(stderrTail: string): string {
  const lines = stderrTail.trimEnd().split('\n');
  const last = lines.slice(-LAST_LINES);
  const firstError = lines.slice(0, -LAST_LINES).findIndex((l) => /Error|error:/.test(l));
  const gap = firstError !== -1 && firstError < lines.length - LAST_LINES - 1 ? ['…'] : [];
  const shown = firstError === -1 ? last : [lines[firstError] as string, ...gap, ...last];
  return shown
    .map((l) => {
      const line = safeLine(l.trimEnd());
      return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line;
    })
    .join('\n  ');
}

/** A local process's command line, short and printable (Linux `/proc`), or `undefined`. */
function commandLineOf(pid: number): string | undefined {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    if (words.length === 0) return undefined;
    // `node /…/mcp-tasks/dist/main.js inbox --port 0` → `mcp-tasks inbox --port 0`: the runtime and directories
    // say little.
    const shown = words
      .slice(/(^|\/)(node|nodejs|bun|deno)$/.test(words[0] as string) ? 1 : 0)
      .map((w, i) =>
        i > 0 ? w : /(mcp-tasks|cli)\/dist\/main\.js$/.test(w) ? 'mcp-tasks' : (w.split('/').pop() ?? w),
      )
      .join(' ');
    return safeLine(shown.length > 80 ? `${shown.slice(0, 80)}…` : shown);
  } catch {
    return undefined;
  }
}
