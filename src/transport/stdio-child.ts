/**
 * The stdio server's child process as the transport sees it: its promises of start and exit, the tail of its stderr,
 * and the polite shutdown in the specification's order (close stdin, wait, SIGTERM, wait, SIGKILL).
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 * @internal
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ServerExitedError } from '../errors.js';
import { childEnv } from '../internal/child-env.js';

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

/** What to start: the command line, its working directory and environment. */
export interface ChildCommand {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Record<string, string | undefined>;
  readonly inheritEnv?: boolean;
  readonly cwd?: string;
}

/** Where a started process's output and end go. */
export interface ChildHooks {
  onStdout(chunk: Buffer): void;
  onStderr(text: string): void;
  /**
   * The process is gone: it could not be started, or it exited (called again for the same process after a drain
   * period, in case a grandchild holds stdout open; the receiver ignores a second call for a `gone` child).
   */
  onGone(child: Child, error: ServerExitedError): void;
}

/** Starts `command` with piped stdio; `commandLine` names it in errors. */
export function spawnChild(command: ChildCommand, commandLine: string, hooks: ChildHooks): Child {
  const proc = spawn(command.command, [...(command.args ?? [])], {
    cwd: command.cwd,
    env: childEnv(command),
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  let onSpawn!: () => void;
  let onSpawnError!: (error: unknown) => void;
  let onExit!: () => void;
  const child: Child = {
    process: proc,
    spawned: new Promise<void>((resolve, reject) => ((onSpawn = resolve), (onSpawnError = reject))),
    exited: new Promise<void>((resolve) => (onExit = resolve)),
    stderrTail: '',
    gone: false,
  };
  child.spawned.catch(() => undefined);
  proc.stdin.on('error', () => undefined); // EPIPE: reported through the exit
  proc.stdout.on('data', (chunk: Buffer) => hooks.onStdout(chunk));
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (text: string) => {
    child.stderrTail = (child.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    hooks.onStderr(text);
  });
  proc.once('spawn', onSpawn);
  proc.once('exit', onExit);
  proc.on('error', (error) => {
    if (proc.pid !== undefined) return; // a failed kill(); the process lives on
    const failure = new ServerExitedError(commandLine, null, null, '', { cause: error });
    onSpawnError(failure);
    onExit();
    hooks.onGone(child, failure);
  });
  // 'close' (not 'exit'): every line the server wrote before exiting has been read by then. A grandchild that
  // inherited stdout can hold 'close' back, so 'exit' settles the calls after a short drain period regardless.
  const exitedWith = (code: number | null, signal: NodeJS.Signals | null): void =>
    hooks.onGone(child, new ServerExitedError(commandLine, code, signal, child.stderrTail));
  proc.once('close', exitedWith);
  proc.once('exit', (code, signal) => setTimeout(() => exitedWith(code, signal), EXIT_DRAIN_MS).unref());
  return child;
}

/** Ends `child` politely: closes its stdin, waits `graceMs`, SIGTERM, waits again, SIGKILL; resolves once it exited. */
export async function endChild(child: Child, graceMs: number): Promise<void> {
  if (child.gone) return;
  await shutDownStdioChild(child.process, child.exited, graceMs);
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
