/**
 * What the host reads at the end of a bridged call: the upstream's own result (a declined question's note added as
 * one more text block), a "pending" hand-off, or a tool error whose text says what happened and why. Also the open
 * questions of a task as `task_status` and `task_result` show them, so a host without elicitation can answer them
 * with `task_answer`.
 *
 * Spec: https://modelcontextprotocol.io/specification/2025-06-18/server/tools (`isError`, `structuredContent`),
 * https://github.com/modelcontextprotocol/ext-tasks (`input_required`, `inputRequests`).
 *
 * @module
 */
import { CallToolResultSchema, ContentBlockSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, InputRequests, TaskHandle } from 'mcp-tasks-client';
import { printableTexts } from './host-names.js';
import { hostLine, hostQuoted, hostText, questionOf, type ToolOutcome } from 'mcp-tasks-client/tool-runtime';

/** The name of the bridge's own tool that answers a task's open question (before `--prefix`). */
export const TASK_ANSWER_TOOL = 'task_answer';

/** The JSON Schema of `task_answer`'s arguments. */
export const TASK_ANSWER_SCHEMA = {
  type: 'object',
  properties: {
    taskId: { type: 'string', description: 'The taskId from a pending result.' },
    key: { type: 'string', description: 'The question key shown by task_status or task_result.' },
    action: {
      type: 'string',
      enum: ['accept', 'decline', 'cancel'],
      description: 'accept (with content), decline or cancel.',
    },
    content: {
      type: 'object',
      description: "The answer's fields, matching the question's requestedSchema (with accept).",
    },
  },
  required: ['taskId', 'key', 'action'],
  additionalProperties: false,
} as const;

/**
 * One question a task is waiting on, as the host's model reads it: the `key` exactly (the answer must carry it), the
 * message and the form's texts escaped.
 */
export interface OpenQuestion {
  key: string;
  method: string;
  message: string;
  /** Form mode: the fields to fill. */
  requestedSchema?: unknown;
  /** URL mode: the page to open. */
  url?: string;
}

/** The questions `handle` asks and nobody answered yet (none unless its status is `input_required`). */
export function openQuestions(handle: TaskHandle<unknown>): OpenQuestion[] {
  if (handle.status !== 'input_required') return [];
  const requests = ((handle.task as { inputRequests?: InputRequests }).inputRequests ?? {}) as InputRequests;
  const open: OpenQuestion[] = [];
  for (const [key, request] of Object.entries(requests)) {
    if (handle.answeredKeys.has(key)) continue;
    const params = (request.params ?? {}) as { requestedSchema?: unknown; url?: unknown };
    const question: OpenQuestion = {
      key,
      method: hostLine(request.method),
      message: hostText(questionOf(request)),
    };
    if (params.requestedSchema !== undefined)
      question.requestedSchema = printableTexts(params.requestedSchema);
    if (typeof params.url === 'string') question.url = hostLine(params.url);
    open.push(question);
  }
  return open;
}

/** Adds a task's open questions to a `task_status` / `task_result` answer: a sentence and `openQuestions`. */
export function withQuestions(
  result: CallToolResult,
  taskId: string,
  questions: OpenQuestion[],
  answerTool: string,
): CallToolResult {
  if (questions.length === 0) return result;
  const lines = questions.map(
    (q) =>
      `The task asks (key ${hostQuoted(q.key)}): ${hostQuoted(q.message)}${q.url ? ` (open ${hostQuoted(q.url)})` : ''}. Ask the user, then call ${answerTool} with {"taskId": ${hostQuoted(taskId)}, "key": ${hostQuoted(q.key)}, "action": "accept", "content": {…}} (or "decline").`,
  );
  const structured = { ...(result.structuredContent ?? {}), openQuestions: questions };
  return {
    ...result,
    content: [...(result.content ?? []), { type: 'text', text: lines.join('\n') }],
    structuredContent: structured,
  };
}

/**
 * The host's `CallToolResult` for an outcome. The upstream's own result (and its own `isError` result) is passed as it
 * came; what the bridge and the library's adapters write around it (a note, a pending hand-off, a failure's text)
 * carries upstream strings (a `statusMessage`, an error message, a task id) as escaped single lines. A pending
 * hand-off of a tool that declares an `outputSchema` is marked `isError` (hosts check `structuredContent` against
 * that schema on every other result, and the pending object is not the tool's output).
 */
export function hostResult(outcome: ToolOutcome, hasOutputSchema: boolean, taskId?: string): CallToolResult {
  return readableByHost(shapeResult(outcome, hasOutputSchema), taskId);
}

/**
 * `result` as the host's SDK accepts it. The host checks every `tools/call` result against the `CallToolResult`
 * schema and reports a failure as an error about ITS request (-32602 "Invalid tools/call result"), losing the parts
 * that were fine. So each content part the schema rejects (an image whose `data` is not base64…) is replaced by a
 * text part saying what it was and why it was dropped, and a result still not valid after that (its
 * `structuredContent` is not an object…) becomes a tool error naming the upstream task and the reason.
 *
 * Schema: https://modelcontextprotocol.io/specification/2025-06-18/schema#calltoolresult
 */
export function readableByHost(result: CallToolResult, taskId?: string): CallToolResult {
  if (CallToolResultSchema.safeParse(result).success) return result;
  const content = Array.isArray(result.content)
    ? result.content.map((part) => {
        const parsed = ContentBlockSchema.safeParse(part);
        if (parsed.success) return part;
        const type = (part as { type?: unknown } | null)?.type;
        return {
          type: 'text' as const,
          text: `[a ${typeof type === 'string' ? hostLine(type) : 'malformed'} content part of the upstream's result was dropped here: ${issueText(parsed.error.issues)}]`,
        };
      })
    : [];
  const repaired = { ...result, content };
  const checked = CallToolResultSchema.safeParse(repaired);
  if (checked.success) return repaired;
  const task = taskId !== undefined ? `task ${hostLine(taskId)}` : 'the upstream call';
  return {
    content: [
      ...content,
      {
        type: 'text',
        text: `The upstream server reported ${task} done, but its result is not a valid tool result (${issueText(checked.error.issues)}); the parts above are what could be kept.`,
      },
    ],
    isError: true,
    structuredContent: { code: 'INVALID_RESULT', ...(taskId !== undefined ? { taskId } : {}) },
  };
}

/** Schema issues in one line: `at "content.0.data": Invalid base64`. */
function issueText(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 3)
    .map(
      (i) =>
        `${i.path.length > 0 ? `at "${hostLine(i.path.map(String).join('.'))}": ` : ''}${hostLine(i.message)}`,
    )
    .join('; ');
}

function shapeResult(outcome: ToolOutcome, hasOutputSchema: boolean): CallToolResult {
  if (outcome.kind === 'ok') {
    if (outcome.note === undefined) return outcome.result;
    return {
      ...outcome.result,
      content: [...(outcome.result.content ?? []), { type: 'text', text: hostText(outcome.note) }],
    };
  }
  if (outcome.kind === 'pending') {
    const pending = outcome.pending;
    // The taskId stays exact (task_result needs it); the texts around it are the upstream's words, escaped.
    const structured: Record<string, unknown> = {
      ...pending,
      toolName: hostLine(pending.toolName),
      message: hostText(pending.message),
    };
    if (pending.statusMessage !== undefined) structured.statusMessage = hostLine(pending.statusMessage);
    const result: CallToolResult = {
      content: [{ type: 'text', text: structured.message as string }],
      structuredContent: structured,
    };
    if (hasOutputSchema) result.isError = true;
    return result;
  }
  const { error } = outcome;
  // The upstream's own tool error is passed as it came; the bridge's texts end the other failures.
  if (error.code === 'TOOL_ERROR' && error.result) {
    const own = error.result;
    const extra = error.message.startsWith(firstText(own)) ? error.message.slice(firstText(own).length) : '';
    return extra.trim() === ''
      ? own
      : { ...own, content: [...(own.content ?? []), { type: 'text', text: hostText(extra.trim()) }] };
  }
  // The adapters' sentence quotes the upstream (an error message, a statusMessage, a task id): one escaped line.
  const result: CallToolResult = {
    content: [{ type: 'text', text: hostLine(error.message) }],
    isError: true,
  };
  if (error.taskId !== undefined) result.structuredContent = { code: error.code, taskId: error.taskId };
  else result.structuredContent = { code: error.code };
  return result;
}

function firstText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((b): b is { type: 'text'; text: string } => (b as { type?: unknown }).type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/**
 * The host's `CallToolResult` for `task_status` and `task_cancel`: the runtime's sentence and status object, which
 * quote the upstream's `statusMessage` and task id, with those texts escaped (the `taskId` field stays exact).
 */
export function composedResult(outcome: ToolOutcome): CallToolResult {
  if (outcome.kind !== 'ok') return hostResult(outcome, false);
  const { result } = outcome;
  // The runtime's sentences are single lines: a line break in them is the upstream's.
  const content = (result.content ?? []).map((block) => {
    const text = (block as { text?: unknown }).text;
    return block.type === 'text' && typeof text === 'string' ? { ...block, text: hostLine(text) } : block;
  });
  const shown: CallToolResult = { ...result, content };
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const copy: Record<string, unknown> = { ...structured };
    for (const key of ['statusMessage', 'toolName', 'status'] as const)
      if (typeof copy[key] === 'string') copy[key] = hostLine(copy[key] as string);
    shown.structuredContent = copy;
  }
  return readableByHost(shown);
}
