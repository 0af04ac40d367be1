#!/usr/bin/env node
/**
 * `mcp-tasks`: the command line. Parses the arguments, runs one command, and exits with its exit code (see
 * `mcp-tasks --help`).
 *
 * @module
 */
import { type Command, CommanderError } from 'commander';
import { disambiguateJsonFlag } from './arguments.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { Output } from './output.js';
import { buildProgram } from './program.js';
import { unquotedStdioProblem } from './stdio-argv.js';
import { usageHint } from './usage-hints.js';
import { bareTimeoutWarning } from './duration.js';
import { formatWithOptions } from 'node:util';
import { redactSecrets, safeText } from 'mcp-tasks-client';

/**
 * Runs the CLI with `argv` (the arguments after `node` and the script) and resolves with the exit code.
 * Commander's own errors (unknown option, missing argument) are usage errors (2); `--help` and `--version` are 0.
 * An unquoted `--stdio` command line is a usage error found before commander reads it (see {@link unquotedStdioProblem}).
 */
export async function runCli(argv: readonly string[]): Promise<ExitCodeValue> {
  let exitCode: ExitCodeValue = ExitCode.Completed;
  const program = buildProgram((code) => (exitCode = code));
  // Which command's parsing failed, for the hint after commander's own message.
  let failed: Command = program;
  for (const command of [program, ...program.commands])
    command.exitOverride((error) => {
      failed = command;
      throw error;
    });
  const args = disambiguateJsonFlag(argv);
  const bareTimeout = bareTimeoutWarning(args);
  if (bareTimeout !== undefined) process.stderr.write(`warning: ${bareTimeout}\n`);
  const unquoted = unquotedStdioProblem(args, program);
  if (unquoted !== undefined) {
    new Output({ json: args.includes('--json') }).emit({
      event: 'error',
      exitCode: ExitCode.Usage,
      code: 'USAGE',
      message: unquoted,
    });
    return ExitCode.Usage;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      const hint = usageHint(error, failed, program, args);
      if (hint !== undefined) process.stderr.write(`${hint}\n`);
      return error.exitCode === 0 ? ExitCode.Completed : ExitCode.Usage;
    }
    throw error;
  }
  return exitCode;
}

/**
 * Resolves once everything written to `stream` so far has been handed to the OS (a pipe to a slow reader may hold
 * megabytes in Node's buffer), or the stream failed or closed (a reader that went away).
 */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('error', () => resolve());
    stream.once('close', () => resolve());
    stream.write('', () => resolve());
  });
}

/** Sets the exit code, waits until stdout and stderr drained, and only then ends the process. */
async function finish(code: number): Promise<void> {
  process.exitCode = code;
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  // Everything is written; end now even if a keep-alive socket or a child's pipe would hold the loop open.
  process.exit(code);
}

for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    // The reader went away (`mcp-tasks ls | head -1`), or the terminal closed (SIGHUP: EIO): nothing more can be
    // shown, and the command still ends as it would (the task record says what became of the task); the exit code
    // stays as set.
    if (error.code === 'EPIPE' || error.code === 'EIO') process.exitCode ??= ExitCode.Completed;
  });

// Libraries (the official SDK's OAuth client) warn through console.warn, sometimes quoting a server's error page that
// echoes a token request: their words reach stderr with secrets taken out and control characters escaped.
console.warn = (...args: unknown[]) => {
  process.stderr.write(`${safeText(redactSecrets(formatWithOptions({ colors: false }, ...args)))}\n`);
};

runCli(process.argv.slice(2)).then(
  (code) => finish(code),
  (error: unknown) => {
    process.stderr.write(
      `mcp-tasks: unexpected error: ${safeText(redactSecrets(error instanceof Error ? (error.stack ?? error.message) : String(error)))}\n`,
    );
    return finish(ExitCode.Transport);
  },
);
