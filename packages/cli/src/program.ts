/**
 * The command line grammar (commander): commands, options, help text with the exit-code table.
 *
 * @module
 */
import { Command, Option } from 'commander';
import { VERSION } from 'mcp-tasks-client';
import { bridgeCommand } from './commands/bridge.js';
import { callCommand } from './commands/call.js';
import { inboxCommand } from './commands/inbox.js';
import { cancelCommand } from './commands/cancel.js';
import { logoutCommand } from './commands/logout.js';
import { lsCommand } from './commands/ls.js';
import { statusCommand } from './commands/status.js';
import { toolsCommand } from './commands/tools.js';
import { watchCommand } from './commands/watch.js';
import { EXIT_CODES_HELP, type ExitCodeValue } from './exit-codes.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Adds the options that name a server other than by a positional URL or config name. */
function withServerOptions(command: Command, serverFlag: boolean): Command {
  if (serverFlag)
    command.option(
      '--server <url|name>',
      'the server: an http(s) URL or a server name from an MCP config file (default: from the local record)',
    );
  return command
    .option(
      '--stdio <command line>',
      'start this command and talk MCP over its stdin/stdout. The whole command line is ONE argument: quote it, e.g. --stdio "npx my-server --port 0" (no shell runs it: quotes inside are honoured, pipes are not)',
    )
    .option('--env <KEY=VALUE>', 'an environment entry for the --stdio command (repeatable)', collect)
    .option('--cwd <dir>', 'working directory of the --stdio command')
    .option(
      '--inherit-env',
      'give a stdio server all of this environment (default: only HOME, LOGNAME, PATH, SHELL, TERM, USER, plus --env or the config\'s "env")',
    )
    .option(
      '--config <file>',
      "the MCP config file to find server names in (default: .mcp.json, .vscode/mcp.json, .cursor/mcp.json here, then ~/.claude.json, ~/.cursor/mcp.json, Claude Desktop's)",
    )
    .option(
      '--trust-project-config',
      'trust the project config file (./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json) that defines the server, as it is now',
    )
    .option(
      '--header <"Name: value">',
      'an HTTP header sent on every request, e.g. "Authorization: Bearer …" (repeatable)',
      collect,
    )
    .option(
      '--timeout <duration>',
      'give up on a request the server does not answer within this (e.g. 30s, 2m; a bare number is ms; default 60s)',
    )
    .option(
      '--era <auto|modern|legacy>',
      'the MCP version to speak: auto detects it on first contact; modern is 2026-07-28 only (e.g. for a slow-starting --stdio server); legacy is 2025-11-25 only (default auto)',
    );
}

/** Adds the options of commands that answer the server's questions. */
function withInputOptions(command: Command): Command {
  return command
    .option(
      '--answers <file.json>',
      'answer questions from this file (by input key, or by form field name) instead of prompting',
    )
    .option('--no-input', 'never prompt; a question without an answer ends the command with exit code 7')
    .option(
      '--sampling-command <cmd>',
      'answer sampling/createMessage by running <cmd> (request JSON on stdin, result JSON on stdout); without it, sampling is declined',
    )
    .option(
      '--root <path>',
      'a directory to offer for roots/list (repeatable); without it, roots/list gets an empty list',
      collect,
    )
    .option(
      '--cancel-wait <duration>',
      'after the first Ctrl-C, how long to keep polling for the final status (3s, 500ms; a bare number is ms)',
      '3000',
    );
}

const HELP_AFTER = `
Servers: an http(s) URL, --stdio "<command line>" (with --env KEY=VALUE and --cwd), or a server name from an MCP
config file ({"mcpServers": {...}} as Claude Desktop, Claude Code and Cursor write it, or {"servers": {...}} as in
VS Code's .vscode/mcp.json), searched in --config <file>, else in order: ./.mcp.json, ./.vscode/mcp.json,
./.cursor/mcp.json, ~/.claude.json, ~/.cursor/mcp.json, Claude Desktop's claude_desktop_config.json.
The --stdio command line is one argument, in quotes: --stdio "npx my-server --stdio". Left unquoted, its words
would be read as this command's own; a second --stdio, or an option of the server's after it, is refused (exit 2)
with the quoting to use.

Examples:
  mcp-tasks tools http://127.0.0.1:3000/mcp
  mcp-tasks call http://127.0.0.1:3000/mcp reindex_corpus documents=1500
  mcp-tasks call --stdio "npx mcp-tasks-reference-server --stdio" reindex_corpus documents=200
  mcp-tasks call my-server deploy_release --json '{"version": "1.4.0"}' --answers answers.json
  mcp-tasks call http://127.0.0.1:3000/mcp reindex_corpus documents=100000 --detach
  mcp-tasks watch <taskId>
  mcp-tasks ls

While a task runs: the first Ctrl-C sends tasks/cancel and keeps polling up to --cancel-wait for the server's
final status; a second Ctrl-C stops waiting at once (the cancel request stays sent; the server decides how the
task ends), exits 130 and prints the task id, whether tasks/cancel was acknowledged, and the command that fits
(status to see how it ended, or cancel to try again). Ctrl-C before the server answered stops waiting; an answer within 5 s is still read (a task it names is cancelled).
SIGTERM (kill) and SIGHUP (terminal closed) count as the first Ctrl-C (with --detach: the task is left running and
recorded); the command ends within 5 s, says what became of the task (also kept in its record) and exits 143 / 129.

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

  withServerOptions(
    withInputOptions(
      program
        .command('call')
        .usage(
          '<server> <tool> [key=value...] [options]  |  call --stdio "<command line>" <tool> [key=value...] [options]',
        )
        .description('call a tool; if it becomes a task, follow it to the end')
        .argument(
          '[server]',
          'the server: an http(s) URL or a server name from an MCP config file (leave it out with --stdio)',
        )
        .argument('[tool]', 'the tool name (see: mcp-tasks tools <server>)')
        .argument(
          '[key=value...]',
          'tool arguments; values are parsed as JSON when they parse, else kept as strings',
        )
        .addOption(
          new Option('--args <json>', "tool arguments as one JSON object (also accepted as --json '{…}')"),
        )
        .option('--json', 'machine-readable output: one JSON object per line, the final result last')
        .option(
          '--detach',
          'print the task id and exit as soon as the call became a task (not with --stdio or 2025-11-25 servers)',
        ),
    ),
    false,
  ).action(async (server: string | undefined, tool: string | undefined, pairs: string[], options) =>
    setExitCode(
      await callCommand(
        [server, tool, ...pairs].filter((p): p is string => p !== undefined),
        options,
      ),
    ),
  );

  withServerOptions(
    program
      .command('tools')
      .usage('<server> [options]  |  tools --stdio "<command line>" [options]')
      .description("list the server's tools: task support, required arguments, read-only / idempotent hints")
      .argument(
        '[server]',
        'the server: an http(s) URL or a server name from an MCP config file (leave it out with --stdio)',
      )
      .option('--json', 'machine-readable output: one JSON object per tool'),
    false,
  ).action(async (server: string | undefined, options) => setExitCode(await toolsCommand(server, options)));

  withServerOptions(
    withInputOptions(
      program
        .command('watch')
        .description('follow a task to its end, answering its questions')
        .argument('<taskId>')
        .option('--json', 'machine-readable output'),
    ),
    true,
  ).action(async (taskId: string, options) => setExitCode(await watchCommand(taskId, options)));

  withServerOptions(
    program
      .command('status')
      .description("show a task's current status (and its result once completed)")
      .argument('<taskId>')
      .option('--json', 'machine-readable output'),
    true,
  ).action(async (taskId: string, options) => setExitCode(await statusCommand(taskId, options)));

  withServerOptions(
    program
      .command('cancel')
      .description(
        'cancel a task (tasks/cancel) and wait briefly for its final status; exit 0 once the server reports it cancelled',
      )
      .argument('<taskId>')
      .option(
        '--wait <duration>',
        'how long to wait for the final status (3s, 500ms; a bare number is ms)',
        '3000',
      )
      .option('--json', 'machine-readable output'),
    true,
  ).action(async (taskId: string, options) => setExitCode(await cancelCommand(taskId, options)));

  withServerOptions(
    program
      .command('bridge')
      .usage('<server> [options]  |  bridge --stdio "<command line>" [options]')
      .description(
        'serve a task server to MCP hosts (Claude Desktop, Claude Code, Cursor, VS Code…) as a 2025-06-18 / 2025-11-25 server over stdio or --http (see docs/bridge.md)',
      )
      .argument(
        '[server]',
        'the upstream server: an http(s) URL or a server name from an MCP config file (leave it out with --stdio)',
      )
      .option('--prefix <text>', 'prepended to every tool name the host sees')
      .option(
        '--max-wait <duration>',
        'how long a call waits for its task before returning a pending result (below the usual 60 s host timeout)',
        '50s',
      )
      .option(
        '--max-wait-progress <duration>',
        'the wait for a call whose host sent a progressToken (progress keeps such hosts waiting)',
        '10m',
      )
      .option('--keep-alive <duration>', 'a progress notification at least this often (at most 15s)', '10s')
      .addOption(
        new Option('--on-abort <mode>', "what the host's cancel does to the upstream task")
          .choices(['cancel', 'detach'])
          .default('cancel'),
      )
      .option(
        '--task-ttl <duration>',
        "ttl of the bridge's own 2025-11-25 tasks when the host asks none",
        '1h',
      )
      .option(
        '--http',
        'serve Streamable HTTP instead of stdio (bearer token printed at start, or $MCP_TASKS_BRIDGE_TOKEN)',
      )
      .option('--port <n>', 'the HTTP port (0: any free one)', '0')
      .option('--host <address>', 'the HTTP interface (loopback by default)', '127.0.0.1')
      .option('--allow-origin <origin>', 'an Origin accepted over HTTP (repeatable; default none)', collect),
    false,
  ).action(async (server: string | undefined, options) => setExitCode(await bridgeCommand(server, options)));

  program
    .command('ls')
    .description(
      'list recorded tasks: last known status (and when it was seen), tool, server as you named it, TTL',
    )
    .option('--prune', 'first remove records whose TTL has passed')
    .option(
      '--refresh',
      "first ask each server once about the tasks that may have moved on (not sooner than the task's poll interval)",
    )
    .option(
      '--uncollected',
      'only tasks that ended while no caller awaited them (a detached call, a departed host) and nobody opened since',
    )
    .option('--json', 'machine-readable output: one record per line')
    .action(async (options) => setExitCode(await lsCommand(options)));

  program
    .command('inbox')
    .description(
      'serve a local web page where people answer the questions of running tasks, watch and cancel them (prints a one-time sign-in link)',
    )
    .option(
      '--host <address>',
      'interface to listen on (default 127.0.0.1; anything else is reachable from other machines)',
    )
    .option('--port <n>', 'TCP port (default: a free one)')
    .option('--store <dir>', 'a FileTaskStore directory (default: the task records of this CLI)')
    .option('--redis <url>', 'the tasks of a Redis fleet (redis://…): answers are sent by the lease holder')
    .option('--prefix <prefix>', "the fleet's key prefix with --redis (default mcp-tasks)")
    .action(async (options) => setExitCode(await inboxCommand(options)));

  // Forget a server's stored authorization
  program
    .command('logout')
    .description('forget the stored authorization (tokens, client registration) for a server')
    .argument('<server>', 'the server endpoint, an http(s) URL')
    .option('--json', 'machine-readable output')
    .action(async (server: string, options) => setExitCode(await logoutCommand(server, options)));

  return program;
}
