/** Fleet workers as child processes (`node --import tsx fleet-worker.ts …`), with their JSON events collected. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./fleet-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type WorkerEvent = Record<string, any> & { event: string; workerId: string };

export interface WorkerProcess {
  id: string;
  process: ChildProcess;
  events: WorkerEvent[];
  stderr: string[];
  exited: Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

export function spawnWorker(args: {
  redisUrl: string;
  prefix: string;
  serverUrl: string;
  id: string;
  leaseMs: number;
  claimIntervalMs: number;
}): WorkerProcess {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      WORKER,
      args.redisUrl,
      args.prefix,
      args.serverUrl,
      args.id,
      String(args.leaseMs),
      String(args.claimIntervalMs),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const events: WorkerEvent[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      events.push(JSON.parse(line) as WorkerEvent);
    } catch {
      stderr.push(`stdout: ${line}`);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { id: args.id, process: child, events, stderr, exited, kill: (signal) => void child.kill(signal) };
}

/** Kills every worker still running (SIGKILL, after a SIGCONT for stopped ones) and waits for the exits. */
export async function killAll(workers: WorkerProcess[]): Promise<void> {
  for (const w of workers) {
    if (w.process.exitCode === null && w.process.signalCode === null) {
      w.process.kill('SIGCONT');
      w.process.kill('SIGKILL');
    }
  }
  await Promise.all(workers.map((w) => w.exited));
}
