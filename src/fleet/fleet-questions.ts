/**
 * Questions across a fleet: a question asked of the lease holder is recorded once per key and announced on the
 * fleet's stream; every worker reading the stream emits `inputRequired`; an answer given on any worker is recorded
 * once and sent by the lease holder alone (`tasks/update`, deduplicated by the task's input scope).
 *
 * @module
 */
import type { InputRequest, InputResponse } from '../protocol/input.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import type { FleetChannel } from '../store/redis/fleet-channel.js';

/** A question of a fleet task, seen on any worker. Answer with `respond`; the first answer across the fleet wins. */
export interface FleetQuestion {
  readonly taskId: string;
  /** The server identity the task lives on. */
  readonly server: string;
  /** The server's key for this request, unique within its task. */
  readonly key: string;
  /** The embedded request: `{ method, params }` (e.g. `elicitation/create`). */
  readonly request: InputRequest;
  /**
   * Records the answer for the fleet; the lease holder sends it with `tasks/update`.
   *
   * @returns true when this answer was the first for the key, false when another worker answered first.
   * @throws `StoreUnavailableError` (from `mcp-tasks-client/redis-store`) when Redis fails.
   */
  respond(response: InputResponse): Promise<boolean>;
}

/** Bridges the questions of the tasks this worker holds, and the answers the fleet gives them. */
export class FleetQuestions {
  readonly #channel: FleetChannel;
  readonly #serverKey: string;
  readonly #onError: (error: unknown) => void;
  /** Open questions of held tasks: record id → key → event. */
  readonly #open = new Map<string, Map<string, InputRequiredEvent>>();

  /** @param serverKey - the identity of the client's server (the tasks held here live on it). */
  constructor(channel: FleetChannel, serverKey: string, onError: (error: unknown) => void) {
    this.#channel = channel;
    this.#serverKey = serverKey;
    this.#onError = onError;
  }

  /**
   * A held task asked `event.key`: record and announce it once, and answer it if the fleet already did.
   * @returns true while the question is still open (no answer recorded for the fleet).
   */
  async asked(id: string, event: InputRequiredEvent): Promise<boolean> {
    if (!event.taskId) return false;
    let open = this.#open.get(id);
    if (!open) this.#open.set(id, (open = new Map()));
    open.set(event.key, event);
    const channel = this.#channel;
    await channel.recordQuestion(this.#serverKey, event.taskId, event.key, event.request);
    const answer = await channel.answer(this.#serverKey, event.taskId, event.key);
    if (answer === undefined) return !event.answered;
    await this.#deliver(id, event, answer);
    return false;
  }

  /** The fleet answered `key` of a held task: send it (once, through the task's input scope). */
  async answered(id: string, taskId: string, key: string): Promise<void> {
    const event = this.#open.get(id)?.get(key);
    if (!event || event.answered) return;
    const answer = await this.#channel.answer(this.#serverKey, taskId, key);
    if (answer !== undefined) await this.#deliver(id, event, answer);
  }

  /** The task is no longer held here. */
  drop(id: string): void {
    this.#open.delete(id);
  }

  /** The question announced on the stream, ready to emit; `undefined` when it is gone or already answered. */
  async question(server: string, taskId: string, key: string): Promise<FleetQuestion | undefined> {
    const channel = this.#channel;
    const [request, answer] = await Promise.all([
      channel.question(server, taskId, key),
      channel.answer(server, taskId, key),
    ]);
    if (request === undefined || answer !== undefined) return undefined;
    return this.make(server, taskId, key, request);
  }

  /** A question to emit for a recorded request; `respond` records the fleet's answer. */
  make(server: string, taskId: string, key: string, request: InputRequest): FleetQuestion {
    const channel = this.#channel;
    return {
      taskId,
      server,
      key,
      request,
      respond: (response) => channel.recordAnswer(server, taskId, key, response),
    };
  }

  async #deliver(id: string, event: InputRequiredEvent, answer: InputResponse): Promise<void> {
    try {
      await event.respond(answer);
      this.#open.get(id)?.delete(event.key);
    } catch (error) {
      this.#onError(error); // the key stays open: the next announcement or takeover retries it
    }
  }
}
