/**
 * Faults in the Tasks extension's shapes and life cycle: bad `pollIntervalMs` and `ttlMs`, tasks that vanish or are
 * not yet visible, a status that leaves a terminal state, re-issued or empty `inputRequests`, terminal states without
 * their payload, unknown fields, and the seed's nested `task` wrapper. Each rewrites the reference server's honest
 * replies (https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md).
 *
 * @module
 */
import { ErrorCode } from '../../../src/protocol/index.js';
import { isTaskResult, resultOf, rewriteResult, rewriteTask, rpcErrorReply, type Fault } from './fault.js';
import { jsonReply } from './wire-reply.js';

/** Tasks without `pollIntervalMs` (the client falls back to its default). */
export function omitPollInterval(): Fault {
  return rewriteTask('pollIntervalMs missing', (task) => {
    delete task.pollIntervalMs;
    return task;
  });
}

/** Tasks with a fixed `pollIntervalMs` (e.g. `0`, or `1e12`). */
export function pollIntervalOf(value: number): Fault {
  return rewriteTask(`pollIntervalMs ${value}`, (task) => ({ ...task, pollIntervalMs: value }));
}

/** Tasks whose `ttlMs` is `values[n]` on the n-th reply for that task (the last value repeats): null, tiny, changing. */
export function ttlOf(...values: Array<number | null>): Fault {
  const perTask = new Map<string, number>();
  return rewriteTask(`ttlMs ${values.map(String).join('→')}`, (task) => {
    const id = String(task.taskId);
    const i = perTask.get(id) ?? 0;
    perTask.set(id, i + 1);
    return { ...task, ttlMs: values[Math.min(i, values.length - 1)] };
  });
}

/** The server forgets the task: `tasks/get` answers -32602 from the `afterPolls`-th poll on (0 = the first). */
export function forgetTask(afterPolls = 1): Fault {
  return {
    name: `task forgotten after ${afterPolls} polls`,
    reply: (request, next) =>
      request.method === 'tasks/get' && request.countForTarget >= afterPolls
        ? rpcErrorReply(request, ErrorCode.InvalidParams, `Task not found: ${String(request.taskId)}`)
        : next(),
  };
}

/** The task is not yet visible to `tasks/get` for its first `polls` polls (-32602), then is (eventual consistency). */
export function notYetVisible(polls: number): Fault {
  return {
    name: `-32602 for the first ${polls} polls`,
    reply: (request, next) =>
      request.method === 'tasks/get' && request.countForTarget < polls
        ? rpcErrorReply(request, ErrorCode.InvalidParams, `Task not found: ${String(request.taskId)}`)
        : next(),
  };
}

/** After a task was reported terminal once, later `tasks/get` replies say `working` again (without result or error). */
export function statusBackwards(): Fault {
  const terminal = new Set<string>();
  return rewriteTask('status backwards from terminal', (task) => {
    const id = String(task.taskId);
    if (terminal.has(id)) {
      const { result: _r, error: _e, ...rest } = task;
      return { ...rest, status: 'working', statusMessage: 'working again' };
    }
    if (task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled')
      terminal.add(id);
    return undefined;
  });
}

/**
 * After the client answered an input request (`tasks/update`), the next `polls` replies re-issue the same key as
 * if it were still open (the last `input_required` state, repeated), then the honest replies resume.
 */
export function reissueAnsweredKey(polls = 2): Fault {
  const lastAsk = new Map<string, Record<string, unknown>>();
  const left = new Map<string, number>();
  return {
    name: 'answered input key re-issued',
    async reply(request, next) {
      const honest = await next();
      const id = request.taskId;
      if (id === undefined) return honest;
      if (request.method === 'tasks/update') {
        left.set(id, polls);
        return honest;
      }
      const result = resultOf(honest);
      if (request.method !== 'tasks/get' || !isTaskResult(result) || honest.kind !== 'json') return honest;
      if (result.status === 'input_required') lastAsk.set(id, result);
      const remaining = left.get(id) ?? 0;
      const ask = lastAsk.get(id);
      if (remaining <= 0 || ask === undefined || result.status === 'input_required') return honest;
      left.set(id, remaining - 1);
      return jsonReply({ ...(honest.body as object), result: ask }, honest.status);
    },
  };
}

/** `input_required` with an empty `inputRequests` for the first `times` such replies of each task (then honest). */
export function emptyInputRequests(times = Infinity): Fault {
  const seen = new Map<string, number>();
  return rewriteTask('inputRequests empty while input_required', (task) => {
    if (task.status !== 'input_required') return undefined;
    const id = String(task.taskId);
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    return n < times ? { ...task, inputRequests: {} } : undefined;
  });
}

/** `completed` without `result`. */
export function completedWithoutResult(): Fault {
  return rewriteTask('completed without result', (task) => {
    if (task.status !== 'completed') return undefined;
    delete task.result;
    return task;
  });
}

/** `failed` without `error` (a `statusMessage` is kept when there is one). */
export function failedWithoutError(): Fault {
  return rewriteTask('failed without error', (task) => {
    if (task.status !== 'failed') return undefined;
    delete task.error;
    return task;
  });
}

/** Unknown fields on every result, on tasks, and inside a completed task's result. */
export function extraUnknownFields(): Fault {
  return rewriteResult('extra unknown fields', (result) => {
    const extra = { 'x-vendor': { trace: 'abc' }, futureField: [1, 2, 3] };
    const out: Record<string, unknown> = { ...result, ...extra };
    if (isTaskResult(result)) out.lastUpdatedBy = 'replica-7';
    if (out.result !== null && typeof out.result === 'object')
      out.result = { ...(out.result as object), ...extra };
    return out;
  });
}

/** The seed's nested creation result: `{ resultType: 'task', task: { taskId, … } }` instead of the flat shape. */
export function nestedTaskWrapper(): Fault {
  return rewriteResult('nested task wrapper', (result) => {
    if (result.resultType !== 'task' || !isTaskResult(result)) return undefined;
    const { resultType, ...task } = result;
    return { resultType, task };
  });
}

/**
 * A server that keeps asking: every non-terminal task reply (creation and `tasks/get`) is `input_required` with
 * `perReply` keys never asked before (`q<reply>-<n>`), for ever (even once the work is done); only `cancelled` passes.
 */
export function inventInputKeys(perReply: number): Fault {
  const replies = new Map<string, number>();
  return rewriteTask(`${perReply} new input keys per reply`, (task) => {
    if (task.status === 'cancelled') return undefined;
    const id = String(task.taskId);
    const n = replies.get(id) ?? 0;
    replies.set(id, n + 1);
    const inputRequests: Record<string, unknown> = {};
    for (let i = 0; i < perReply; i++)
      inputRequests[`q${n}-${i}`] = {
        method: 'elicitation/create',
        params: { message: 'Again?', requestedSchema: { type: 'object', properties: {} } },
      };
    const { result: _r, error: _e, ...rest } = task;
    return { ...rest, status: 'input_required', inputRequests };
  });
}
