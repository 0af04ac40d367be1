/**
 * The built package as a user without `@opentelemetry/api` runs it, in the same process as one with it: a copy of
 * `dist/` in a temporary folder whose `node_modules` links every installed package but `@opentelemetry/*`. Node
 * resolves packages from the importing file's folder upwards, so the copy's entry finds undici, zod and the rest,
 * and its optional load of the API fails as on a machine where it was never installed.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** A copy of `dist/` that cannot resolve `@opentelemetry/*`; `remove` deletes it. */
export function distWithoutOtel(): { nodeEntry: string; remove: () => void } {
  const folder = mkdtempSync(join(tmpdir(), 'mcp-tasks-no-otel-'));
  cpSync(join(root, 'dist'), join(folder, 'dist'), { recursive: true });
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
  const modules = join(folder, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === '@opentelemetry' || name.startsWith('.')) continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'junction');
  }
  return {
    nodeEntry: join(folder, 'dist', 'node.js'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
