/**
 * The stdio server's child process as the transport sees it: its promises of start and exit, the tail of its stderr,
 * and the polite shutdown in the specification's order (close stdin, wait, SIGTERM, wait, SIGKILL).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 * @internal
 */
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';

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

/** How a stdio server ended when it was shut down: on its own once its stdin closed, after SIGTERM, or SIGKILL. */
export type StdioShutdownStep = 'stdin-closed' | 'SIGTERM' | 'SIGKILL';

/**
 * Shuts a stdio server down in the order the specification gives: close its stdin, wait for it to exit for at most
 * `graceMs`, then send SIGTERM and wait at most `graceMs` again, then SIGKILL. A server that exits when its input
 * ends (the usual case) is gone at once: nothing waits a fixed time. Shared by every stdio client in this package,
 * whichever protocol era the server speaks.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio ; the same order in
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio)
 *
 * @param proc the server's process (its stdin a pipe).
 * @param exited resolves when the process exited (e.g. {@link exitOf}).
 * @param graceMs each of the two waits, ms.
 * @returns the step the process ended at; resolves only once it exited.
 */
export async function shutDownStdioChild(
  proc: Pick<ChildProcess, 'stdin' | 'kill'>,
  exited: Promise<void>,
  graceMs: number,
): Promise<StdioShutdownStep> {
  try {
    proc.stdin?.end();
  } catch {
    // a pipe already broken: the waits below still apply
  }
  if (await exitsWithin(exited, graceMs)) return 'stdin-closed';
  proc.kill('SIGTERM');
  if (await exitsWithin(exited, graceMs)) return 'SIGTERM';
  proc.kill('SIGKILL');
  await exited;
  return 'SIGKILL';
}

/** Resolves once `proc` exited (at once when it already has). */
export function exitOf(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}
