/**
 * What every command that talks to a server needs: the output, a `TaskClient` over Streamable HTTP or stdio (see
 * {@link ServerTarget}) declaring the capabilities the CLI can serve, the waiting line, the question answerer, the task record, and Ctrl-C handling. Also the wrapper that
 * turns a command's outcome or error into an exit code.
 *
 * @module
 */
import {
  DEFAULTS,
  type InvalidResponseError,
  TaskClient,
  VERSION,
  isMcpClientError,
  redactSecrets,
} from 'mcp-tasks-client';
import { explainError } from './explain-error.js';
import { ExitCode, exitCodeForError, type ExitCodeValue } from './exit-codes.js';
import { AnswersFile } from './input/answers-file.js';
import { InputAnswerer } from './input/answerer.js';
import { afterAuthorizationError, sessionAuth } from './auth/sign-in.js';
import { AnswerNotDeliveredError, InterruptedError } from './exit-codes.js';
import { Interrupt, SIGNAL_EXIT_CODES, terminationSignal } from './interrupt.js';
import type { Output } from './output.js';
import { openTransport, type ServerTarget } from './server/target.js';
import { openRecordStore } from './record-store.js';
import { WaitingLine } from './waiting-line.js';

/** Options shared by the commands that can answer questions (`call`, `watch`). */
export interface InputOptions {
  /** `--answers <file.json>` */
  answers?: string;
  /** `--no-input` sets this to false. @default true */
  input?: boolean;
  /** `--sampling-command <cmd>` */
  samplingCommand?: string;
  /** `--root <path>`, repeatable. */
  root?: string[];
}

/** A connection to one server, ready to follow tasks. */
export interface Session {
  readonly output: Output;
  readonly client: TaskClient;
  readonly interrupt: Interrupt;
  /** The server this session talks to. */
  readonly target: ServerTarget;
  /** Present when the command answers questions. */
  readonly answerer: InputAnswerer | undefined;
  /**
   * Aborted by Ctrl-C until a phase takes over `interrupt.onPress`: requests made before a task is followed (the
   * tool list, the call, the first `tasks/get`) pass it, so a silent server cannot make Ctrl-C do nothing.
   */
  readonly signal: AbortSignal;
  /** Shows the waiting line while `request` runs (a request made before there is a task to follow). */
  waitFor<T>(method: string, request: Promise<T>): Promise<T>;
  /** Stops prompts and polling, closes the client (its pending record writes land first) and the transport. */
  close(): Promise<void>;
}

/**
 * The words of the library's warning for a call aborted (Ctrl-C, a timeout) before its answer came, when the server
 * answered inline afterwards: `tools/call echo: the server answered after the call was aborted: the work ran to
 * completion; the call rejects with the abort reason and the result is dropped`. The library gives warnings as plain
 * strings with no code, so the CLI knows this one by these words; they are matched in one place, here, and
 * packages/cli/test/interrupt-before-answer.test.ts pins what the person sees (it fails if the library rewords them).
 */
const LATE_ANSWER_WORDS = ': the server answered after the call was aborted:';

/** Whether a library warning is the late-answer one ({@link LATE_ANSWER_WORDS}). */
function isLateAnswerWarning(message: string): boolean {
  return message.includes(LATE_ANSWER_WORDS);
}

/** The late-answer warning for a person: the call's rejection is the CLI's own business, the dropped result is not. */
function lateAnswerText(message: string): string {
  return message.replace('; the call rejects with the abort reason and', ';');
}

/**
 * Opens a session. With `input`, questions are answered (and the matching capabilities declared); without, they
 * are only shown. With `autoPoll` false (`polling.mode: 'manual'`), tasks are asked about only when asked (`client.task`), never polled after.
 *
 * @throws {@link UsageError} when the answers file cannot be read.
 */
export async function openSession(
  output: Output,
  target: ServerTarget,
  input?: InputOptions,
  timeoutMs?: number,
  autoPoll = true,
): Promise<Session> {
  // A kill or a closed terminal may take as long as an abort does (an answer on its way, a cancel) and no longer.
  const interrupt = new Interrupt(DEFAULTS.limits.abortGraceMs);
  const answers = input?.answers !== undefined ? await AnswersFile.load(input.answers) : undefined;
  const interactive =
    input !== undefined &&
    input.input !== false &&
    process.stdin.isTTY === true &&
    process.stdout.isTTY === true;
  const answerer =
    input === undefined
      ? undefined
      : new InputAnswerer({
          output,
          answers,
          interactive,
          noInput: input.input === false,
          samplingCommand: input.samplingCommand,
          roots: input.root ?? [],
          onInterrupt: () => interrupt.press(),
        });
  // The one writer of task records is the client's task engine: the CLI only hands it the store. The transport's
  // serverKey is `target.identity` (see openTransport), so records find --stdio and config servers again.
  const store = openRecordStore((file, reason) =>
    output.warn(`warning: skipped task record ${file}: ${reason}`),
  );
  const client = new TaskClient({
    // An HTTP server may ask for MCP authorization (stored tokens, or a sign-in by a person)
    transport: openTransport(target, target.kind === 'http' ? await sessionAuth(target.url) : undefined),
    clientInfo: { name: 'mcp-tasks', version: VERSION },
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(target.era !== undefined ? { era: target.era } : {}),
    capabilities: answerer?.capabilities(),
    store,
    polling: { mode: autoPoll ? 'auto' : 'manual' },
  });
  client.on('warning', (message) => {
    if (message.startsWith('task store:'))
      output.warn(`warning: could not write the task record: ${message.slice('task store: '.length)}`);
    // Ctrl-C while the request was on its way, and the server finished the work anyway: say so.
    else if (isLateAnswerWarning(message)) output.warn(`warning: ${lateAnswerText(message)}`);
  });
  answerer?.listen(client);
  // A press while a person is being asked ends the prompt first: what the press prints starts on a line of its own.
  if (answerer) interrupt.beforePress = () => answerer.endPrompt();
  const early = new AbortController();
  interrupt.onPress = () => early.abort(new InterruptedError('interrupted before the server answered'));
  interrupt.install();
  const waiting = output.json ? undefined : new WaitingLine(output.stderr, timeoutMs ?? DEFAULTS.timeoutMs);
  output.waiting = waiting;
  return {
    target,
    waitFor(method, request) {
      // A stdio server's first request waits for the era first (server/discover, then initialize when that stays
      // silent): the line names those steps, as a timeout's message does.
      const starting = target.kind === 'stdio' && client.era === undefined;
      waiting?.start(
        target.label,
        starting ? `${method} (first server/discover, then initialize if it is silent)` : method,
      );
      return request.finally(() => waiting?.stop());
    },
    signal: early.signal,
    output,
    client,
    interrupt,
    answerer,
    async close() {
      answerer?.close();
      output.stopLive();
      interrupt.uninstall();
      await client.close().catch(() => undefined);
    },
  };
}

/** A short name for an error's kind, for the `error` event: the SDK's `code`, else the class name. */
export function errorCode(error: unknown): string | undefined {
  // Always a string, so scripts compare one type: a JSON-RPC error from the server is `JSONRPC_<code>` (e.g.
  // `JSONRPC_-32602`); the package's own errors keep their stable codes; the CLI's own are named in CONSTANT_CASE.
  if (isMcpClientError(error)) return typeof error.code === 'number' ? `JSONRPC_${error.code}` : error.code;
  if (!(error instanceof Error)) return undefined;
  return (
    error.name
      .replace(/Error$/, '')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toUpperCase() || 'ERROR'
  );
}

/**
 * Runs a command body and turns any error into its exit code, reporting it once (an `error` event) with the
 * message {@link explainError} gives for the server `target()` returns.
 *
 * @returns the exit code to end the process with.
 */
export async function runReporting(
  output: Output,
  body: () => Promise<ExitCodeValue>,
  target?: () => ServerTarget | undefined,
): Promise<ExitCodeValue> {
  try {
    const exitCode = await body();
    const signal = terminationSignal();
    return signal ? SIGNAL_EXIT_CODES[signal] : exitCode;
  } catch (caught) {
    // A server asked for a sign-in: a person at a terminal signs in and the command runs once more
    const interactive = !output.json && process.stdin.isTTY === true && process.stdout.isTTY === true;
    const error = await afterAuthorizationError(caught, interactive, (line) => output.warn(line)).catch(
      (e: unknown) => e,
    );
    if (error === 'retry') return runReporting(output, body, target);
    // After SIGTERM or SIGHUP the process exits with the signal's code, whatever the error was.
    const signal = terminationSignal();
    const exitCode = signal ? SIGNAL_EXIT_CODES[signal] : exitCodeForError(error);
    output.stopLive();
    // A malformed creation result may still have started a task: its id and the fate of its cancel, for scripts.
    const malformed = isMcpClientError(error, 'INVALID_RESPONSE')
      ? (error as InvalidResponseError)
      : undefined;
    output.emit({
      event: 'error',
      ...(malformed?.taskId !== undefined
        ? { taskId: malformed.taskId }
        : error instanceof AnswerNotDeliveredError
          ? { taskId: error.taskId }
          : {}),
      exitCode,
      code: errorCode(error),
      message: redactSecrets(explainError(error, target?.())),
      ...(malformed?.taskCancel !== undefined
        ? { taskCancel: malformed.taskCancel.kind }
        : error instanceof AnswerNotDeliveredError
          ? { taskCancel: error.cancel }
          : {}),
    });
    return exitCode === ExitCode.Completed ? ExitCode.Transport : exitCode;
  }
}
