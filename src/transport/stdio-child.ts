/**
 * The stdio server's child process as the transport sees it: its promises of start and exit, the tail of its stderr,
 * and the wait of the polite shutdown (close stdin, SIGTERM, SIGKILL).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 * @internal
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/** How long after the process exits its stdout may still deliver lines before pending calls fail, in ms. */
export const EXIT_DRAIN_MS = 250;
/** How many characters of the server's latest stderr a `ServerExitedError` keeps. */
export const STDERR_TAIL_CHARS = 1_000;

/** One started server process. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly spawned: Promise<void>;
  readonly exited: Promise<void>;
  stderrTail: string;
  gone: boolean;
}

/** Resolves `true` when `exited` settles within `ms`, `false` otherwise; clears its timer either way. */
export function exitsWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
