/**
 * `mcp-tasks call <server> <tool> [key=value …] [--json '{…}']` (or `call --stdio "<command>" <tool> …`): call a
 * tool; follow it if it becomes a task.
 *
 * @module
 */
import { parseMs, parseToolArguments } from '../arguments.js';
import { parseDuration } from '../duration.js';
import { afterEarlyInterrupt, earlyInterruptLine } from '../early-interrupt.js';
import { ExitCode, UnanswerableError, UsageError, type ExitCodeValue } from '../exit-codes.js';
import { answersFileExample, DEFAULT_CANCEL_WAIT_MS, followTask } from '../follow-task.js';
import { Output } from '../output.js';
import { comeBack, LEGACY_NO_RESUME } from '../resume-hint.js';
import { resolveTarget, type ServerOptions, type ServerTarget } from '../server/target.js';
import { openSession, runReporting, type InputOptions, type Session } from '../session.js';
import { closestNames } from '../suggest.js';
import { checkToolArguments } from '../schema-check.js';
import { taskEvent } from '../task-lookup.js';

/** Options of `call`, as commander parses them. */
export interface CallCommandOptions extends InputOptions, ServerOptions {
  /** The arguments as one JSON object (`--json '{…}'` or `--args '{…}'`). */
  args?: string;
  /** Print the task id and exit once the call became a task. */
  detach?: boolean;
  /** JSON lines output. */
  json?: boolean;
  /** `--cancel-wait <duration>` */
  cancelWait?: string;
  /** `--timeout <duration>`: the budget of each request. */
  timeout?: string;
}

/**
 * The tool's `inputSchema` from `tools/list` (which also teaches the client the tool's `x-mcp-header` parameters).
 * `undefined` when the server answered `tools/list` with a JSON-RPC error (the call is still tried).
 *
 * @throws {@link UsageError} when the list was had and the tool is not in it (with the closest names); the
 *   transport error when the server could not be reached or did not answer (then nothing was called).
 */
async function inputSchemaOf(session: Session, tool: string): Promise<Record<string, unknown> | undefined> {
  let tools;
  try {
    tools = await session.waitFor('tools/list', session.client.listTools({ signal: session.signal }));
  } catch (error) {
    if (typeof (error as { code?: unknown }).code === 'number') return undefined; // a JSON-RPC error: the server is there
    throw error;
  }
  const found = tools.find((t) => t.name === tool);
  if (found) return found.inputSchema;
  const close = closestNames(
    tool,
    tools.map((t) => t.name),
  );
  throw new UsageError(
    `${session.target.label} has no tool ${JSON.stringify(tool)}${close.length > 0 ? `; did you mean ${close.map((n) => JSON.stringify(n)).join(', ')}?` : ''} (nothing was called; the list: mcp-tasks tools)`,
  );
}

/**
 * Splits the positional arguments: with `--stdio` there is no server, so the first is the tool.
 *
 * @throws {@link UsageError} when the server (without `--stdio`) or the tool is missing.
 */
export function splitCallArguments(
  positionals: readonly string[],
  stdio: boolean,
): { server: string | undefined; tool: string; pairs: string[] } {
  const [first, second, ...rest] = positionals;
  const server = stdio ? undefined : first;
  const tool = stdio ? first : second;
  const pairs = stdio ? [second, ...rest].filter((p): p is string => p !== undefined) : rest;
  if (!stdio && server === undefined)
    throw new UsageError(
      'missing the server: mcp-tasks call <server> <tool> [key=value…], where <server> is an http(s) URL or a server name from an MCP config file (or: mcp-tasks call --stdio "<command>" <tool> [key=value…])',
    );
  if (tool === undefined)
    throw new UsageError(
      stdio
        ? 'missing the tool name: mcp-tasks call --stdio "<command>" <tool> [key=value…]'
        : 'missing the tool name: mcp-tasks call <server> <tool> [key=value…]',
    );
  return { server, tool, pairs };
}

/** Runs `call`; resolves with the exit code. */
export function callCommand(positionals: string[], options: CallCommandOptions): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  let target: ServerTarget | undefined;
  return runReporting(
    output,
    async () => {
      const { server, tool, pairs } = splitCallArguments(positionals, options.stdio !== undefined);
      parseToolArguments(pairs, options.args); // usage errors before any request
      const cancelWaitMs =
        options.cancelWait !== undefined
          ? parseMs('--cancel-wait', options.cancelWait)
          : DEFAULT_CANCEL_WAIT_MS;
      const timeoutMs =
        options.timeout !== undefined ? parseDuration('--timeout', options.timeout) : undefined;
      target = await resolveTarget(server, options);
      if (options.detach && target.kind === 'stdio') {
        throw new UsageError(
          '--detach needs a server that outlives this command; a --stdio server process ends with it (and its tasks with it)',
        );
      }
      const session = await openSession(output, target, options, timeoutMs);
      try {
        // Until the server answers there is no task to cancel: Ctrl-C aborts the request, and a question that cannot
        // be answered (an MRTR round) ends the call.
        const schema = await inputSchemaOf(session, tool);
        const args = parseToolArguments(pairs, options.args, schema);
        checkToolArguments(tool, args, schema);
        if (options.detach && session.client.era === 'legacy')
          throw new UsageError(`--detach cannot work here. ${LEGACY_NO_RESUME}`);
        const abort = new AbortController();
        // Interrupted before the answer, a task the server starts is cancelled, or with --detach left running.
        const onAbort = options.detach ? 'detach' : 'cancel';
        const onEarlyAbort = (): void => {
          output.emit({ event: 'hint', message: earlyInterruptLine('tools/call', session.interrupt.source) });
          abort.abort(session.signal.reason);
        };
        if (session.signal.aborted) abort.abort(session.signal.reason);
        else session.signal.addEventListener('abort', onEarlyAbort, { once: true });
        void session.answerer?.stopped.then((error) => abort.abort(error));
        // Questions of a new task wait until its header line is out (MRTR questions are answered at once).
        const start = await session
          .waitFor(
            'tools/call',
            session.client.startTool(tool, args, {
              signal: abort.signal,
              onAbort,
              // Progress of a call answered inline, shown as a task's status is (a task reports its status instead).
              onProgress: (p) =>
                output.emit({
                  event: 'progress',
                  progress: p.progress,
                  total: p.total,
                  message: p.message,
                  elapsedMs: Date.now() - output.startedAt,
                }),
              onTask: () => session.answerer?.hold(),
            }),
          )
          .catch((error: unknown) => {
            // A question asked before the server answered the call (a multi-round call) that nobody here can answer.
            if (error instanceof UnanswerableError && !session.signal.aborted)
              output.emit({
                event: 'hint',
                message: `Run the call again with --answers answers.json, ${answersFileExample(error, undefined, session.client.era)}`,
              });
            throw session.signal.aborted
              ? afterEarlyInterrupt(error, output, {
                  target: session.target,
                  era: session.client.era,
                  onAbort,
                  source: session.interrupt.source,
                })
              : error;
          })
          .finally(() => session.signal.removeEventListener('abort', onEarlyAbort));
        if (start.resultType === 'complete') {
          const exitCode = start.result.isError === true ? ExitCode.ToolError : ExitCode.Completed;
          output.emit({ event: 'result', exitCode, result: start.result });
          return exitCode;
        }
        const handle = start.task;
        // Detached text output is only the task id on stdout, so `id=$(mcp-tasks call … --detach)` works.
        if (!options.detach || output.json) output.emit(taskEvent(handle, session.target, tool, false));
        if (options.detach) {
          output.emit({ event: 'detached', taskId: handle.taskId });
          const ctx = { target: session.target, era: session.client.era };
          output.emit({
            event: 'hint',
            message: `Task ${handle.taskId} is running (${handle.status}); detached.\nFollow it:\n${comeBack(ctx, handle.taskId, 'watch')}\nCancel it:\n${comeBack(ctx, handle.taskId, 'cancel')}`,
          });
          return ExitCode.Completed;
        }
        session.answerer?.release();
        return await followTask(session, handle, { cancelWaitMs });
      } finally {
        await session.close();
      }
    },
    () => target,
  );
}
