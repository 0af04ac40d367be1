/**
 * Helpers for the CLI tests: build `packages/cli/dist/main.js` once when it is missing or older than its sources, run the built CLI
 * as a child process (optionally inside a pseudo-terminal via `script`), and wait for its output.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAll, builtIsFresh, CLI, ROOT } from '../../../scripts/dist-freshness.js';

export { CLI, ROOT };

const isFresh = builtIsFresh;

/** Builds the package with `npx tsup --silent` if the CLI is missing or stale; test files share one build (a lock dir). */
export async function ensureCliBuilt(): Promise<void> {
  const lock = join(tmpdir(), `mcp-tasks-cli-build-${Buffer.from(ROOT).toString('hex').slice(-24)}.lock`);
  for (;;) {
    if (isFresh()) return;
    try {
      mkdirSync(lock);
    } catch {
      await new Promise((r) => setTimeout(r, 200)); // another test file is building
      continue;
    }
    try {
      if (!isFresh()) {
        const failed = buildAll();
        if (failed) throw new Error(`tsup failed: ${failed.stderr}`);
      }
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

const homes: string[] = [];

/** A fresh `MCP_TASKS_HOME` for one test file (removed by {@link killLeftovers}). */
export function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'mcp-tasks-home-'));
  homes.push(home);
  return home;
}

/** What a finished CLI run left behind. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A running CLI. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far (stdout + stderr interleaved by arrival). */
  readonly output: string;
  /** Resolves when the output matches `pattern` (rejects when the process ends first). */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves when the process ended. */
  done: Promise<CliRun>;
}

const live = new Set<ChildProcessWithoutNullStreams>();

/**
 * Kills every CLI process a test left running (a failed `waitFor`), waits for each to close, and removes the
 * temporary homes; call from `afterAll` and await it. A CLI inside `script` may outlive `script` by a moment and
 * still write its record, so the removal retries `ENOTEMPTY`.
 */
export async function killLeftovers(): Promise<void> {
  const closing = [...live].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  live.clear();
  await Promise.all(closing);
  for (const home of homes.splice(0))
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}

/** Where a CLI runs, when not in the repository root with the test's environment. */
export interface RunPlace {
  /** Working directory. @default ROOT */
  cwd?: string;
  /** Environment entries laid over the test's (e.g. `HOME`). */
  env?: NodeJS.ProcessEnv;
}

/** Starts `command args` with the given environment and collects its output. */
function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  place: RunPlace = {},
): CliProcess {
  const child = spawn(command, args, {
    cwd: place.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env, ...place.env },
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  let all = '';
  const waiters: Array<() => void> = [];
  const onData = (which: 'out' | 'err') => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (which === 'out') stdout += text;
    else stderr += text;
    all += text;
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on('data', onData('out'));
  child.stderr.on('data', onData('err'));
  let ended = false;
  const done = new Promise<CliRun>((resolveDone) => {
    child.on('close', (code) => {
      ended = true;
      live.delete(child);
      for (const w of waiters.splice(0)) w();
      resolveDone({ code, stdout, stderr });
    });
  });
  return {
    child,
    get output() {
      return all;
    },
    done,
    waitFor(pattern) {
      return new Promise((resolveWait, reject) => {
        const check = (): void => {
          const match = all.match(pattern);
          if (match) resolveWait(match);
          else if (ended) reject(new Error(`process ended before ${pattern}; output:\n${all}`));
          else waiters.push(check);
        };
        check();
      });
    },
  };
}

/** Starts the built CLI without a TTY (pipes). */
export function startCli(args: string[], home: string, place?: RunPlace): CliProcess {
  return startProcess(process.execPath, [CLI, ...args], { MCP_TASKS_HOME: home }, place);
}

/** Runs the built CLI without a TTY and resolves when it exits. */
export function runCli(args: string[], home: string, place?: RunPlace): Promise<CliRun> {
  const run = startCli(args, home, place);
  run.child.stdin.end();
  return run.done;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Starts the built CLI inside a pseudo-terminal (`script` from util-linux), 100 columns wide; write keystrokes to
 * `child.stdin`.
 */
export function startCliInPty(args: string[], home: string, place?: RunPlace): CliProcess {
  const command = `stty cols 100 rows 40; exec ${shellQuote(process.execPath)} ${[CLI, ...args].map(shellQuote).join(' ')}`;
  return startProcess(
    'script',
    ['-qfec', command, '/dev/null'],
    { MCP_TASKS_HOME: home, TERM: 'xterm-256color' },
    place,
  );
}

/** True when `text` holds an escape or carriage return (what a non-TTY log must never contain). */
export function hasControlCharacters(text: string): boolean {
  return /[\x1b\r]/.test(text);
}
