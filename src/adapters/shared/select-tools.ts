/**
 * Which server tools an adapted tool set exposes, and under which names: include/exclude by the server's names, and
 * a prefix on every name the framework sees.
 *
 * @module
 */
import type { Tool } from '../../protocol/results.js';
import { hostQuoted } from './host-text.js';
import type { ResolvedTaskToolsOptions } from './options.js';

/** A server tool and the name the framework sees. */
export interface SelectedTool {
  readonly tool: Tool;
  readonly exposedName: string;
}

/**
 * Filters and names `tools`.
 *
 * @throws TypeError when two exposed names collide (e.g. a server tool named like a task tool): use `prefix`,
 *   `include` or `exclude`.
 */
export function selectTools(
  tools: readonly Tool[],
  options: ResolvedTaskToolsOptions,
  reserved: readonly string[],
): SelectedTool[] {
  const selected: SelectedTool[] = [];
  const names = new Set(reserved.map((name) => options.prefix + name));
  for (const tool of tools) {
    if (options.include && !options.include.has(tool.name)) continue;
    if (options.exclude.has(tool.name)) continue;
    const exposedName = options.prefix + tool.name;
    if (names.has(exposedName)) {
      throw new TypeError(
        `createTaskTools: two tools would be named ${hostQuoted(exposedName)}; set "prefix", or "exclude" ${hostQuoted(tool.name)}`,
      );
    }
    names.add(exposedName);
    selected.push({ tool, exposedName });
  }
  return selected;
}
