/**
 * The options of the stdio transport, their defaults, and their check at the boundary (zod; the TypeError names the
 * first invalid option and the value it got).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 */
import { z } from 'zod';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';

/**
 * Default wait after closing stdin before SIGTERM, and after SIGTERM before SIGKILL, in ms: at most one second each,
 * so a command that is done never lingers on a server that ignores the end of its input.
 */
export const DEFAULT_CLOSE_GRACE_MS = 1_000;
/** Default cap on one stdout line (one message), in bytes (16 MiB, as for HTTP bodies). */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Options of {@link StdioTransport}. */
export interface StdioTransportOptions {
  /** The server executable, e.g. `"node"` or `"npx"` (no shell is involved). */
  command: string;
  /** Its arguments. @default [] */
  args?: readonly string[];
  /** Environment entries, laid over what the server inherits (see `inheritEnv`); `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /**
   * What the server inherits from `process.env`: by default only `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM` and
   * `USER` (on Windows `APPDATA`, `PATH`, `SYSTEMROOT`, `TEMP`, `USERPROFILE` and a few more), as the official MCP
   * SDK does, so secrets exported in the shell do not reach a server that did not ask for them; `true` passes all
   * of `process.env`, `false` nothing. @default undefined (the list above)
   */
  inheritEnv?: boolean;
  /** Working directory of the server. @default process.cwd() */
  cwd?: string;
  /** Receives the server's stderr as decoded text chunks (logs). @default discarded */
  onStderr?: (text: string) => void;
  /** Receives notifications that belong to no request while none is in flight (see the module docs). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Receives a one-line description of every message that was dropped (server requests, unknown ids, bad lines). */
  onWarning?: (detail: string) => void;
  /** ms to wait after closing stdin before SIGTERM, and again before SIGKILL. @default DEFAULT_CLOSE_GRACE_MS */
  closeGraceMs?: number;
  /** Largest accepted stdout line in bytes. @default DEFAULT_MAX_LINE_BYTES */
  maxLineBytes?: number;
  /** Start a new server on the next call after the previous one exited (3.5; calls in flight are lost). @default true */
  restart?: boolean;
  /**
   * The identity of the server this transport reaches, as stored in task records (`TaskRecord.server`) and used to
   * group polls and `Retry-After` pauses. Give one when the default does not tell servers apart well enough for you,
   * or when an application needs to find the server again from a record (the CLI stores how it reached the server).
   * A non-empty string of at most 8192 characters without control characters; it must not hold secrets (records are
   * plain files). Two transports with the same key are treated as the same server.
   * (https://github.com/modelcontextprotocol/ext-tasks, task records resumed on the same server)
   * @default `stdio:` followed by the command line (command and args joined by spaces)
   */
  serverKey?: string;
}

const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'expected a function');
const OptionsSchema = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string().optional()).optional(),
  inheritEnv: z.boolean().optional(),
  cwd: z.string().min(1).optional(),
  onStderr: fn.optional(),
  onNotification: fn.optional(),
  onWarning: fn.optional(),
  closeGraceMs: z.number().int().nonnegative().optional(),
  maxLineBytes: z.number().int().positive().optional(),
  restart: z.boolean().optional(),
  serverKey: z.string().optional(),
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** @throws TypeError naming the first invalid option and the value it got. */
export function checkStdioOptions(options: StdioTransportOptions): void {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? '');
    const got = isObject(options) ? (options as unknown as Record<string, unknown>)[field] : options;
    throw new TypeError(
      `StdioTransport: invalid option "${field}": ${issue?.message ?? 'invalid'} (got ${typeof got === 'function' ? 'a function' : JSON.stringify(got)})`,
    );
  }
}

/**
 * Consecutive stdout lines that are not JSON skipped before every request in flight fails as lost
 * (`StreamEndedError`, the last line's `InvalidResponseError` as `cause`): one stray log line is reported
 * (`onWarning`) and skipped; a server that writes nothing but text is not waited on until each request's timeout.
 */
export const MAX_SKIPPED_LINES = 100;
