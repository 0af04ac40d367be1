/**
 * The CLI against a 2025-11-25 server (`@modelcontextprotocol/server-everything`, reached through the official SDK
 * 1.x, a dependency): no resume hint that cannot work, an example answers file with every required field, and
 * `--detach` refused before anything starts; the progress of an inline call shown.
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

  it('the progress of a call answered inline (notifications/progress) is shown as it comes, like task status', async () => {
    const run = await runCli(
      ['call', everything.url, 'trigger-long-running-operation', 'duration=0.3', 'steps=3'],
      home,
    );
    expect(run.code).toBe(0);
    // On stderr: stdout holds exactly the result
    const lines = run.stderr.split('\n').filter((line) => / progress /.test(line));
    expect(lines.map((line) => line.replace(/^\[\s*[\d.]+s\] /, ''))).toEqual([
      'progress 1/3 (33%)',
      'progress 2/3 (67%)',
      'progress 3/3 (100%)',
    ]);
    const json = await runCli(
      ['call', everything.url, 'trigger-long-running-operation', 'duration=0.3', 'steps=3', '--json'],
      home,
    );
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; progress?: number; total?: number });
    expect(events.filter((e) => e.event === 'progress').map((e) => [e.progress, e.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(events.at(-1)?.event).toBe('result');
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
