/**
 * The command line grammar (commander): commands, options, help text with the exit-code table.
 *
 * @module
 */
import { Command, Option } from 'commander';
import { VERSION } from '../index.js';
import { callCommand } from './commands/call.js';
import { cancelCommand } from './commands/cancel.js';
import { logoutCommand } from './commands/logout.js'; // hook: issue-17
import { lsCommand } from './commands/ls.js';
import { statusCommand } from './commands/status.js';
import { watchCommand } from './commands/watch.js';
import { EXIT_CODES_HELP, type ExitCodeValue } from './exit-codes.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Adds the options of commands that answer the server's questions. */
function withInputOptions(command: Command): Command {
  return command
    .option('--answers <file.json>', 'answer questions from this file (by input key, or by form field name) instead of prompting')
    .option('--no-input', 'never prompt; a question without an answer ends the command with exit code 7')
    .option('--sampling-command <cmd>', 'answer sampling/createMessage by running <cmd> (request JSON on stdin, result JSON on stdout); without it, sampling is declined')
    .option('--root <path>', 'a directory to offer for roots/list (repeatable); without it, roots/list gets an empty list', collect)
    .option('--cancel-wait <ms>', 'after Ctrl-C, how long to wait for the final status', '3000');
}

const HELP_AFTER = `
Examples:
  mcp-tasks call http://127.0.0.1:3000/mcp reindex_corpus documents=1500
  mcp-tasks call http://127.0.0.1:3000/mcp deploy_release --json '{"version": "1.4.0"}' --answers answers.json
  mcp-tasks call http://127.0.0.1:3000/mcp reindex_corpus documents=100000 --detach
  mcp-tasks watch <taskId>
  mcp-tasks ls

While a task runs: Ctrl-C once sends tasks/cancel and waits briefly for the final status; Ctrl-C twice leaves the
task running and prints how to resume it.

Task records live in $MCP_TASKS_HOME/tasks (default: the user data directory of "mcp-tasks"); authorization for
servers that ask for it (OAuth) in $MCP_TASKS_HOME/auth, one 0600 file per server (mcp-tasks logout <server>).

${EXIT_CODES_HELP}
`;

/**
 * Builds the `mcp-tasks` program. Each action stores its exit code through `setExitCode`.
 *
 * @example
 * const program = buildProgram((code) => (exitCode = code));
 * await program.parseAsync(process.argv);
 */
export function buildProgram(setExitCode: (code: ExitCodeValue) => void): Command {
  const program = new Command('mcp-tasks')
    .description('Run, watch, answer, cancel and resume MCP tasks (MCP 2026-07-28 + Tasks extension).')
    .version(VERSION)
    .showSuggestionAfterError()
    .addHelpText('after', HELP_AFTER);

  withInputOptions(
    program
      .command('call')
      .description('call a tool; if it becomes a task, follow it to the end')
      .argument('<server>', 'the server endpoint, an http(s) URL')
      .argument('<tool>', 'the tool name')
      .argument('[key=value...]', 'tool arguments; values are parsed as JSON when they parse, else kept as strings')
      .addOption(new Option('--args <json>', 'tool arguments as one JSON object (also accepted as --json \'{…}\')'))
      .option('--json', 'machine-readable output: one JSON object per line, the final result last')
      .option('--detach', 'print the task id and exit as soon as the call became a task'),
  ).action(async (server: string, tool: string, pairs: string[], options) => setExitCode(await callCommand(server, tool, pairs, options)));

  withInputOptions(
    program
      .command('watch')
      .description('follow a task to its end, answering its questions')
      .argument('<taskId>')
      .option('--server <url>', 'the server to ask (default: from the local record)')
      .option('--json', 'machine-readable output'),
  ).action(async (taskId: string, options) => setExitCode(await watchCommand(taskId, options)));

  program
    .command('status')
    .description("show a task's current status (and its result once completed)")
    .argument('<taskId>')
    .option('--server <url>', 'the server to ask (default: from the local record)')
    .option('--json', 'machine-readable output')
    .action(async (taskId: string, options) => setExitCode(await statusCommand(taskId, options)));

  program
    .command('cancel')
    .description('cancel a task (tasks/cancel) and wait briefly for its final status')
    .argument('<taskId>')
    .option('--server <url>', 'the server to ask (default: from the local record)')
    .option('--wait <ms>', 'how long to wait for the final status', '3000')
    .option('--json', 'machine-readable output')
    .action(async (taskId: string, options) => setExitCode(await cancelCommand(taskId, options)));

  program
    .command('ls')
    .description('list recorded tasks with their last known status and whether their TTL has passed')
    .option('--prune', 'first remove records whose TTL has passed')
    .option('--json', 'machine-readable output: one record per line')
    .action(async (options) => setExitCode(await lsCommand(options)));

  // hook: issue-17 — forget a server's stored authorization
  program
    .command('logout')
    .description("forget the stored authorization (tokens, client registration) for a server")
    .argument('<server>', 'the server endpoint, an http(s) URL')
    .option('--json', 'machine-readable output')
    .action(async (server: string, options) => setExitCode(await logoutCommand(server, options)));

  return program;
}
