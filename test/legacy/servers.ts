/**
 * The servers of the era suite: `@modelcontextprotocol/server-everything` (2025-11-25, a server this project did not
 * write) as a child process over Streamable HTTP on a free loopback port or over stdio, and the reference task server
 * (2026-07-28) in-process over HTTP or bundled as a child process over stdio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { StdioTransport } from '../../src/transport/stdio.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The pinned dev dependency's entry point (`node index.js stdio|streamableHttp`). */
export const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
  { paths: [ROOT] },
);
const REFERENCE_CLI = fileURLToPath(new URL('../../src/testing/reference-server-cli.ts', import.meta.url));
/** Server logs are discarded unless MCP_TEST_STDERR=1. */
const onStderr =
  process.env.MCP_TEST_STDERR === '1' ? (text: string) => void process.stderr.write(text) : undefined;

/** A free TCP port on loopback (the OS picks one; it is released before the server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** A running server-everything over Streamable HTTP. */
export interface HttpChild {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts `server-everything streamableHttp` with `PORT` set to a free port and resolves once it says "listening" on
 * stderr (within `timeoutMs`); rejects with the output so far if it exits or stays silent.
 */
export async function startEverythingHttp(timeoutMs = 15_000): Promise<HttpChild> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
    onStderr?.(chunk.toString('utf8'));
  };
  child.stdout?.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`server-everything (HTTP, port ${port}) ${why}; output:\n${output}`));
    };
    const timer = setTimeout(() => fail(`did not say "listening" within ${timeoutMs} ms`), timeoutMs);
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal})`));
    child.stderr?.on('data', (chunk: Buffer) => {
      collect(chunk);
      if (/listening/i.test(output)) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve();
      }
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** server-everything over stdio: one child per transport (and one more for the SDK once the era is known). */
export function everythingStdio(): StdioTransport {
  return new StdioTransport({
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    cwd: ROOT,
    onStderr,
    closeGraceMs: 500,
  });
}

/** The reference server's CLI bundled once (plain `node` starts in ~0.1 s), for stdio clients. */
export async function bundleReferenceServer(): Promise<{ script: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-tasks-eras-'));
  const script = join(dir, 'reference-server.mjs');
  await build({
    entryPoints: [REFERENCE_CLI],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  return { script, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** The reference server over stdio, behind the same legacy-capable wrapper (so the probe must say "modern"). */
export function referenceStdio(script: string, flags: string[]): StdioTransport {
  return new StdioTransport({
    command: process.execPath,
    args: [script, '--stdio', ...flags],
    cwd: ROOT,
    onStderr,
    closeGraceMs: 500,
  });
}
