/**
 * Helpers for the bridge tests: the reference task server on loopback, the bridge's command line, and an SDK 1.x
 * `Client` host over stdio (the real SDK, no mocks).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createServer } from 'node:net';
import { createTaskServer, type TaskServer, type TaskServerOptions } from 'mcp-tasks-client/testing';
import { afterAll, beforeAll } from 'vitest';
import { CLI, ensureCliBuilt, killLeftovers, tempHome } from './helpers.js';

/** The reference server (MCP 2026-07-28 + Tasks) on loopback. */
export function referenceServer(options: TaskServerOptions = {}): Promise<TaskServer> {
  return createTaskServer({ pollIntervalMs: 50, inlineBudgetMs: 20, ...options });
}

/** argv of `node main.js bridge <url> …` */
export function bridgeArgs(url: string, extra: string[] = []): string[] {
  return [CLI, 'bridge', url, ...extra];
}

/** A host: the SDK 1.x `Client` starting the bridge over stdio. */
export async function sdkHost(
  url: string,
  home: string,
  extra: string[] = [],
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: bridgeArgs(url, extra),
    env: { ...(process.env as Record<string, string>), MCP_TASKS_HOME: home },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const client = new Client({ name: 'test-host', version: '1.0.0' }, capabilities);
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

/** Resolves once `check()` is true (polled every 20 ms, at most `ms`). */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `task_result {taskId}` until the result is no longer "pending" (each call waits up to the bridge's --max-wait). */
export async function taskResult(
  client: Client,
  taskId: string,
): Promise<Awaited<ReturnType<Client['callTool']>>> {
  for (;;) {
    const result = await client.callTool({ name: 'task_result', arguments: { taskId } });
    if ((result.structuredContent as { status?: string } | undefined)?.status !== 'pending') return result;
  }
}

/**
 * One test file's hosts and upstreams: the CLI built and a fresh `MCP_TASKS_HOME` before its tests; every host and
 * upstream pushed to the lists closed after them (and any bridge left running killed).
 */
export function bridgeTestFile(): {
  home(): string;
  hosts: Client[];
  upstreams: { close(): Promise<void> }[];
} {
  let home = '';
  const hosts: Client[] = [];
  const upstreams: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    await ensureCliBuilt();
    home = tempHome();
  }, 120_000);
  afterAll(async () => {
    for (const host of hosts) await host.close().catch(() => undefined);
    await killLeftovers();
    for (const upstream of upstreams) await upstream.close();
  });
  return { home: () => home, hosts, upstreams };
}

/** A loopback port nothing listens on (taken, then given back). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
