/**
 * Questions, answers and outcomes across a fleet: each question and each answer is recorded once per key in Redis
 * and announced on one stream that every worker reads (`XREAD BLOCK` on its own connection).
 *
 * @module
 */
import type { InputRequest, InputResponse } from '../../protocol/input.js';
import { closeClient, RedisConnection, type RedisClientLike } from './connection.js';
import { StoreUnavailableError } from './errors.js';
import type { FleetKeys } from './keys.js';
import { recordId } from './keys.js';
import { RECORD_ONCE_SCRIPT } from './scripts.js';
import { listOpenQuestions, type OpenQuestion } from './open-questions.js';

/** One entry of the fleet's event stream. */
export interface FleetEvent {
  /** `question`: a task asked `key`; `answer`: some worker answered it; `outcome`: the task's outcome was recorded. */
  type: 'question' | 'answer' | 'outcome';
  /** Record id (hash of server and `taskId`). */
  id: string;
  taskId: string;
  server: string;
  /** The input key, for `question` and `answer`. */
  key?: string;
}

/** A running stream reader; `stop()` ends it and closes its connection. */
export interface FleetSubscription {
  /** Ends the reader and closes its connection. */
  stop(): Promise<void>;
}

/** Field/value pairs of a reply: a flat array (RESP2) or a map (RESP3, as node-redis may give it). */
function toFields(raw: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (Array.isArray(raw))
    for (let i = 0; i + 1 < raw.length; i += 2) out.set(String(raw[i]), String(raw[i + 1]));
  else if (raw instanceof Map) for (const [k, v] of raw) out.set(String(k), String(v));
  else if (raw !== null && typeof raw === 'object')
    for (const [k, v] of Object.entries(raw)) out.set(k, String(v));
  return out;
}

/** The entries of an `XREAD` reply for one stream: `[[name, entries]]` (RESP2) or `{ name: entries }` (a map). */
function streamEntries(reply: unknown): unknown[][] {
  if (reply === null || reply === undefined) return [];
  const streams = Array.isArray(reply)
    ? reply.map((s) => (s as unknown[])[1])
    : reply instanceof Map
      ? [...reply.values()]
      : Object.values(reply);
  return streams.flatMap((entries) => (Array.isArray(entries) ? (entries as unknown[][]) : []));
}

function parseJson<T>(text: unknown): T | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Questions and answers of the fleet's tasks, and the stream that announces them. */
export class FleetChannel {
  readonly #redis: RedisConnection;
  readonly #keys: FleetKeys;
  readonly #maxStream: number;

  /** @internal Built by {@link RedisTaskStore}. */
  constructor(redis: RedisConnection, keys: FleetKeys, maxStream: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxStream = maxStream;
  }

  /** Records a question once per key. @returns true when this call recorded it (and announced it). */
  async recordQuestion(server: string, taskId: string, key: string, request: InputRequest): Promise<boolean> {
    return this.#once(
      this.#keys.questions(recordId(server, taskId)),
      'question',
      server,
      taskId,
      key,
      request,
    );
  }

  /**
   * Records an answer once per key (the first answer from any worker wins) and announces it; the lease holder
   * sends it with `tasks/update`. @returns true when this answer was the first.
   */
  async recordAnswer(server: string, taskId: string, key: string, response: InputResponse): Promise<boolean> {
    return this.#once(this.#keys.answers(recordId(server, taskId)), 'answer', server, taskId, key, response);
  }

  /** The recorded question of `key`, if any. */
  async question(server: string, taskId: string, key: string): Promise<InputRequest | undefined> {
    return parseJson<InputRequest>(
      await this.#redis.send(['HGET', this.#keys.questions(recordId(server, taskId)), key]),
    );
  }

  /** The recorded answer of `key`, if any. */
  async answer(server: string, taskId: string, key: string): Promise<InputResponse | undefined> {
    return parseJson<InputResponse>(
      await this.#redis.send(['HGET', this.#keys.answers(recordId(server, taskId)), key]),
    );
  }

  /** Every answer recorded for the task, by key. */
  async answers(server: string, taskId: string): Promise<Record<string, InputResponse>> {
    const fields = toFields(
      await this.#redis.send(['HGETALL', this.#keys.answers(recordId(server, taskId))]),
    );
    const out: Record<string, InputResponse> = {};
    for (const [key, text] of fields) {
      const value = parseJson<InputResponse>(text);
      if (value !== undefined)
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  // A process joining the fleet lists the questions asked before it started reading the stream.
  /**
   * Every question recorded for a task without an outcome and not answered yet (at most 10,000), read atomically.
   *
   * @throws {@link StoreUnavailableError} when Redis fails.
   */
  async openQuestions(): Promise<OpenQuestion[]> {
    return listOpenQuestions(this.#redis, this.#keys);
  }

  /**
   * Reads the stream from now on, on a duplicate connection, calling `onEvent` for each entry in order. Read errors
   * (Redis restarting) go to `onError` and the reader retries after `retryMs`. `onReady` is called once the reading
   * position is fixed: every entry added after that call is delivered.
   */
  subscribe(
    onEvent: (event: FleetEvent) => void,
    onError: (error: unknown) => void,
    options: { blockMs?: number; retryMs?: number; onReady?: () => void } = {},
  ): FleetSubscription {
    const blockMs = options.blockMs ?? 1_000;
    const retryMs = options.retryMs ?? 250;
    const client: RedisClientLike = this.#redis.client.duplicate();
    client.on?.('error', () => undefined); // reconnects by itself; failures surface through the reads below
    const reader = new RedisConnection(client);
    let stopped = false;
    let wake: (() => void) | undefined;
    const loop = (async () => {
      await client.connect().catch((error: unknown) => {
        throw new StoreUnavailableError('CONNECT', { cause: error });
      });
      let last: string | undefined; // the position is pinned before the first read, then `onReady`
      while (!stopped) {
        try {
          if (last === undefined) {
            const top = (await reader.send([
              'XREVRANGE',
              this.#keys.events,
              '+',
              '-',
              'COUNT',
              '1',
            ])) as unknown[][];
            last = top.length > 0 ? String(top[0]?.[0]) : '0-0';
            options.onReady?.();
          }
          const reply = await reader.send([
            'XREAD',
            'COUNT',
            '500',
            'BLOCK',
            String(blockMs),
            'STREAMS',
            this.#keys.events,
            last,
          ]);
          for (const entry of streamEntries(reply)) {
            last = String(entry[0]);
            const f = toFields(entry[1]);
            const type = f.get('type');
            if (type === 'question' || type === 'answer' || type === 'outcome') {
              const key = f.get('key');
              onEvent({
                type,
                id: f.get('id') ?? '',
                taskId: f.get('taskId') ?? '',
                server: f.get('server') ?? '',
                ...(key !== undefined ? { key } : {}),
              });
            }
          }
        } catch (error) {
          if (stopped) break;
          onError(error);
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, retryMs);
          });
        }
      }
    })();
    loop.catch(onError);
    return {
      stop: async () => {
        stopped = true;
        wake?.();
        client.destroy?.();
        if (!client.destroy) await closeClient(client);
        await loop.catch(() => undefined);
      },
    };
  }

  async #once(
    hash: string,
    type: 'question' | 'answer',
    server: string,
    taskId: string,
    key: string,
    value: unknown,
  ): Promise<boolean> {
    const done = await this.#redis.eval(
      RECORD_ONCE_SCRIPT,
      [hash, this.#keys.events],
      [key, JSON.stringify(value), type, recordId(server, taskId), taskId, server, this.#maxStream],
    );
    return Number(done) === 1;
  }
}
