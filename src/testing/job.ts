/**
 * The job runtime of the reference server: a tool, resource or prompt handler runs as a `Job` inside a `JobRun`,
 * which holds its live status (`working` / `input_required` / terminal), its outstanding input requests, its outcome,
 * and the means to stop it. The core races a run against the inline budget and turns it into a task if needed.
 *
 * @module
 */
import type {
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
  JsonRpcErrorObject,
  TaskStatus,
} from '../protocol/index.js';
import { ErrorCode, setOwn, TASKS_EXTENSION_ID } from '../protocol/index.js';
import { isTerminalStatus, TaskStatusSchema } from '../protocol/index.js';

/**
 * Whether a task may move from `from` to `to`. `working` and `input_required` alternate freely and may end in any
 * terminal status; `completed`, `failed` and `cancelled` never change again. Staying in the same status is allowed
 * (e.g. a new `statusMessage`).
 */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  if (isTerminalStatus(from)) return false;
  return TaskStatusSchema.options.includes(to);
}
/** A JSON-RPC error raised by a job; it becomes an error response inline, or the `error` of a `failed` task. */
export class JobError extends Error {
  override readonly name = 'JobError';
  constructor(
    /** JSON-RPC error code, e.g. -32602, -32603, -32021. */
    readonly code: number,
    message: string,
    /** Optional `error.data`. */
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The wire error object `{code, message, data?}`. */
  toJsonRpc(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Progress of an inline call, sent as `notifications/progress` when the request had a `progressToken`. */
export interface JobProgress {
  progress: number;
  total?: number;
}

/** What a job sees. Times given to `sleep` are scaled by the server's `timeScale`. */
export interface JobContext {
  /** The request's `arguments` (tools, prompts) or `{uri}` (resources); never null. */
  readonly args: Record<string, unknown>;
  /** `_meta["io.modelcontextprotocol/clientCapabilities"]` of the request. */
  readonly clientCapabilities: Record<string, unknown>;
  /** The request's whole `params._meta` as received (e.g. the W3C `traceparent` a traced client sends). */
  readonly meta: Record<string, unknown>;
  /** MRTR retry: the `inputResponses` of this round, `undefined` on the first round. */
  readonly inputResponses: InputResponses | undefined;
  /** MRTR retry: the verified state this job put in its last `inputRequired` result, `undefined` if none. */
  readonly requestState: unknown;
  /** Aborted when the task is cancelled or expires, or the inline request is abandoned. */
  readonly signal: AbortSignal;
  /** Sets `statusMessage`; inline with a `progressToken`, also sends `notifications/progress`. */
  report(statusMessage: string, progress?: JobProgress): void;
  /**
   * Asks the client for input as a task (`status:"input_required"`, keys must be unique for the run) and resolves
   * with the answers once every key of this call is answered through `tasks/update`.
   *
   * @throws {@link JobError} -32021 when the client did not declare the tasks extension (no way to ask);
   *   -32603 when an answer does not arrive within `inputTimeoutMs`.
   */
  input(requests: InputRequests): Promise<InputResponses>;
  /** Waits `ms × timeScale` milliseconds; rejects with `signal.reason` when aborted. */
  sleep(ms: number): Promise<void>;
  /** Builds an MRTR `input_required` result carrying `state` as a signed, opaque `requestState`. */
  inputRequired(inputRequests: InputRequests, state?: unknown): Record<string, unknown>;
}

/** A handler: resolves with the method's result (without `resultType`) or an MRTR result; throws {@link JobError}. */
export type Job = (ctx: JobContext) => Promise<Record<string, unknown>>;

/** Settings of one run. */
export interface JobRunOptions {
  /** Whether `input()` may park the job as a task (the client declared the tasks extension). */
  canSuspend: boolean;
  /** ms an input request may stay unanswered before the job fails. */
  inputTimeoutMs: number;
  /** Multiplier for `sleep`. */
  timeScale: number;
  /** Called on `report()` while the run is inline. */
  onProgress?: (message: string, progress?: JobProgress) => void;
  /** Completes a successful result before it is stored (e.g. adds `cacheScope`); identity by default. */
  finalizeResult?: (result: Record<string, unknown>) => Record<string, unknown>;
}

interface Waiter {
  keys: Set<string>;
  answers: InputResponses;
  resolve: (answers: InputResponses) => void;
}

/**
 * One execution of a job. `done` resolves (never rejects) when the run is terminal; `suspended` resolves the first
 * time the job asks for input. Status changes call `onChange` (the registry's `lastUpdatedAt` hook).
 */
export class JobRun {
  status: TaskStatus = 'working';
  statusMessage: string | undefined;
  /** Outstanding input requests by key (answered keys are removed). */
  readonly pending = new Map<string, InputRequest>();
  result: Record<string, unknown> | undefined;
  error: JsonRpcErrorObject | undefined;
  /** True once a task was created for this run (no more progress notifications). */
  bound = false;
  onChange: (() => void) | undefined;
  readonly done: Promise<void>;
  readonly suspended: Promise<void>;
  readonly #controller = new AbortController();
  readonly #options: JobRunOptions;
  readonly #usedKeys = new Set<string>();
  readonly #waiters = new Set<Waiter>();
  #finish!: () => void;
  #suspend!: () => void;

  constructor(options: JobRunOptions) {
    this.#options = options;
    this.done = new Promise((resolve) => (this.#finish = resolve));
    this.suspended = new Promise((resolve) => (this.#suspend = resolve));
  }

  /** The run's abort signal. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when `completed`, `failed` or `cancelled`. */
  get terminal(): boolean {
    return !canTransition(this.status, 'working');
  }

  /** Starts `job` with the request-specific parts of its context. */
  start(
    job: Job,
    ctx: Pick<
      JobContext,
      'args' | 'clientCapabilities' | 'meta' | 'inputResponses' | 'requestState' | 'inputRequired'
    >,
  ): this {
    const context: JobContext = {
      ...ctx,
      signal: this.signal,
      report: (message, progress) => this.#report(message, progress),
      input: (requests) => this.#input(requests),
      sleep: (ms) => sleep(ms * this.#options.timeScale, this.signal),
    };
    Promise.resolve()
      .then(() => job(context))
      .then(
        (result) => this.#settle('completed', result, undefined),
        (error: unknown) => this.#settle('failed', undefined, toErrorObject(error)),
      );
    return this;
  }

  /** Delivers answers; keys that are not outstanding are ignored. Returns the keys accepted. */
  deliver(responses: InputResponses): string[] {
    if (this.terminal) return [];
    const accepted: string[] = [];
    for (const [key, answer] of Object.entries(responses)) {
      if (!this.pending.has(key)) continue;
      this.pending.delete(key);
      accepted.push(key);
      this.#answer(key, answer);
    }
    if (accepted.length > 0 && this.pending.size === 0) this.#setStatus('working');
    return accepted;
  }

  /** Tells the job to stop; a non-terminal run ends `cancelled` at once, a terminal one is left as it is. */
  cancel(reason = 'cancelled'): void {
    if (this.terminal) return;
    this.pending.clear();
    this.#setStatus('cancelled');
    this.statusMessage = reason === 'cancelled' ? 'Cancelled by the client' : reason;
    this.#controller.abort(new JobError(ErrorCode.InternalError, reason));
    this.#finish();
  }

  #report(message: string, progress?: JobProgress): void {
    if (this.terminal) return;
    this.statusMessage = message;
    this.onChange?.();
    if (!this.bound) this.#options.onProgress?.(message, progress);
  }

  #input(requests: InputRequests): Promise<InputResponses> {
    if (!this.#options.canSuspend) {
      return Promise.reject(
        new JobError(
          ErrorCode.MissingRequiredClientCapability,
          `This request needs input, which requires the ${TASKS_EXTENSION_ID} extension`,
          {
            requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
          },
        ),
      );
    }
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    const keys = Object.keys(requests);
    for (const key of keys) {
      if (this.#usedKeys.has(key))
        return Promise.reject(new JobError(ErrorCode.InternalError, `input key "${key}" reused`));
    }
    return new Promise<InputResponses>((resolve, reject) => {
      const waiter: Waiter = { keys: new Set(keys), answers: {}, resolve };
      const cleanup = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
        this.#waiters.delete(waiter);
      };
      const onAbort = () => {
        cleanup();
        reject(this.signal.reason);
      };
      const timer = setTimeout(() => {
        cleanup();
        for (const key of waiter.keys) this.pending.delete(key);
        reject(
          new JobError(
            ErrorCode.InternalError,
            `Input request "${[...waiter.keys].join('", "')}" was not answered within ${this.#options.inputTimeoutMs} ms`,
          ),
        );
      }, this.#options.inputTimeoutMs);
      waiter.resolve = (answers) => {
        cleanup();
        resolve(answers);
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
      for (const key of keys) {
        this.#usedKeys.add(key);
        this.pending.set(key, requests[key] as InputRequest);
      }
      this.#setStatus('input_required');
      this.#suspend();
    });
  }

  #answer(key: string, answer: InputResponse): void {
    for (const waiter of this.#waiters) {
      if (!waiter.keys.has(key)) continue;
      setOwn(waiter.answers, key, answer); // a key "__proto__" stays a key, never the prototype
      if (Object.keys(waiter.answers).length === waiter.keys.size) waiter.resolve(waiter.answers);
    }
  }

  #settle(
    status: 'completed' | 'failed',
    result: Record<string, unknown> | undefined,
    error: JsonRpcErrorObject | undefined,
  ): void {
    if (this.terminal) return;
    if (result !== undefined && result.resultType === 'input_required' && this.bound) {
      // An MRTR round only makes sense before a task exists (ext-tasks § Task Creation); inside a task it is a bug.
      return this.#settle('failed', undefined, {
        code: ErrorCode.InternalError,
        message: 'Job asked for an MRTR round after its task was created',
      });
    }
    if (result !== undefined && result.resultType === undefined) {
      result = { resultType: 'complete', ...(this.#options.finalizeResult?.(result) ?? result) };
    }
    this.pending.clear();
    this.result = result;
    this.error = error;
    if (error !== undefined) this.statusMessage = error.message;
    this.#setStatus(status);
    this.#finish();
  }

  #setStatus(status: TaskStatus): void {
    if (!canTransition(this.status, status)) return;
    this.status = status;
    this.onChange?.();
  }
}

function toErrorObject(error: unknown): JsonRpcErrorObject {
  if (error instanceof JobError) return error.toJsonRpc();
  const message = error instanceof Error ? error.message : String(error);
  return { code: ErrorCode.InternalError, message: `Internal error: ${message}` };
}

/** Waits `ms` milliseconds; rejects with `signal.reason` on abort and removes its listener either way. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
