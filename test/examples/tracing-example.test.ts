/**
 * `examples/tracing.ts` runs as a person would run it (`npx tsx examples/tracing.ts`): it registers the real
 * OpenTelemetry SDK, runs a task with a question against the reference server and prints the trace as a tree.
 * `npm test` builds `dist/` first, which the example imports as `mcp-tasks-client`.
 */
import { expect, it } from 'vitest';
import { runExample } from '../helpers/run-example.js';

it('examples/tracing.ts prints the task as one trace: the host span, the creating tools/call, the task span linked to it with its events, tasks/update', async () => {
  const { code, stdout, stderr } = await runExample('examples/tracing.ts');
  expect(code, `${stdout}\n${stderr}`).toBe(0);
  const lines = stdout.split('\n');
  expect(lines[0]).toBe('outcome: deployed 1.2.3');
  expect(stdout).toMatch(/^trace [0-9a-f]{32}$/m);
  // The host's span is the only root; the creation request is below it (directly, or under a task span).
  expect(lines.filter((l) => /^[^\s│├└].*\[(internal|client|server|producer|consumer), /.test(l))).toEqual([
    expect.stringMatching(/^deploy 1\.2\.3 {2}\[internal, \+0 ms, \d+ ms\]$/),
  ]);
  expect(stdout).toMatch(/^[│ ]*[├└]─ tools\/call deploy_release {2}\[client, /m);
  expect(stdout).toMatch(/^[│ ]*[├└]─ tasks\/update {2}\[client, /m);
  // The task's span: under the request that created it, linked to it, with the question's events.
  expect(stdout).toMatch(/^[│ ]*[├└]─ task deploy_release {2}\[internal, /m);
  expect(stdout).toMatch(/↗ link to tools\/call deploy_release {2}mcp_tasks\.link\.kind="created_by"/);
  expect(stdout).toMatch(/· \+\d+ ms mcp_tasks\.input\.answered .*mcp_tasks\.input\.action="accept"/);
  expect(stdout).toMatch(/mcp_tasks\.task\.id="[^"]+"/);
  expect(stdout).toContain('gen_ai.tool.name="deploy_release"');
}, 60_000);
