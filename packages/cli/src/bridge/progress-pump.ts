/**
 * `notifications/progress` for one host call that gave a `progressToken`: one notification per status change of the
 * upstream task (its `statusMessage` as `message`), and the last one again every `keepAliveMs` while nothing
 * changes, so a host that resets its request timeout on progress keeps waiting. `progress` counts the notifications
 * sent (it only grows, as the specification requires); no `total` is claimed.
 *
 * Spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/progress
 *
 * @module
 */
import { hostLine } from 'mcp-tasks-client/tool-runtime';

/** What the pump sends through: the host request's `sendNotification`. */
export type SendProgress = (notification: {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; message?: string };
}) => Promise<void>;

/** Sends progress for one call until {@link ProgressPump.stop}. */
export class ProgressPump {
  readonly #token: string | number;
  readonly #send: SendProgress;
  readonly #keepAliveMs: number;
  #count = 0;
  #message: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopped = false;

  /** Starts the keep-alive timer at once (`keepAliveMs` > 0). */
  constructor(token: string | number, send: SendProgress, keepAliveMs: number) {
    this.#token = token;
    this.#send = send;
    this.#keepAliveMs = keepAliveMs;
    this.#arm();
  }

  /** A new status or `statusMessage` of the upstream (sent when it differs from the last one). */
  status(message: string | undefined): void {
    if (message === undefined) return;
    // Upstream text, one line: control, bidi and invisible characters and line breaks reach the host's UI escaped.
    const shown = hostLine(message);
    if (shown === this.#message) return;
    this.#message = shown;
    this.#emit();
  }

  /** Stops the keep-alive; nothing is sent afterwards. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }

  #arm(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#emit(), this.#keepAliveMs);
    this.#timer.unref?.();
  }

  #emit(): void {
    if (this.#stopped) return;
    this.#count += 1;
    const params: { progressToken: string | number; progress: number; message?: string } = {
      progressToken: this.#token,
      progress: this.#count,
    };
    if (this.#message !== undefined) params.message = this.#message;
    // A host that went away cannot be told; the call's own end reports the failure.
    this.#send({ method: 'notifications/progress', params }).catch(() => undefined);
    this.#arm();
  }
}
