/**
 * Routes the server's questions during adapted tool calls to the host's `onInput`, or declines them politely, so a
 * question never leaves a call hanging. Questions of a task come through its handle; questions of a multi
 * round-trip request (no task yet) come through the client's `inputRequired` event, which the router listens to
 * only while one of its calls is being started (that listener also declares the elicitation capability).
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation and
 * https://github.com/modelcontextprotocol/ext-tasks (`input_required`, `tasks/update`).
 *
 * @module
 */
import type { TaskClient } from '../../client/task-client.js';
import type { InputRequest, InputRequests, InputResponse } from '../../protocol/input.js';
import type { InputRequiredEvent } from '../../tasks/input-broker.js';
import type { TaskToolInputCallback } from './options.js';
import type { TrackedTask } from './task-registry.js';

/** A call whose creating request (and its MRTR rounds) is on its way. */
export interface StartingCall {
  readonly toolName: string;
  readonly toolCallId: string | undefined;
  /** Questions declined on the model's behalf. */
  readonly declined: string[];
  /** Stops the call (a question that cannot be declined). */
  stop(): void;
}

/** What a question is about, for texts: an elicitation's `message`, else the request's method. */
export function questionOf(request: InputRequest): string {
  const message = (request.params as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : request.method;
}

/** One router per adapted tool set. */
export class InputRouter {
  readonly #client: TaskClient;
  readonly #onInput: TaskToolInputCallback | undefined;
  readonly #starting = new Set<StartingCall>();
  readonly #onClientEvent = (event: InputRequiredEvent): void => {
    if (event.taskId !== undefined) return; // a task's questions are taken from its handle
    const calls = [...this.#starting];
    if (calls.length === 0) return;
    // The event does not say which call asked. With one call starting it is that one; with several, the answer
    // still goes to the server, but no call gets the note, and a question that cannot be declined stops them all
    // (a multi round-trip request holds nothing on the server, so stopping it orphans nothing).
    const only = calls.length === 1 ? calls[0] : undefined;
    void this.#answer(event, {
      toolName: only?.toolName,
      toolCallId: only?.toolCallId,
      declined: only ? only.declined : [],
      stop: () => calls.forEach((call) => call.stop()),
    });
  };

  constructor(client: TaskClient, onInput: TaskToolInputCallback | undefined) {
    this.#client = client;
    this.#onInput = onInput;
  }

  /** Registers a call being started; returns the function that ends that phase. */
  beginStart(call: StartingCall): () => void {
    if (this.#starting.size === 0) this.#client.on('inputRequired', this.#onClientEvent);
    this.#starting.add(call);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#starting.delete(call);
      if (this.#starting.size === 0) this.#client.off('inputRequired', this.#onClientEvent);
    };
  }

  /** Answers the task's open questions now and its later ones as they come, until it settles. */
  attach(entry: TrackedTask, toolCallId: string | undefined): void {
    const { handle } = entry;
    if (handle.done) return;
    const seen = new Set<string>();
    const target = {
      toolName: entry.toolName || undefined,
      toolCallId,
      declined: entry.declined,
      stop: () => {
        entry.inputStopped = true;
        handle.cancel().catch(() => undefined); // the outcome (TaskCancelledError) reports it; a failed cancel leaves it recorded
      },
    };
    const offer = (event: InputRequiredEvent): void => {
      if (seen.has(event.key)) return;
      seen.add(event.key);
      void this.#answer(event, target);
    };
    handle.on('inputRequired', offer);
    const forget = (): void => void handle.off('inputRequired', offer);
    handle.whenSettled(forget);
    if (handle.status !== 'input_required') return;
    const open = ((handle.task as { inputRequests?: InputRequests }).inputRequests ?? {}) as InputRequests;
    for (const [key, request] of Object.entries(open)) {
      if (handle.answeredKeys.has(key)) continue;
      offer({
        key,
        taskId: handle.taskId,
        method: handle.method,
        request,
        get expiresAt() {
          return handle.expiresAt;
        },
        get answered() {
          return handle.answeredKeys.has(key);
        },
        respond: async (response) => (await handle.respond({ [key]: response })).includes(key),
      });
    }
  }

  async #answer(
    event: InputRequiredEvent,
    call: {
      toolName: string | undefined;
      toolCallId: string | undefined;
      declined: string[];
      stop: () => void;
    },
  ): Promise<void> {
    let response: InputResponse | undefined;
    let failed = this.#onInput === undefined;
    if (this.#onInput) {
      try {
        response = await this.#onInput(event, { toolName: call.toolName, toolCallId: call.toolCallId });
      } catch {
        failed = true;
      }
    }
    if (event.answered) return;
    if (response !== undefined) {
      try {
        await event.respond(response);
        return;
      } catch {
        failed = true;
      }
    }
    // Nobody answered (or the person said no): decline politely, never leave the question open.
    if (failed) call.declined.push(questionOf(event.request));
    if (event.request.method === 'elicitation/create') {
      try {
        await event.respond({ action: 'decline' });
        return;
      } catch {
        // fall through: stop the call instead of leaving it waiting
      }
    }
    if (!failed) call.declined.push(questionOf(event.request));
    call.stop();
  }
}
