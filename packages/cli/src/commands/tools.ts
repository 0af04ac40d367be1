/**
 * `mcp-tasks tools <server>`: the server's tools (`tools/list`, all pages), each with whether it runs as a task
 * (`execution.taskSupport`, which 2025-11-25 servers declare; under the 2026-07-28 Tasks extension the server decides
 * per call), its required arguments, and its read-only / idempotent / destructive hints, so a person knows what
 * `call` will do.
 *
 * Tools: https://modelcontextprotocol.io/specification/2026-07-28/server/tools ;
 * tool-level task support (2025-11-25): https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 *
 * @module
 */
import type { Tool } from 'mcp-tasks-client';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { Output } from '../output.js';
import { safeLine } from 'mcp-tasks-client';
import { openSession, runReporting } from '../session.js';
import { resolveTarget, type ServerOptions, type ServerTarget } from '../server/target.js';
import { parseDuration } from '../duration.js';

/** Options of `tools`. */
export interface ToolsCommandOptions extends ServerOptions {
  json?: boolean;
  timeout?: string;
}

/** What `tools` shows of one tool. */
export interface ToolSummary {
  name: string;
  /** `execution.taskSupport` as listed (`required`, `optional`, `forbidden`), or `undefined` when not declared. */
  taskSupport: string | undefined;
  required: string[];
  readOnly: boolean | undefined;
  idempotent: boolean | undefined;
  destructive: boolean | undefined;
  description: string | undefined;
}

/** The summary of one listed tool. */
export function summarizeTool(tool: Tool): ToolSummary {
  const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
  const required = (tool.inputSchema as { required?: unknown }).required;
  return {
    name: tool.name,
    taskSupport: typeof execution?.taskSupport === 'string' ? execution.taskSupport : undefined,
    required: Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : [],
    readOnly: tool.annotations?.readOnlyHint,
    idempotent: tool.annotations?.idempotentHint,
    destructive: tool.annotations?.destructiveHint,
    description: tool.description ?? tool.title,
  };
}

/** `read-only, idempotent` … from the hints the server gave (absent hints are not guessed). */
function hints(t: ToolSummary): string {
  const out: string[] = [];
  if (t.readOnly === true) out.push('read-only');
  if (t.readOnly === false) out.push('writes');
  if (t.destructive === true && t.readOnly !== true) out.push('destructive');
  if (t.idempotent === true) out.push('idempotent');
  return out.length > 0 ? out.join(', ') : '-';
}

/** Runs `tools`; resolves with the exit code (0, or the error's). */
export function toolsCommand(
  server: string | undefined,
  options: ToolsCommandOptions,
): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  let target: ServerTarget | undefined;
  return runReporting(
    output,
    async () => {
      const timeoutMs =
        options.timeout !== undefined ? parseDuration('--timeout', options.timeout) : undefined;
      target = await resolveTarget(server, options);
      const session = await openSession(output, target, undefined, timeoutMs);
      try {
        const tools = (
          await session.waitFor('tools/list', session.client.listTools({ signal: session.signal }))
        ).map(summarizeTool);
        for (const t of tools) output.emit({ event: 'tool', ...t });
        if (tools.length === 0) {
          output.text(`${target.label} lists no tools.`);
          return ExitCode.Completed;
        }
        const rows = tools.map((t) => [
          safeLine(t.name),
          t.taskSupport ?? 'server decides',
          t.required.length > 0 ? t.required.map(safeLine).join(', ') : '-',
          hints(t),
        ]);
        const header = ['TOOL', 'TASK', 'REQUIRED ARGUMENTS', 'HINTS'];
        const widths = header.map((h, i) =>
          Math.max(h.length, ...rows.map((row) => (row[i] as string).length)),
        );
        for (const [i, row] of [header, ...rows].entries()) {
          output.text(
            row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] as number))).join('  '),
          );
          const description = i > 0 ? tools[i - 1]?.description : undefined;
          if (description) output.text(`  ${safeLine(description).slice(0, 110)}`);
        }
        output.text(
          `\nTASK: "required"/"optional"/"forbidden" as the tool declares (execution.taskSupport); "server decides" when it declares nothing (MCP 2026-07-28 + Tasks extension: any call may become a task).`,
        );
        return ExitCode.Completed;
      } finally {
        await session.close();
      }
    },
    () => target,
  );
}
