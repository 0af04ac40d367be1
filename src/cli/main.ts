#!/usr/bin/env node
/**
 * `mcp-tasks`: the command line. Parses the arguments, runs one command, and exits with its exit code (see
 * `mcp-tasks --help`).
 *
 * @module
 */
import { CommanderError } from 'commander';
import { disambiguateJsonFlag } from './arguments.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { buildProgram } from './program.js';

/**
 * Runs the CLI with `argv` (the arguments after `node` and the script) and resolves with the exit code.
 * Commander's own errors (unknown option, missing argument) are usage errors (2); `--help` and `--version` are 0.
 */
export async function runCli(argv: readonly string[]): Promise<ExitCodeValue> {
  let exitCode: ExitCodeValue = ExitCode.Completed;
  const program = buildProgram((code) => (exitCode = code));
  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(disambiguateJsonFlag(argv), { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.Completed : ExitCode.Usage;
    }
    throw error;
  }
  return exitCode;
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(ExitCode.Completed);
});

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`mcp-tasks: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(ExitCode.Transport);
  },
);
