/**
 * Running one `tools/call`, `resources/read` or `prompts/get`: capability checks, MRTR `requestState`, then the
 * deadline rule. The job starts at once; if it ends within `inlineBudgetMs` the result is inline
 * (`resultType:"complete"`, or an MRTR `input_required`). If it is still running (or asks for input first) and the
 * request declared the tasks extension, a task is stored and a flat `CreateTaskResult` returned; without the
 * extension the server waits for the job inline. (ext-tasks § Task Creation)
 *
 * @module
 */
import {
  ErrorCode,
  TASKS_EXTENSION_ID,
  type InputRequests,
  type InputResponses,
  type JsonRpcNotification,
} from '../protocol/index.js';
import type { TaskSupport } from './catalog.js';
import { JobError, JobRun, type Job, type JobProgress } from './job.js';
import type { RequestStateCodec } from './request-state.js';
import type { TaskRegistry } from './task-registry.js';

/** What the invoker needs to know about a handler. */
export interface Invocable {
  /** `"tools/call:echo"`-style scope that binds `requestState` to this handler. */
  scope: string;
  run: Job;
  taskSupport?: TaskSupport;
  requiredCapabilities?: readonly string[];
  finalizeResult?: (result: Record<string, unknown>) => Record<string, unknown>;
}

/** Per-request facts taken from `params` and `_meta`. */
export interface InvokeRequest {
  method: string;
  /** Who the request's authorization stands for; a task created here is bound to it. */
  principal?: string;
  args: Record<string, unknown>;
  params: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
  /** Whether `clientCapabilities.extensions` declares the tasks extension. */
  tasksDeclared: boolean;
  progressToken: string | number | undefined;
  emit: (notification: JsonRpcNotification) => void;
  /** Aborted when the caller gives up on the inline answer (closed HTTP request, `notifications/cancelled`). */
  signal?: AbortSignal;
}

/** Settings shared by every invocation of one server. */
export interface InvokerSettings {
  registry: TaskRegistry;
  codec: RequestStateCodec;
  inlineBudgetMs: number;
  inputTimeoutMs: number;
  timeScale: number;
  pollIntervalMs: number;
  ttlMs: number | null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Invokes `target` for `request`.
 *
 * @returns the JSON-RPC result: inline (`complete` / `input_required`) or a `CreateTaskResult`.
 * @throws {@link JobError} -32021 (missing capability), -32602 (bad `requestState`/arguments), or the job's error
 *   when it failed inline.
 */
export async function invoke(
  target: Invocable,
  request: InvokeRequest,
  settings: InvokerSettings,
): Promise<Record<string, unknown>> {
  const missing: Record<string, unknown> = {};
  for (const capability of target.requiredCapabilities ?? []) {
    if (!isObject(request.clientCapabilities[capability])) missing[capability] = {};
  }
  if (target.taskSupport === 'required' && !request.tasksDeclared)
    missing.extensions = { [TASKS_EXTENSION_ID]: {} };
  if (Object.keys(missing).length > 0) {
    throw new JobError(
      ErrorCode.MissingRequiredClientCapability,
      `${target.scope} requires client capabilities the request did not declare: ${describe(missing)}`,
      { requiredCapabilities: missing },
    );
  }

  let requestState: unknown;
  if (request.params.requestState !== undefined) {
    const token = request.params.requestState;
    const decoded =
      typeof token === 'string' ? settings.codec.decode(target.scope, token) : { ok: false as const };
    if (!decoded.ok)
      throw new JobError(
        ErrorCode.InvalidParams,
        'Invalid requestState: not issued by this server for this request',
      );
    requestState = decoded.state;
  }
  const inputResponses = isObject(request.params.inputResponses)
    ? (request.params.inputResponses as InputResponses)
    : undefined;

  const run = new JobRun({
    canSuspend: request.tasksDeclared,
    inputTimeoutMs: settings.inputTimeoutMs,
    timeScale: settings.timeScale,
    onProgress:
      request.progressToken === undefined ? undefined : progressEmitter(request.progressToken, request.emit),
    finalizeResult: target.finalizeResult,
  });
  run.start(target.run, {
    args: request.args,
    clientCapabilities: request.clientCapabilities,
    meta: isMeta(request.params._meta) ? request.params._meta : {},
    inputResponses,
    requestState,
    inputRequired: (inputRequests: InputRequests, state?: unknown) => ({
      resultType: 'input_required',
      inputRequests,
      ...(state === undefined ? {} : { requestState: settings.codec.encode(target.scope, state) }),
    }),
  });

  const outcome = await raceBudget(run, settings.inlineBudgetMs);
  if (request.signal?.aborted) {
    // The caller left during the budget: make no task nobody will poll.
    run.cancel('request abandoned by the client');
    throw new JobError(ErrorCode.InternalError, `${target.scope}: request abandoned before it finished`);
  }
  if (outcome !== 'done' && request.tasksDeclared && !run.terminal) {
    const record = settings.registry.create(run, {
      method: request.method,
      owner: request.principal,
      ttlMs: settings.ttlMs,
      pollIntervalMs: settings.pollIntervalMs,
    });
    run.bound = true;
    return settings.registry.createTaskResult(record);
  }

  const onAbort = () => run.cancel('request abandoned by the client');
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  try {
    await run.done;
  } finally {
    request.signal?.removeEventListener('abort', onAbort);
  }
  if (run.status === 'completed' && run.result !== undefined) return run.result;
  if (run.status === 'failed' && run.error !== undefined)
    throw new JobError(run.error.code, run.error.message, run.error.data);
  throw new JobError(ErrorCode.InternalError, `${target.scope}: request cancelled before it finished`);
}

/** Resolves `"done"` when the run ends, `"suspended"` when it asks for input, `"budget"` after `ms`. */
async function raceBudget(run: JobRun, ms: number): Promise<'done' | 'suspended' | 'budget'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const budget = new Promise<'budget'>((resolve) => {
    timer = setTimeout(() => resolve('budget'), ms);
  });
  try {
    return await Promise.race([
      run.done.then(() => 'done' as const),
      run.suspended.then(() => 'suspended' as const),
      budget,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function progressEmitter(token: string | number, emit: (n: JsonRpcNotification) => void) {
  let last = 0;
  return (message: string, progress?: JobProgress) => {
    last = Math.max(last, progress?.progress ?? last + 1);
    const params: Record<string, unknown> = { progressToken: token, progress: last, message };
    if (progress?.total !== undefined) params.total = progress.total;
    emit({ jsonrpc: '2.0', method: 'notifications/progress', params });
  };
}

function describe(missing: Record<string, unknown>): string {
  return Object.entries(missing)
    .map(([key, value]) =>
      key === 'extensions' && isObject(value)
        ? Object.keys(value)
            .map((id) => `extensions["${id}"]`)
            .join(', ')
        : key,
    )
    .join(', ');
}

function isMeta(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
