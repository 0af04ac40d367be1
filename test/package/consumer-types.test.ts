/**
 * The published type declarations as a strict TypeScript user compiles them: a project that imports every entry
 * point (ESM and CommonJS), compiled with `skipLibCheck: false`, `module: NodeNext` and `strict`, so every `.d.ts`
 * in `dist/` is checked (e.g. `stripInternal` must not leave a class implementing a stripped member).
 * `npm test` builds `dist` before running the tests; the package is linked into the project (`node_modules`
 * symlink), so its exports map is resolved as an installed copy's would be.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const project = mkdtempSync(join(tmpdir(), 'mcp-tasks-consumer-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const ENTRY_POINTS = [
  'testing',
  'stdio',
  'file-store',
  'redis-store',
  'ai-sdk',
  'langchain',
  'openai-agents',
];
/** Optional peers the adapters and the Redis store declare types against, and Node's types. */
const PEERS = ['redis', 'ai', '@langchain/core', '@openai/agents-core', '@types/node'];

const USE = `
export async function use(error: unknown): Promise<string | undefined> {
  const client = new TaskClient({ transport: new StreamableHttpTransport('http://127.0.0.1:1/mcp') });
  const handle: TaskHandle = await client.task('t-1');
  handle.on('status', (task) => void task.status);
  if (isMcpClientError(error, 'CLIENT_CLOSED') && error.taskId) return error.taskId;
  if (error instanceof ClientClosedError) return error.taskId;
  return undefined;
}
`;

function link(name: string): void {
  const target = join(project, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(name === 'mcp-tasks-client' ? ROOT : join(ROOT, 'node_modules', name), target, 'dir');
}

describe('type declarations under a strict consumer', () => {
  it('every entry point compiles with skipLibCheck: false, module NodeNext, strict (ESM and CommonJS)', () => {
    for (const name of ['mcp-tasks-client', ...PEERS]) link(name);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    const imports = ENTRY_POINTS.map((e, i) => `import * as entry${i} from 'mcp-tasks-client/${e}';`).join(
      '\n',
    );
    const all = `export const entries = [${ENTRY_POINTS.map((_, i) => `entry${i}`).join(', ')}];`;
    const main = `import { ClientClosedError, isMcpClientError, StreamableHttpTransport, TaskClient, type TaskHandle } from 'mcp-tasks-client';`;
    writeFileSync(join(project, 'esm.ts'), `${main}\n${imports}\n${all}\n${USE}`);
    writeFileSync(join(project, 'cjs.cts'), `${main}\n${imports}\n${all}\n${USE}`);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['esm.ts', 'cjs.cts'],
      }),
    );
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
      { cwd: project, encoding: 'utf8' },
    );
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 600_000);
});
