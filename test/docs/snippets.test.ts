/**
 * Docs that run. Every TypeScript block in the README and docs/ is the `// #region` of a program under
 * examples/docs/ (named by the `<!-- snippet: file#region -->` line above it), which `tsc` type-checks with the rest
 * of the project; the programs that need only the reference server (and Redis) are run here and must exit 0 on their
 * own. A block that is no program of ours (a sketch of another library's harness) says why on a
 * `<!-- snippet-exempt: … -->` line. Every JSON block parses. `npm run docs:snippets` writes the regions into the docs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { docFiles, fencesOf, regionOf } from '../../scripts/doc-snippets.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The example programs this test runs, each with what it needs. The others are type-checked only (see their headers). */
const RUN: Record<string, { redis?: boolean; expect: RegExp }> = {
  'examples/docs/readme.examples.ts': { expect: /done \[/ },
  'examples/docs/fleet.examples.ts': { redis: true, expect: /content/ },
};

describe('every code block in the docs', () => {
  const files = docFiles(ROOT);

  it.each(files)('%s: each TypeScript block is a region of an example program, or says why not', (file) => {
    const problems: string[] = [];
    for (const fence of fencesOf(readFileSync(join(ROOT, file), 'utf8'))) {
      if (fence.lang !== 'ts' && fence.lang !== 'typescript') continue;
      if (fence.exempt !== undefined) {
        if (fence.exempt.trim() === '') problems.push(`line ${fence.line}: snippet-exempt without a reason`);
        continue;
      }
      if (fence.snippet === undefined) {
        problems.push(
          `line ${fence.line}: no <!-- snippet: examples/docs/<file>#<region> --> line above the block`,
        );
        continue;
      }
      const [path, region] = fence.snippet.split('#') as [string, string];
      const expected = regionOf(readFileSync(join(ROOT, path), 'utf8'), region);
      if (expected === undefined) problems.push(`line ${fence.line}: ${fence.snippet} has no such region`);
      else if (expected !== fence.body)
        problems.push(`line ${fence.line}: differs from ${fence.snippet} (npm run docs:snippets)`);
    }
    expect(problems).toEqual([]);
  });

  it.each(files)('%s: each JSON block parses (a jsonl block, line by line)', (file) => {
    for (const fence of fencesOf(readFileSync(join(ROOT, file), 'utf8'))) {
      if (fence.lang === 'json') expect(() => JSON.parse(fence.body), `${file}:${fence.line}`).not.toThrow();
      if (fence.lang === 'jsonl')
        for (const line of fence.body.split('\n').filter((l) => l.trim() !== ''))
          expect(() => JSON.parse(line), `${file}:${fence.line}`).not.toThrow();
    }
  });

  it('every example program under examples/docs/ is shown somewhere', () => {
    const shown = new Set(
      files.flatMap((file) =>
        fencesOf(readFileSync(join(ROOT, file), 'utf8')).flatMap((f) =>
          f.snippet ? [f.snippet.split('#')[0]] : [],
        ),
      ),
    );
    const programs = readdirSync(join(ROOT, 'examples/docs')).map((f) => `examples/docs/${f}`);
    expect(programs.filter((p) => !shown.has(p))).toEqual([]);
  });
});

describe('the example programs run', () => {
  let server: TaskServer;
  let redis: RedisServer | undefined;
  const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-snippets-'));
  beforeAll(async () => {
    server = await createTaskServer({ pollIntervalMs: 50, timeScale: 0.05 });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it.each(Object.entries(RUN))(
    '%s exits 0 on its own',
    async (path, needs) => {
      let source = readFileSync(join(ROOT, path), 'utf8').replaceAll('http://127.0.0.1:3000/mcp', server.url);
      if (needs.redis) {
        redis ??= await startRedis();
        source = source.replaceAll('redis://127.0.0.1:6379', redis.url);
      }
      // Beside the original, so that `mcp-tasks-client` resolves as it does there (tsconfig paths, node_modules).
      const copy = join(ROOT, 'examples/docs', `.run-${process.pid}-${path.split('/').pop()}`);
      writeFileSync(copy, source);
      try {
        const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
          const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [copy], { cwd: ROOT });
          let output = '';
          child.stdout.on('data', (c) => (output += c));
          child.stderr.on('data', (c) => (output += c));
          const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
          child.on('close', (code) => {
            clearTimeout(timer);
            resolve({ code, output });
          });
        });
        expect(run.output).toMatch(needs.expect);
        expect(run.code, run.output).toBe(0);
      } finally {
        rmSync(copy, { force: true });
      }
    },
    90_000,
  );
});
