/**
 * What every command that talks to a server needs: the output, a `TaskClient` over Streamable HTTP declaring the
 * capabilities the CLI can serve, the question answerer, the task record, and Ctrl-C handling. Also the wrapper that
 * turns a command's outcome or error into an exit code.
 *
 * @module
 */
import { StreamableHttpTransport, TaskClient, VERSION, isMcpClientError } from '../index.js';
import { ExitCode, exitCodeForError, type ExitCodeValue } from './exit-codes.js';
import { AnswersFile } from './input/answers-file.js';
import { InputAnswerer } from './input/answerer.js';
import { afterAuthorizationError, sessionAuth } from './auth/sign-in.js'; // hook: issue-17
import { InterruptedError } from './exit-codes.js';
import { Interrupt } from './interrupt.js';
import { Output } from './output.js';
import { openRecordStore } from './record-store.js';

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
  readonly serverUrl: URL;
  /** Present when the command answers questions. */
  readonly answerer: InputAnswerer | undefined;
  /**
   * Aborted by Ctrl-C until a phase takes over `interrupt.onPress`: requests made before a task is followed (the
   * tool list, the call, the first `tasks/get`) pass it, so a silent server cannot make Ctrl-C do nothing.
   */
  readonly signal: AbortSignal;
  /** Stops prompts and polling, closes the client (its pending record writes land first) and the transport. */
  close(): Promise<void>;
}

/**
 * Opens a session. With `input`, questions are answered (and the matching capabilities declared); without, they
 * are only shown.
 *
 * @throws {@link UsageError} when the answers file cannot be read.
 */
export async function openSession(output: Output, serverUrl: URL, input?: InputOptions): Promise<Session> {
  const interrupt = new Interrupt();
  const answers = input?.answers !== undefined ? await AnswersFile.load(input.answers) : undefined;
  const interactive = input !== undefined && input.input !== false && process.stdin.isTTY === true && process.stdout.isTTY === true;
  const answerer =
    input === undefined
      ? undefined
      : new InputAnswerer({ output, answers, interactive, samplingCommand: input.samplingCommand, roots: input.root ?? [], onInterrupt: () => interrupt.press() });
  // The one writer of task records is the client's task engine: the CLI only hands it the store.
  const store = openRecordStore((file, reason) => output.warn(`warning: skipped task record ${file}: ${reason}`));
  const client = new TaskClient({
    transport: new StreamableHttpTransport(serverUrl.href, { auth: await sessionAuth(serverUrl) }), // hook: issue-17
    clientInfo: { name: 'mcp-tasks', version: VERSION },
    capabilities: answerer?.capabilities(),
    store,
  });
  client.on('warning', (message) => {
    if (message.startsWith('task store:')) output.warn(`warning: could not write the task record: ${message.slice('task store: '.length)}`);
  });
  answerer?.listen(client);
  const early = new AbortController();
  interrupt.onPress = () => early.abort(new InterruptedError('interrupted before the server answered'));
  interrupt.install();
  return {
    signal: early.signal,
    output,
    client,
    interrupt,
    serverUrl,
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
export function errorCode(error: unknown): string | number | undefined {
  if (isMcpClientError(error)) return error.code;
  return error instanceof Error ? error.name : undefined;
}

/**
 * Runs a command body and turns any error into its exit code, reporting it once (an `error` event).
 *
 * @returns the exit code to end the process with.
 */
export async function runReporting(output: Output, body: () => Promise<ExitCodeValue>): Promise<ExitCodeValue> {
  try {
    return await body();
  } catch (caught) {
    // hook: issue-17 — a server asked for a sign-in: a person at a terminal signs in and the command runs once more
    const interactive = !output.json && process.stdin.isTTY === true && process.stdout.isTTY === true;
    const error = await afterAuthorizationError(caught, interactive, (line) => output.warn(line)).catch((e: unknown) => e);
    if (error === 'retry') return runReporting(output, body);
    const exitCode = exitCodeForError(error);
    output.stopLive();
    output.emit({ event: 'error', exitCode, code: errorCode(error), message: error instanceof Error ? error.message : String(error) });
    return exitCode === ExitCode.Completed ? ExitCode.Transport : exitCode;
  }
}
