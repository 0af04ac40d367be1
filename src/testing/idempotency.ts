/**
 * Idempotent task creation in the reference server. A `tools/call` (or `resources/read`, `prompts/get`)
 * that carries an idempotency key, in `params._meta[IDEMPOTENCY_META_KEY]` or, when the server names one, in an
 * argument (`idempotencyArgument`), runs its job at most once per key and handler:
 *
 * - the first request with a key runs normally; if it becomes a task, the key is bound to that task;
 * - a later request with the same key and handler gets the SAME task back, as a flat `CreateTaskResult` with its
 *   current state, and starts no new work;
 * - a request that arrives while the first one is still deciding (inside the inline budget) waits for it and gets
 *   the same reply; if the first one failed, it runs afresh;
 * - a binding lives as long as its task: when the task expires (TTL from creation), the key is forgotten too;
 * - the same key with different arguments is a client bug and gets -32602 (as payment APIs do);
 * - a call answered inline (no task) binds nothing: there is no durable work to return.
 *
 * @module
 */
import { ErrorCode, IDEMPOTENCY_META_KEY } from '../protocol/index.js';
import { JobError } from './job.js';
import type { TaskRegistry } from './task-registry.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The idempotency key of a request: `params._meta[IDEMPOTENCY_META_KEY]` first, else `args[argumentName]` when the
 * server was configured with an argument name. Only non-empty strings count.
 */
export function idempotencyKeyOf(
  params: Record<string, unknown>,
  args: Record<string, unknown>,
  argumentName: string | undefined,
): string | undefined {
  const meta = params._meta;
  const fromMeta = isObject(meta) ? meta[IDEMPOTENCY_META_KEY] : undefined;
  if (typeof fromMeta === 'string' && fromMeta !== '') return fromMeta;
  if (argumentName === undefined) return undefined;
  const fromArgs = args[argumentName];
  return typeof fromArgs === 'string' && fromArgs !== '' ? fromArgs : undefined;
}

/** A canonical JSON text of `value` (object keys sorted), for comparing arguments. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

interface Binding {
  taskId: string;
  fingerprint: string;
}

interface InFlight {
  fingerprint: string;
  reply: Promise<Record<string, unknown>>;
}

/**
 * Keys seen by one server, bound to the tasks they created.
 *
 * @example
 * ```ts
 * const index = new IdempotencyIndex(registry);
 * const reply = await index.run('tools/call:deploy_release', key, args, () => invoke(target, request, settings));
 * ```
 */
export class IdempotencyIndex {
  readonly #registry: TaskRegistry;
  readonly #bound = new Map<string, Binding>();
  readonly #inflight = new Map<string, InFlight>();
  #replays = 0;
  /** Bound keys are swept when their number reaches this (doubling), so n keyed calls cost O(n) overall. */
  #sweepAtSize = 64;

  constructor(registry: TaskRegistry) {
    this.#registry = registry;
  }

  /** Number of requests answered from an earlier request with the same key (no new work started). */
  get replays(): number {
    return this.#replays;
  }

  /** Number of keys currently bound to a live task (expired ones are swept first). */
  get size(): number {
    this.sweep();
    return this.#bound.size;
  }

  /** The task bound to `key` for handler `scope`, if it is still alive. */
  taskIdFor(scope: string, key: string): string | undefined {
    return this.#live(`${scope}\n${key}`)?.taskId;
  }

  /**
   * Runs `start` unless `key` was seen before for `scope`; then answers with the task the key created.
   *
   * @param args the request's arguments; a reused key with different arguments is rejected.
   * @throws {@link JobError} -32602 when the key was used with different arguments; whatever `start` throws.
   */
  async run(
    scope: string,
    key: string,
    args: Record<string, unknown>,
    start: () => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    const id = `${scope}\n${key}`;
    const fingerprint = canonicalJson(args);
    for (;;) {
      const bound = this.#live(id);
      if (bound !== undefined) {
        const record = this.#registry.get(bound.taskId);
        if (record !== undefined) {
          this.#check(bound.fingerprint, fingerprint, scope);
          this.#replays++;
          return this.#registry.createTaskResult(record);
        }
      }
      const inflight = this.#inflight.get(id);
      if (inflight === undefined) break;
      this.#check(inflight.fingerprint, fingerprint, scope);
      try {
        const reply = await inflight.reply;
        // A task: loop to answer with its current state. Inline: the same reply, no second run.
        if (reply.resultType === 'task') continue;
        this.#replays++;
        return reply;
      } catch {
        // The first request failed or was abandoned: this one runs afresh (after the first left the map).
        await Promise.resolve();
      }
    }
    if (this.#bound.size >= this.#sweepAtSize) {
      this.sweep();
      this.#sweepAtSize = Math.max(64, this.#bound.size * 2);
    }
    const reply = start();
    this.#inflight.set(id, { fingerprint, reply });
    try {
      const result = await reply;
      if (result.resultType === 'task' && typeof result.taskId === 'string')
        this.#bound.set(id, { taskId: result.taskId, fingerprint });
      return result;
    } finally {
      this.#inflight.delete(id);
    }
  }

  /** Forgets keys whose task expired (or was dropped). */
  sweep(): void {
    for (const id of [...this.#bound.keys()]) this.#live(id);
  }

  /** Forgets every key (server shutdown). */
  clear(): void {
    this.#bound.clear();
  }

  #live(id: string): Binding | undefined {
    const bound = this.#bound.get(id);
    if (bound === undefined) return undefined;
    if (this.#registry.get(bound.taskId) !== undefined) return bound;
    this.#bound.delete(id);
    return undefined;
  }

  #check(seen: string, got: string, scope: string): void {
    if (seen !== got) {
      throw new JobError(
        ErrorCode.InvalidParams,
        `Idempotency key reused with different arguments for ${scope}`,
      );
    }
  }
}
