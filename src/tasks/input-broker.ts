/**
 * The input broker: turns `inputRequests` into `inputRequired` events and handler calls, deduplicated by key, and
 * sends each answer at most once. One broker type serves MRTR rounds and tasks; each round or task is its own scope.
 *
 * @module
 */
import { INPUT_METHODS } from '../protocol/constants.js';
import { MAX_INPUT_REQUESTS_PER_REPLY } from '../protocol/input.js';
import type {
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  InputRequest,
  InputRequests,
  InputResponse,
  ListRootsResult,
} from '../protocol/input.js';

/** What a handler knows about the question it answers. */
export interface InputContext {
  /** The server's key for this request, unique within its task or round. */
  key: string;
  /** The task that asks, or `undefined` for an MRTR round. */
  taskId: string | undefined;
  /** The original method, e.g. `tools/call`. */
  method: string;
}

/**
 * Handlers that answer embedded requests automatically. Registering one also declares the matching client
 * capability on every request. Sampling and roots are deprecated in 2026-07-28.
 */
export interface InputHandlers {
  /** Answers `elicitation/create` (form mode when `params.mode` is absent). */
  elicitation?: (params: ElicitRequestParams, context: InputContext) => Promise<ElicitResult> | ElicitResult;
  /** Answers `sampling/createMessage`. */
  sampling?: (
    params: Record<string, unknown>,
    context: InputContext,
  ) => Promise<CreateMessageResult> | CreateMessageResult;
  /** Answers `roots/list`. */
  roots?: (
    params: Record<string, unknown>,
    context: InputContext,
  ) => Promise<ListRootsResult> | ListRootsResult;
}

/** Options of {@link InputRequiredEvent.respond}. */
export interface RespondOptions {
  /** Who answered (a person, a UI session, a policy), kept in the task record's `answers` once acknowledged. */
  answeredBy?: string;
}

/**
 * One question from the server, emitted once per key as `inputRequired` on the client (and on the task's handle).
 * Call `respond` to answer; the first answer wins and later calls resolve `false`.
 */
export interface InputRequiredEvent extends InputContext {
  /** The embedded request: `{ method, params }`. */
  readonly request: InputRequest;
  /**
   * For a task: when the server may forget it (epoch ms, from the client's clock; `null` = never). The TTL keeps
   * running while the question waits. `undefined` for an MRTR round.
   */
  readonly expiresAt: number | null | undefined;
  /** True once an answer was accepted for sending. */
  readonly answered: boolean;
  /**
   * Answers the question. Resolves `true` when this answer was sent, `false` if the key was already answered.
   * Rejects when sending failed (the key can then be answered again).
   */
  respond(response: InputResponse, options?: RespondOptions): Promise<boolean>;
}

/**
 * How a scope delivers one answer: MRTR collects it for the retry; tasks send `tasks/update`. Resolving `false`
 * means the answer was dropped (not sent); the key stays open.
 */
export type DeliverAnswer = (
  key: string,
  response: InputResponse,
  options?: RespondOptions,
) => Promise<void | boolean>;

/** Options of one {@link InputScope}. */
export interface InputScopeOptions {
  method: string;
  taskId: string | undefined;
  handlers: InputHandlers | undefined;
  deliver: DeliverAnswer;
  /** Emits an event to every listener (handle and client). */
  emit: (event: InputRequiredEvent) => void;
  /** Reports a handler's failure; the key stays open. */
  onHandlerError: (error: unknown, event: InputRequiredEvent) => void;
  /** The task's expiry for events (epoch ms, `null` = never); absent for MRTR rounds. */
  expiresAt?: () => number | null;
}

export { MAX_INPUT_REQUESTS_PER_REPLY };

/**
 * The most distinct question keys one task may ask over its life (ten full replies' worth). It stops a server that
 * invents new keys on every poll from prompting forever, and bounds the keys the client remembers per task.
 */
export const MAX_INPUT_KEYS_PER_TASK = 10_000;

/** Which question limit a reply would break, and by how much: see {@link InputScope.limitBreach}. */
export interface InputLimitBreach {
  per: 'reply' | 'task';
  limit: number;
  count: number;
}

function handlerFor(
  handlers: InputHandlers | undefined,
  request: InputRequest,
): ((context: InputContext) => Promise<InputResponse>) | undefined {
  switch (request.method) {
    case INPUT_METHODS.elicitation: {
      const h = handlers?.elicitation;
      return h && (async (c) => h(request.params, c));
    }
    case INPUT_METHODS.sampling: {
      const h = handlers?.sampling;
      return h && (async (c) => h(request.params, c));
    }
    case INPUT_METHODS.roots: {
      const h = handlers?.roots;
      return h && (async (c) => h(request.params ?? {}, c));
    }
  }
}

/**
 * The questions of one task (or one MRTR round): which keys were seen and which answered. Keys are never emitted or
 * answered twice, even when a server re-issues them after an answer.
 */
export class InputScope {
  readonly #options: InputScopeOptions;
  readonly #seen = new Set<string>();
  readonly #answered = new Set<string>();
  readonly #requests = new Map<string, InputRequest>();

  constructor(options: InputScopeOptions, answeredKeys: Iterable<string> = []) {
    this.#options = options;
    for (const key of answeredKeys) {
      this.#seen.add(key);
      this.#answered.add(key);
    }
  }

  /** Keys answered so far (for persistence and resume). */
  get answeredKeys(): ReadonlySet<string> {
    return this.#answered;
  }

  /** True when `key` was answered. */
  isAnswered(key: string): boolean {
    return this.#answered.has(key);
  }

  /**
   * The limit `inputRequests` would break if offered: more than {@link MAX_INPUT_REQUESTS_PER_REPLY} keys in it, or
   * more than {@link MAX_INPUT_KEYS_PER_TASK} distinct keys in this scope with its new ones; `undefined` when it fits.
   */
  limitBreach(inputRequests: InputRequests): InputLimitBreach | undefined {
    const keys = Object.keys(inputRequests);
    if (keys.length > MAX_INPUT_REQUESTS_PER_REPLY)
      return { per: 'reply', limit: MAX_INPUT_REQUESTS_PER_REPLY, count: keys.length };
    let count = this.#seen.size;
    for (const key of keys) if (!this.#seen.has(key)) count++;
    return count > MAX_INPUT_KEYS_PER_TASK
      ? { per: 'task', limit: MAX_INPUT_KEYS_PER_TASK, count }
      : undefined;
  }

  /**
   * Takes the latest `inputRequests`; emits one event for each key not seen before and starts its handler.
   * Returns the new events.
   */
  offer(inputRequests: InputRequests): InputRequiredEvent[] {
    const events: InputRequiredEvent[] = [];
    for (const [key, request] of Object.entries(inputRequests)) {
      if (this.#seen.has(key)) continue;
      this.#seen.add(key);
      this.#requests.set(key, request);
      const event = this.#event(key, request);
      events.push(event);
      this.#options.emit(event);
      const handler = handlerFor(this.#options.handlers, request);
      if (handler && !this.#answered.has(key)) {
        handler(event)
          .then((response) => event.respond(response))
          .catch((error: unknown) => this.#options.onHandlerError(error, event));
      }
    }
    return events;
  }

  /**
   * Answers several keys at once (e.g. `handle.respond({...})`). Only keys the server asked (seen in an
   * `inputRequests`) and not yet answered are sent; the others are skipped.
   *
   * @returns the keys sent.
   */
  async respondAll(responses: Record<string, InputResponse>): Promise<string[]> {
    const sent: string[] = [];
    await Promise.all(
      Object.entries(responses).map(async ([key, response]) => {
        if (this.#seen.has(key) && (await this.#answer(key, response))) sent.push(key);
      }),
    );
    return sent;
  }

  /**
   * Asks the question `key` again (after the server rejected its answer): the key is opened and one new event is
   * emitted (and its handler run). Returns the new event, or `undefined` when the key was never asked.
   */
  reoffer(key: string): InputRequiredEvent | undefined {
    const request = this.#requests.get(key);
    if (request === undefined) return undefined;
    this.#seen.delete(key);
    this.#answered.delete(key);
    return this.offer(
      Object.defineProperty({}, key, { value: request, enumerable: true }) as InputRequests,
    )[0];
  }

  /** True when some handler can answer `request` automatically. */
  canHandle(request: InputRequest): boolean {
    return handlerFor(this.#options.handlers, request) !== undefined;
  }

  async #answer(key: string, response: InputResponse, options?: RespondOptions): Promise<boolean> {
    if (this.#answered.has(key)) return false;
    this.#answered.add(key);
    this.#seen.add(key);
    try {
      const sent = await this.#options.deliver(key, response, options);
      if (sent !== false) return true;
      this.#answered.delete(key);
      return false;
    } catch (error) {
      this.#answered.delete(key);
      throw error;
    }
  }

  #event(key: string, request: InputRequest): InputRequiredEvent {
    const { method, taskId } = this.#options;
    const answer = (response: InputResponse, options?: RespondOptions): Promise<boolean> =>
      this.#answer(key, response, options);
    const isAnswered = (): boolean => this.#answered.has(key);
    const expiresAt = this.#options.expiresAt;
    return {
      key,
      taskId,
      method,
      request,
      get expiresAt() {
        return expiresAt?.();
      },
      get answered() {
        return isAnswered();
      },
      respond: answer,
    };
  }
}
