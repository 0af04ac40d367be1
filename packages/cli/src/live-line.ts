/**
 * The live line on a TTY: one spinner line (ora) showing the task's status, `statusMessage`, elapsed time, time to
 * the next poll and the shortened task id, redrawn a few times a second. Never used when stdout is not a TTY.
 *
 * @module
 */
import { safeLine } from 'mcp-tasks-client';
import ora, { type Ora } from 'ora';
import { redactTaskId, type TaskStatus } from 'mcp-tasks-client';

/** What the live line shows; read on every redraw. */
export interface LiveState {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Epoch ms the command started (elapsed time counts from here). */
  startedAt: number;
  /** Epoch ms of the next poll, when known. */
  nextPollAt?: number;
}

/** `1.2s`, `2m 05s`. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
}

/** The text of the live line for `state` at `now`. */
export function liveText(state: LiveState, now: number): string {
  const parts: string[] = [state.status];
  if (state.statusMessage) parts.push(safeLine(state.statusMessage));
  parts.push(shortDuration(now - state.startedAt));
  if (state.nextPollAt !== undefined && state.status !== 'input_required') {
    parts.push(state.nextPollAt > now ? `next poll ${shortDuration(state.nextPollAt - now)}` : 'polling');
  }
  parts.push(safeLine(redactTaskId(state.taskId)));
  return parts.join(' · ');
}

/** A spinner line that other output can print above, and that steps aside for prompts. */
export class LiveLine {
  readonly #spinner: Ora;
  readonly #state: () => LiveState;
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(stream: NodeJS.WriteStream, state: () => LiveState) {
    this.#state = state;
    this.#spinner = ora({
      stream,
      isEnabled: true,
      discardStdin: false,
      hideCursor: true,
      text: liveText(state(), Date.now()),
    });
  }

  /** Shows the line and redraws it every 100 ms. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#spinner.start(liveText(this.#state(), Date.now()));
    this.#timer = setInterval(() => {
      this.#spinner.text = liveText(this.#state(), Date.now());
    }, 100);
  }

  /** Writes `text` (one or more lines) above the live line. */
  print(stream: NodeJS.WriteStream, text: string): void {
    if (this.#running) this.#spinner.clear();
    stream.write(`${text}\n`);
    if (this.#running) {
      this.#spinner.text = liveText(this.#state(), Date.now());
      this.#spinner.render();
    }
  }

  /** Removes the line (for a prompt, or at the end). */
  stop(): void {
    if (!this.#running) return;
    this.#running = false;
    clearInterval(this.#timer);
    this.#spinner.stop();
  }

  /** True while the line is shown. */
  get running(): boolean {
    return this.#running;
  }
}
