/**
 * A 2026-07-28 stdio server slower to start than the `server/discover` probe's budget (5 s), as `npx` under load
 * is: `tools` used to fail with "initialize failed: Method not found: initialize (JSON-RPC -32601)", the slow
 * server having been taken for a 2025-11-25 one. Now the late answer (or `initialize` refused as an unknown method)
 * keeps it modern and the tools are listed. The built CLI as a child process; the reference server over stdio,
 * started through a wrapper that waits 6 s before it reads stdin.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureCliBuilt, killLeftovers, ROOT, runCli, tempHome } from './helpers.js';

const REFERENCE = join(ROOT, 'dist/testing/reference-server.js');
let home: string;
let slow: string;

beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  slow = join(mkdtempSync(join(tmpdir(), 'slow-stdio-start-')), 'slow.mjs');
  writeFileSync(
    slow,
    `import { pathToFileURL } from 'node:url';
const [script, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], script, ...rest];
setTimeout(() => import(pathToFileURL(script).href), 6000);`,
  );
}, 120_000);
afterAll(() => killLeftovers());

it('tools --stdio: a modern server that starts reading after the probe gave up is still listed as modern', async () => {
  const run = await runCli(['tools', '--stdio', `node ${slow} ${REFERENCE} --stdio`, '--json'], home);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('"name":"reindex_corpus"');
  expect(run.stderr).not.toContain('initialize failed');
}, 60_000);
