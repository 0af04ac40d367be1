/**
 * Answers the server's questions (`inputRequired` events, from MRTR rounds and tasks alike), one at a time: from
 * `--answers`, from a person at a TTY, from `--sampling-command`, or from `--root`. A question nobody here can answer
 * stops the command with {@link UnanswerableError} (exit 7) instead of hanging.
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import { basename, resolve } from 'node:path';
import type {
  ClientCapabilities,
  InputRequest,
  InputRequiredEvent,
  InputResponse,
  TaskClient,
} from 'mcp-tasks-client';
import { UnanswerableError } from '../exit-codes.js';
import type { Output } from '../output.js';
import type { AnswersFile } from './answers-file.js';
import { promptForm } from './form-prompt.js';
import { runSamplingCommand } from './sampling-command.js';
import { describeField, readFields } from './schema-fields.js';
import { promptUrl } from './url-prompt.js';

/** Options of {@link InputAnswerer}. */
export interface AnswererOptions {
  output: Output;
  /** Answers for scripts (`--answers`). */
  answers?: AnswersFile;
  /** True when a person can be asked: stdin and stdout are TTYs and `--no-input` was not given. */
  interactive: boolean;
  /** Why prompting is off when it is: `--no-input` was given (else: no TTY). @default false */
  noInput?: boolean;
  /** `--sampling-command`; without it sampling requests are declined (left unanswered). */
  samplingCommand?: string;
  /** `--root` paths, answered to `roots/list` as file URIs. @default [] */
  roots?: readonly string[];
  /** Called when Ctrl-C was pressed inside a prompt (the prompt owns the terminal then, so no SIGINT arrives). */
  onInterrupt: () => void;
  /** Called after each answer was sent. */
  onAnswered?: (event: InputRequiredEvent) => void;
}

/** A one-line summary of a question, for status lines and the unanswerable report. */
export function summarizeRequest(request: InputRequest): string {
  switch (request.method) {
    case 'elicitation/create': {
      const p = request.params;
      if (p.mode === 'url') return `${p.message} (visit ${p.url ?? '?'})`;
      const fields = readFields(p.requestedSchema).map(describeField);
      return fields.length > 0 ? `${p.message} (fields: ${fields.join(', ')})` : p.message;
    }
    case 'sampling/createMessage':
      return `the server asks for a model completion (${request.params.messages.length} message(s), up to ${request.params.maxTokens} tokens)`;
    case 'roots/list':
      return 'the server asks which roots (directories) it may use';
  }
}

/** Serves one client's questions. */
export class InputAnswerer {
  readonly #options: AnswererOptions;
  readonly #abort = new AbortController();
  readonly #stopped: Promise<Error>;
  #stop!: (error: Error) => void;
  #queue: Promise<void> = Promise.resolve();
  #isStopped = false;
  #gate: Promise<void> = Promise.resolve();
  #release: () => void = () => undefined;
  /** The prompt on screen, if any: aborting it ends it; `closed` resolves once it erased its lines. */
  #prompt: { abort: AbortController; closed: Promise<void> } | undefined;

  constructor(options: AnswererOptions) {
    this.#options = options;
    this.#stopped = new Promise((resolve) => {
      this.#stop = (error) => {
        if (this.#isStopped) return;
        this.#isStopped = true;
        resolve(error);
      };
    });
  }

  /** Resolves when a question could not be answered ({@link UnanswerableError}) or an answer could not be sent. */
  get stopped(): Promise<Error> {
    return this.#stopped;
  }

  /** The capabilities to declare: form and URL elicitation always; sampling and roots only when configured. */
  capabilities(): ClientCapabilities {
    const caps: ClientCapabilities = { elicitation: { form: {}, url: {} } };
    if (this.#options.samplingCommand) caps.sampling = {};
    if ((this.#options.roots ?? []).length > 0) caps.roots = {};
    return caps;
  }

  /** Starts answering `client`'s `inputRequired` events. */
  listen(client: TaskClient): void {
    client.on('inputRequired', (event) => {
      this.#queue = this.#queue.then(() => this.#gate).then(() => this.#handle(event));
    });
  }

  /** Holds questions back (they queue) until {@link release}: lets a command print its own header first. */
  hold(): void {
    this.#gate = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  /** Lets held questions through. */
  release(): void {
    this.#release();
  }

  /**
   * Ends the prompt on screen (as Ctrl-C inside it would) and resolves once it erased its lines; undefined when no
   * prompt is open. A Ctrl-C that arrives as a signal (or SIGTERM, SIGHUP) while a person is being asked waits for
   * this before printing, so its lines never start on the prompt's line.
   */
  endPrompt(): Promise<void> | undefined {
    if (this.#prompt === undefined) return undefined;
    this.#prompt.abort.abort();
    return this.#prompt.closed;
  }

  /** Aborts any open prompt; later questions are ignored. */
  close(): void {
    this.#isStopped = true;
    this.#release();
    this.#abort.abort();
  }

  async #handle(event: InputRequiredEvent): Promise<void> {
    if (this.#isStopped || event.answered) return;
    const { output } = this.#options;
    const base = { taskId: event.taskId, key: event.key, method: event.request.method };
    output.emit({ event: 'input', ...base, summary: summarizeRequest(event.request) });
    let answer:
      | { response: InputResponse; source: 'prompt' | 'answers-file' | 'sampling-command' | 'roots' }
      | { why: string }
      | undefined;
    try {
      answer = await this.#answer(event);
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'ExitPromptError') this.#options.onInterrupt();
      else if (name !== 'AbortPromptError') this.#stop(error as Error);
      return;
    }
    if (answer === undefined || this.#isStopped) return;
    if ('why' in answer) {
      output.emit({ event: 'unanswerable', ...base, message: answer.why });
      this.#stop(
        new UnanswerableError(event.key, event.request.method, `[${event.key}] ${answer.why}`, event.request),
      );
      return;
    }
    try {
      await event.respond(answer.response);
    } catch (error) {
      this.#stop(error as Error);
      return;
    }
    const action =
      'action' in answer.response
        ? String(answer.response.action)
        : answer.source === 'roots'
          ? 'roots'
          : 'sampled';
    output.emit({ event: 'answer', ...base, action, source: answer.source });
    this.#options.onAnswered?.(event);
  }

  async #answer(
    event: InputRequiredEvent,
  ): Promise<
    | { response: InputResponse; source: 'prompt' | 'answers-file' | 'sampling-command' | 'roots' }
    | { why: string }
    | undefined
  > {
    const { answers, interactive, samplingCommand, output, noInput } = this.#options;
    const noAsk = noInput === true ? '--no-input was given, so no prompt' : 'no TTY to ask';
    const request = event.request;
    const found = answers?.lookup(event.key, request) ?? { kind: 'none' as const };
    if (found.kind === 'answer') return { response: found.response, source: 'answers-file' };
    const fileProblem =
      found.kind === 'invalid'
        ? `the --answers entry is not valid (${found.problems.join('; ')})`
        : undefined;
    if (fileProblem) output.warn(`answers file ${answers?.path}: ${fileProblem}`);
    switch (request.method) {
      case 'roots/list':
        return {
          response: {
            roots: (this.#options.roots ?? []).map((p) => ({
              uri: pathToFileURL(resolve(p)).href,
              name: basename(resolve(p)),
            })),
          },
          source: 'roots',
        };
      case 'sampling/createMessage':
        if (!samplingCommand) return { why: 'sampling declined: no --sampling-command given' };
        try {
          return {
            response: await runSamplingCommand(samplingCommand, request, { signal: this.#abort.signal }),
            source: 'sampling-command',
          };
        } catch (error) {
          return this.#isStopped ? undefined : { why: (error as Error).message };
        }
      case 'elicitation/create': {
        if (!interactive) {
          const near = answers?.nearMisses(event.key, request);
          return {
            why:
              fileProblem ??
              (answers
                ? `no answer for it in ${answers.path}${near ? `, which has ${near},` : ''} and ${noAsk}`
                : `${noAsk} (give --answers <file.json>)`),
          };
        }
        // Its own abort, so that endPrompt() ends this prompt only; closing the answerer ends it too.
        const abort = new AbortController();
        const stop = (): void => abort.abort();
        this.#abort.signal.addEventListener('abort', stop, { once: true });
        let closed!: () => void;
        this.#prompt = { abort, closed: new Promise((resolve) => (closed = resolve)) };
        const { ctx, dispose } = clearedOnInterrupt({
          signal: abort.signal,
          output: output.json ? output.stderr : output.stdout,
        });
        output.pauseLive();
        try {
          const response =
            request.params.mode === 'url'
              ? await promptUrl(request.params, ctx)
              : await promptForm(request.params, ctx);
          return { response, source: 'prompt' };
        } finally {
          // The prompt library erased or kept its lines before its promise settled: the terminal is free again.
          this.#abort.signal.removeEventListener('abort', stop);
          this.#prompt = undefined;
          dispose();
          output.resumeLive();
          closed();
        }
      }
    }
  }
}

/**
 * A prompt context whose question is erased from the screen when it ends by Ctrl-C or an abort (the menu would
 * otherwise stay on screen under the lines that follow), and kept, with its answer, when it is answered. The prompt
 * library reads `clearPromptOnDone` as the prompt ends, after Ctrl-C reached the keypress listeners.
 */
function clearedOnInterrupt(base: { signal: AbortSignal; output: NodeJS.WritableStream }): {
  ctx: { signal: AbortSignal; output: NodeJS.WritableStream; readonly clearPromptOnDone: boolean };
  dispose: () => void;
} {
  let interrupted = false;
  const onKey = (_text: unknown, key: { ctrl?: boolean; name?: string } | undefined): void => {
    if (key?.ctrl === true && key.name === 'c') interrupted = true;
  };
  process.stdin.on('keypress', onKey);
  return {
    ctx: {
      ...base,
      get clearPromptOnDone() {
        return interrupted || base.signal.aborted;
      },
    },
    dispose: () => process.stdin.off('keypress', onKey),
  };
}
