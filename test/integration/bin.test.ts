/**
 * The built `mcp-tasks-reference-server` bin (dist/testing/reference-server.js): stdio mode through StdioTransport,
 * HTTP mode with `--cors`, and usage errors. Needs `npm run build` (npm test builds first).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { StdioTransport } from '../../src/stdio.js';
import '../helpers/no-jitter.js';

const BIN = fileURLToPath(new URL('../../dist/testing/reference-server.js', import.meta.url));
const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

describe('the mcp-tasks-reference-server bin', () => {
  beforeAll(() => {
    if (!existsSync(BIN))
      throw new Error(`${BIN} is missing: run \`npx tsup\` (or npm test, which builds first)`);
  });

  it('serves MCP over stdio: a task with input_required completes', async () => {
    const stderr: string[] = [];
    const transport = new StdioTransport({
      command: process.execPath,
      args: [BIN, '--stdio', '--poll-interval-ms', '100'],
      onStderr: (t) => stderr.push(t),
    });
    const client = new TaskClient({ transport });
    cleanup.push(() => client.close());
    client.on(
      'inputRequired',
      (event) => void event.respond({ action: 'accept', content: { confirm: true } }),
    );
    const result = await client.callTool('deploy_release', { version: '3.1.0' });
    expect(result.content).toEqual([expect.objectContaining({ text: expect.stringContaining('3.1.0') })]);
    expect(stderr.join('')).toContain('serving MCP over stdio');
  });

  it('serves Streamable HTTP with --http --port 0 and prints the endpoint', async () => {
    const child = spawn(process.execPath, [BIN, '--http', '--port', '0', '--cors', 'http://127.0.0.1:1'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanup.push(
      () =>
        new Promise((resolve) =>
          child.exitCode !== null ? resolve(undefined) : (child.once('exit', resolve), child.kill('SIGTERM')),
        ),
    );
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    );
    const url = /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(first)?.[1];
    expect(url).toBeDefined();
    const client = new TaskClient({ transport: new StreamableHttpTransport(url as string) });
    cleanup.push(() => client.close());
    expect((await client.discover()).serverInfo?.name).toBe('mcp-tasks-reference-server');
  });

  it('exits with status 2 and a message on a bad option', async () => {
    const child = spawn(process.execPath, [BIN, '--stdio', '--ttl-ms', 'soon'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--ttl-ms expects an integer, got "soon"');
  });
});
