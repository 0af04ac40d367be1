/**
 * What a fleet process shows of the fleet's questions: each open question once per key, whether it was announced on
 * the stream while this process read it, asked before this process joined (read from the store once the stream
 * position is fixed), or asked again of this process after it took the task over. Questions of tasks that ended
 * are not shown.
 *
 * @module
 */
import type { InputRequest, InputResponse } from '../protocol/input.js';
import type { InputRequiredEvent } from '../tasks/input-broker.js';
import type { FleetQuestion, FleetQuestions } from './fleet-questions.js';
import type { FleetChannel } from '../store/redis/fleet-channel.js';
import type { TaskHandle } from '../tasks/task-handle.js';

/** Where the feed sends what it shows, and whether anybody listens. */
export interface QuestionFeedSink {
  emit(question: FleetQuestion): void;
  /** False while nobody listens: nothing is marked shown then. */
  wanted(): boolean;
  onError(error: unknown): void;
}

/** The question feed of one fleet process (one `runFleet()`). */
export class QuestionFeed {
  readonly #channel: FleetChannel;
  readonly #serverKey: string;
  readonly #questions: FleetQuestions;
  readonly #sink: QuestionFeedSink;
  /** Keys shown here, by record id; dropped when the task's outcome is announced. */
  readonly #shown = new Map<string, Set<string>>();

  constructor(channel: FleetChannel, serverKey: string, questions: FleetQuestions, sink: QuestionFeedSink) {
    this.#channel = channel;
    this.#serverKey = serverKey;
    this.#questions = questions;
    this.#sink = sink;
  }

  /** The stream position is fixed: show every question asked before it and still open. */
  async catchUp(): Promise<void> {
    if (!this.#sink.wanted()) return;
    for (const q of await this.#channel.openQuestions()) {
      this.#show(q.id, this.#questions.make(q.server, q.taskId, q.key, q.request));
    }
  }

  /** A question announced on the stream. */
  async announced(id: string, server: string, taskId: string, key: string): Promise<void> {
    if (!this.#sink.wanted() || this.#shown.get(id)?.has(key)) return;
    const question = await this.#questions.question(server, taskId, key);
    if (question) this.#show(id, question);
  }

  /** A task held here asked `event.key` (also after a takeover): record it, answer it if the fleet did, else show it. */
  async heldAsked(id: string, event: InputRequiredEvent): Promise<void> {
    const open = await this.#questions.asked(id, event);
    if (open && event.taskId !== undefined && this.#sink.wanted())
      this.#show(id, this.#questions.make(this.#serverKey, event.taskId, event.key, event.request));
  }

  /**
   * A task this process just began to hold (claimed, taken over, created): its questions already surfaced before the
   * fleet listened to the handle, so they are taken from its latest state.
   */
  holding(id: string, task: TaskHandle<unknown>): void {
    const state = task.task;
    if (state.status !== 'input_required') return;
    for (const [key, request] of Object.entries(state.inputRequests)) {
      if (task.answeredKeys.has(key)) continue;
      void this.heldAsked(id, askedOf(task, key, request)).catch((error: unknown) =>
        this.#sink.onError(error),
      );
    }
  }

  /** The task's outcome was announced: its questions are never shown again here. */
  ended(id: string): void {
    this.#shown.delete(id);
  }

  #show(id: string, question: FleetQuestion): void {
    let shown = this.#shown.get(id);
    if (!shown) this.#shown.set(id, (shown = new Set()));
    if (shown.has(question.key)) return;
    shown.add(question.key);
    this.#sink.emit(question);
  }
}

/** An `inputRequired` event for a key the handle already surfaced; answering it goes through the handle. */
function askedOf(task: TaskHandle<unknown>, key: string, request: InputRequest): InputRequiredEvent {
  return {
    key,
    taskId: task.taskId,
    method: task.method,
    request,
    expiresAt: undefined,
    get answered() {
      return task.answeredKeys.has(key);
    },
    respond: async (response: InputResponse) => {
      const sent = await task.respond(
        Object.defineProperty({}, key, { value: response, enumerable: true }) as Record<
          string,
          InputResponse
        >,
      );
      return sent.includes(key);
    },
  };
}
