/**
 * Child processes of the benchmark: each phase runs in a fresh Node process (so peak RSS belongs to that phase), and
 * the HTTP phases start the reference server in yet another process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Server-side timings of one task, ms since the epoch (server clock = this machine's clock). */
export interface TaskTimes {
  taskId: string;
  createdAtMs: number;
  completedAtMs: number;
  /** Arrival times of every `tasks/get` for the task. */
  gets: number[];
  /** `tasks/update` and `tasks/cancel` requests the server received for the task (HTTP server process only). */
  updates?: number;
  cancels?: number;
  /** The task's status on the server when collected (HTTP server process only). */
  serverStatus?: string | null;
}

export type ServerRequest =
  | { type: 'collect'; tasks: Array<{ taskId: string; key: string }> }
  | { type: 'reset' }
  | { type: 'exit' };
export type ServerReply =
  | { type: 'ready'; url: string }
  | { type: 'collected'; tasks: TaskTimes[]; counts: Record<string, number> }
  | { type: 'reset-done' };

const benchDir = fileURLToPath(new URL('..', import.meta.url));
const EXEC_ARGV = ['--import', 'tsx', '--expose-gc'];

/** A reference server in a child process. */
export interface ServerProcess {
  url: string;
  collect(
    tasks: Array<{ taskId: string; key: string }>,
  ): Promise<{ tasks: TaskTimes[]; counts: Record<string, number> }>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

function next<T extends ServerReply['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<ServerReply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      if ((message as ServerReply).type !== type) return;
      cleanup();
      resolve(message as Extract<ServerReply, { type: T }>);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`server process exited (${code}) while waiting for ${type}`));
    };
    const cleanup = (): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Starts `bench/server.ts` with `options` (reference-server options) and waits for its URL. */
export async function startServerProcess(options: Record<string, unknown>): Promise<ServerProcess> {
  const child = fork(`${benchDir}server.ts`, [JSON.stringify(options)], {
    execArgv: EXEC_ARGV,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await next(child, 'ready');
  return {
    url,
    async collect(tasks) {
      const reply = next(child, 'collected');
      child.send({ type: 'collect', tasks } satisfies ServerRequest);
      const { tasks: times, counts } = await reply;
      return { tasks: times, counts };
    },
    async reset() {
      const reply = next(child, 'reset-done');
      child.send({ type: 'reset' } satisfies ServerRequest);
      await reply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send({ type: 'exit' } satisfies ServerRequest);
      }),
  };
}

/** Runs `bench/phases/<phase>.ts` in a fresh process with `env` added and resolves with the result it sends. */
export function runPhase<T>(phase: string, env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(`${benchDir}phases/${phase}.ts`, [], {
      execArgv: EXEC_ARGV,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: T | undefined;
    child.on('message', (message) => {
      const m = message as { type?: string; result?: T };
      if (m.type === 'result') result = m.result;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`phase ${phase} exited with code ${code} and no result`));
    });
  });
}

/** Sends the phase's result to the parent (or prints it as JSON when run directly). */
export function report(result: unknown): void {
  if (process.send) process.send({ type: 'result', result });
  else console.log(JSON.stringify(result, null, 2));
}
