/**
 * Options shared by the framework adapters (`mcp-tasks-client/ai-sdk`, `/langchain`, `/openai-agents`), their
 * defaults, and their validation at the boundary.
 *
 * @module
 */
import { z } from 'zod';
import { durationSchema } from '../../internal/duration.js';
import type { InputResponse } from '../../protocol/input.js';
import type { Progress } from '../../protocol/results.js';
import type { TaskStatus } from '../../protocol/tasks.js';
import type { InputRequiredEvent } from '../../tasks/input-broker.js';

/** Names of the three task tools (before `prefix`): `tasks/get` and `tasks/cancel` for the model. Spec: https://github.com/modelcontextprotocol/ext-tasks */
export const TASK_TOOL_NAMES = {
  status: 'task_status',
  result: 'task_result',
  cancel: 'task_cancel',
} as const;

/** What the adapter knows about the call a question belongs to. Spec: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation */
export interface TaskToolInputContext {
  /** The MCP tool's name on the server (without `prefix`), when known. */
  toolName: string | undefined;
  /** The framework's id of the tool call, when it gave one. */
  toolCallId: string | undefined;
}

/**
 * Answers a question the server asked during a tool call (elicitation, sampling, roots), typically by asking a
 * person in the host's UI. Resolve with the answer, or with `undefined` to decline.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation, https://github.com/modelcontextprotocol/ext-tasks (`input_required`).
 */
export type TaskToolInputCallback = (
  event: InputRequiredEvent,
  context: TaskToolInputContext,
) => Promise<InputResponse | undefined> | InputResponse | undefined;

/** A status or progress update of one tool call, for the host's UI. Spec: https://github.com/modelcontextprotocol/ext-tasks (`status`, `statusMessage`) */
export interface TaskToolUpdate {
  /** The MCP tool's name on the server (without `prefix`). */
  toolName: string;
  /** The framework's id of the tool call, when it gave one. */
  toolCallId: string | undefined;
  /** The task, once the call became one. */
  taskId?: string;
  /** The task's status as the server last reported it. */
  status?: TaskStatus;
  /**
   * The server's `statusMessage`, exactly as it came (it may hold control or invisible characters: escape it with
   * `hostLine` from `mcp-tasks-client/tool-runtime`, or `safeLine`, before showing it).
   */
  statusMessage?: string;
  /** A `notifications/progress` of the creating request. */
  progress?: Progress;
}

/**
 * Options of every adapter's `createTaskTools` (and of `TaskMcpServer`).
 *
 * Spec: https://github.com/modelcontextprotocol/ext-tasks (tasks), and
 * https://modelcontextprotocol.io/specification/2026-07-28/server/tools (tools).
 */
export interface TaskToolsOptions {
  /** Only these server tools (names as the server lists them). @default every tool */
  include?: readonly string[];
  /** Never these server tools (names as the server lists them). */
  exclude?: readonly string[];
  /** Prepended to every tool name the framework sees (server tools and task tools), e.g. `"deploy__"`. @default '' */
  prefix?: string;
  /**
   * Longest time, in ms, one tool call waits for a task before it returns a structured "pending" result (with the
   * `taskId`) so the agent's turn can go on; the task keeps running and `task_result` fetches its outcome later.
   * Without it, a call waits for the outcome. Must be a non-negative integer.
   */
  maxWaitMs?: number;
  /**
   * Whether to add the `task_status`, `task_result` and `task_cancel` tools. @default true when `maxWaitMs` is set
   */
  taskTools?: boolean;
  /**
   * Answers the server's questions (its UI). Without it every question is declined at once (an elicitation gets
   * `{action: "decline"}`; any other request stops the call) and the tool's result tells the model that a person's
   * input was needed. A callback that throws or resolves `undefined` declines too.
   */
  onInput?: TaskToolInputCallback;
  /**
   * What the framework's abort signal does to a task the call created: `'cancel'` sends `tasks/cancel`; `'detach'`
   * leaves it running (its id stays known to the task tools and to the client's store). @default 'cancel'
   */
  onAbort?: 'cancel' | 'detach';
  /** Status and progress of every call, for the host's UI (in addition to the framework's own streaming hook). */
  onStatus?: (update: TaskToolUpdate) => void;
}

/** {@link TaskToolsOptions} with defaults applied. */
export interface ResolvedTaskToolsOptions {
  include: ReadonlySet<string> | undefined;
  exclude: ReadonlySet<string>;
  prefix: string;
  maxWaitMs: number | undefined;
  taskTools: boolean;
  onInput: TaskToolInputCallback | undefined;
  onAbort: 'cancel' | 'detach';
  onStatus: ((update: TaskToolUpdate) => void) | undefined;
}

const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
  message: 'expected a function',
});
const OptionsSchema = z.strictObject({
  include: z.array(z.string()).optional(),
  exclude: z.array(z.string()).optional(),
  prefix: z.string().optional(),
  maxWaitMs: durationSchema({ min: 'zero' }).optional(),
  taskTools: z.boolean().optional(),
  onInput: fn.optional(),
  onAbort: z.enum(['cancel', 'detach']).optional(),
  onStatus: fn.optional(),
});

/**
 * Validates and resolves adapter options.
 *
 * @throws TypeError naming the option and the value received.
 */
export function resolveTaskToolsOptions(options: TaskToolsOptions = {}): ResolvedTaskToolsOptions {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path =
      issue?.path.join('.') ||
      (issue && 'keys' in issue ? String((issue as { keys: string[] }).keys.join(', ')) : '');
    const value = issue?.path.length
      ? (options as Record<string, unknown>)[String(issue.path[0])]
      : undefined;
    throw new TypeError(
      `createTaskTools: invalid option "${path}": ${issue?.message ?? 'invalid'} (got ${describe(value)})`,
    );
  }
  const o = options;
  return {
    include: o.include ? new Set(o.include) : undefined,
    exclude: new Set(o.exclude ?? []),
    prefix: o.prefix ?? '',
    maxWaitMs: o.maxWaitMs,
    taskTools: o.taskTools ?? o.maxWaitMs !== undefined,
    onInput: o.onInput,
    onAbort: o.onAbort ?? 'cancel',
    onStatus: o.onStatus,
  };
}

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
