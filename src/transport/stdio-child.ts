/**
 * The stdio server's child process as the transport sees it: its promises of start and exit, the tail of its stderr,
 * and the polite shutdown in the specification's order (close stdin, wait, SIGTERM, wait, SIGKILL).
 *
 * On POSIX the server is started as the leader of its own process group and the signals go to that whole group, so
 * a wrapper such as `npx`, `sh -c` or `uv run` takes the real server (its child) with it instead of leaving it
 * running with its stdio pipes open. A side effect: the terminal's Ctrl-C (SIGINT) no longer reaches the server
 * directly; the program ends it by closing the transport (the server also sees its stdin end when this process
 * dies). On Windows, which has no process groups, the signals go to the started process alone.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 * @internal
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ServerExitedError } from '../errors.js';
import { childEnv } from '../internal/child-env.js';

/** Whether servers lead their own process group (POSIX) so that the shutdown signals reach their children too. */
const OWN_GROUP = process.platform !== 'win32';

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
    // Its own process group: see the module comment. Not on Windows, where `detached` means a new console.
    detached: OWN_GROUP,
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

/**
 * Ends `child` politely: closes its stdin, waits `graceMs`, SIGTERM, waits again, SIGKILL; resolves once it exited.
 * Processes it left behind in its group are sent SIGTERM (and SIGKILL `graceMs` later) without waiting for them, and
 * its pipes are released, so nothing they hold keeps this process running.
 */
export async function endChild(child: Child, graceMs: number): Promise<void> {
  if (child.gone) endRestOfGroup(child.process.pid, graceMs);
  else await shutDownStdioChild(child.process, child.exited, graceMs);
  for (const stream of [child.process.stdin, child.process.stdout, child.process.stderr]) stream.destroy();
}

/**
 * Sends `signal` to the server's whole process group when it leads one (POSIX), else to the process alone (Windows,
 * or a process started without its own group).
 */
function signalServer(proc: Pick<ChildProcess, 'pid' | 'kill'>, signal: NodeJS.Signals): void {
  if (OWN_GROUP && proc.pid !== undefined && signalGroup(proc.pid, signal)) return;
  proc.kill(signal);
}

/**
 * Sends `signal` (0: none, only the check) to the process group `pgid`; `false` when there is no such group (ESRCH:
 * started without one, or every member is gone) or it is not ours to signal (EPERM).
 */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * After the group's leader exited: sends SIGTERM to what is left of its group, and SIGKILL `graceMs` later if some of
 * it is still there. Does not wait: a member that outlives both is not worth a `close()` that never resolves, and the
 * timer does not keep this process running.
 */
function endRestOfGroup(pid: number | undefined, graceMs: number): void {
  if (!OWN_GROUP || pid === undefined || !signalGroup(pid, 'SIGTERM')) return;
  setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs).unref();
}

/** How a stdio server ended when it was shut down: on its own once its stdin closed, after SIGTERM, or SIGKILL. */
export type StdioShutdownStep = 'stdin-closed' | 'SIGTERM' | 'SIGKILL';

/**
 * Shuts a stdio server down in the order the specification gives: close its stdin, wait for it to exit for at most
 * `graceMs`, then send SIGTERM and wait at most `graceMs` again, then SIGKILL. A server that exits when its input
 * ends (the usual case) is gone at once: nothing waits a fixed time. When the server leads its own process group
 * (POSIX, as {@link spawnChild} starts it) the signals go to the whole group, and processes left in the group after
 * the server exited get SIGTERM, then SIGKILL `graceMs` later, without being waited for. Shared by every stdio client in this package,
 * whichever protocol era the server speaks.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio ; the same order in
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio)
 *
 * @param proc the server's process (its stdin a pipe).
 * @param exited resolves when the process exited (e.g. {@link exitOf}).
 * @param graceMs each of the two waits, ms.
 * @returns the step the process ended at; resolves only once it exited (not its group).
 */
export async function shutDownStdioChild(
  proc: Pick<ChildProcess, 'stdin' | 'kill' | 'pid'>,
  exited: Promise<void>,
  graceMs: number,
): Promise<StdioShutdownStep> {
  try {
    proc.stdin?.end();
  } catch {
    // a pipe already broken: the waits below still apply
  }
  if (await exitsWithin(exited, graceMs)) return endedAt('stdin-closed');
  signalServer(proc, 'SIGTERM');
  if (await exitsWithin(exited, graceMs)) return endedAt('SIGTERM');
  signalServer(proc, 'SIGKILL');
  await exited;
  return 'SIGKILL'; // the whole group was killed

  function endedAt(step: StdioShutdownStep): StdioShutdownStep {
    endRestOfGroup(proc.pid, graceMs);
    return step;
  }
}

/** Resolves once `proc` exited (at once when it already has). */
export function exitOf(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}
