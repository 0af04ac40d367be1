/**
 * The CLI against a 2025-11-25 server (`@modelcontextprotocol/server-everything`, reached through the official SDK
 * 1.x, a dependency): no resume hint that cannot work, an example answers file with every required field, and
 * `--detach` refused before anything starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp, type HttpChild } from '../../../test/legacy/servers.js';
import { ensureCliBuilt, killLeftovers, runCli, tempHome } from './helpers.js';

let everything: HttpChild;
let home: string;
beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  everything = await startEverythingHttp();
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  await everything?.stop();
});

describe('a 2025-11-25 server', () => {
  it('an unanswerable question: the task is cancelled (it could never be answered later), no watch command, and an answers file with every required field', async () => {
    const run = await runCli(
      ['call', everything.url, 'simulate-research-query', 'topic=python', 'ambiguous=true'],
      home,
    );
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(
      'This server speaks MCP 2025-11-25: its tasks belong to this connection and cannot be resumed from another process.',
    );
    expect(run.stderr).toContain(
      'tasks/cancel was sent and acknowledged (the server decides when the task ends).',
    );
    expect(run.stderr).not.toContain('mcp-tasks watch');
    const example = /where answers\.json is, for example:\s+(\{.*\})/.exec(run.stderr)?.[1] as string;
    expect(Object.keys(JSON.parse(example) as object)).toEqual(['interpretation']);
  }, 60_000);

  it('--detach is refused: the task could never be picked up again', async () => {
    const run = await runCli(
      ['call', everything.url, 'simulate-research-query', 'topic=python', '--detach'],
      home,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--detach cannot work here. This server speaks MCP 2025-11-25');
  }, 60_000);
});
