#!/usr/bin/env node
/**
 * `mcp-tasks-reference-server`: the reference task server as a command, over stdio or loopback HTTP.
 *
 * ```sh
 * npx mcp-tasks-reference-server --stdio --poll-interval-ms 100
 * npx mcp-tasks-reference-server --http --port 3000 --cors http://localhost:5173
 * ```
 *
 * In stdio mode stdout carries only protocol messages; logs go to stderr; the server exits when stdin ends.
 * In HTTP mode the first stdout line is `listening on <url>`; SIGINT or SIGTERM stop it.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { createTaskServer } from './http-server.js';
import type { TaskServerCoreOptions } from './options.js';
import { runStdioServer } from './stdio-server.js';

const USAGE = `Usage: mcp-tasks-reference-server (--stdio | --http) [options]

Transports:
  --stdio                     newline-delimited JSON-RPC on stdin/stdout (logs on stderr)
  --http                      Streamable HTTP on loopback (default)
    --host <host>             interface to listen on (default 127.0.0.1)
    --port <n>                TCP port, 0 = any free port (default 0)
    --path <path>             endpoint path (default /mcp)
    --cors <origin|*>         allow this browser origin (or any with *), answer preflights
    --sse                     answer every request as text/event-stream

Server behaviour:
  --poll-interval-ms <n>      pollIntervalMs put in every task (default 250)
  --ttl-ms <n|none>           task retention from creation (default 300000)
  --inline-budget-ms <n>      jobs finishing within this are answered inline (default 50)
  --input-timeout-ms <n>      unanswered input requests fail the task after this (default 60000)
  --time-scale <x>            multiplier for every job duration, e.g. 0.1 (default 1)
  --fixtures conformance      add the conformance-suite fixture tools
  --no-demo                   leave out the demo tools, resources and prompts
  --expose-stats              stdio only: answer "reference/stats" with the request counters (for tests)
  -h, --help                  show this help
`;

class UsageError extends Error {}

function number(name: string, value: string | undefined, integer = true): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} expects ${integer ? 'an integer' : 'a number'}, got "${value}"`);
  }
  return n;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      stdio: { type: 'boolean' },
      http: { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
      path: { type: 'string' },
      cors: { type: 'string' },
      sse: { type: 'boolean' },
      'poll-interval-ms': { type: 'string' },
      'ttl-ms': { type: 'string' },
      'inline-budget-ms': { type: 'string' },
      'input-timeout-ms': { type: 'string' },
      'time-scale': { type: 'string' },
      fixtures: { type: 'string' },
      'no-demo': { type: 'boolean' },
      'expose-stats': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.stdio && values.http) throw new UsageError('choose one of --stdio and --http');
  if (values.fixtures !== undefined && values.fixtures !== 'conformance' && values.fixtures !== 'none') {
    throw new UsageError(`--fixtures expects "conformance" or "none", got "${values.fixtures}"`);
  }
  const ttl = values['ttl-ms'];
  const core: TaskServerCoreOptions = {
    pollIntervalMs: number('poll-interval-ms', values['poll-interval-ms']),
    ttlMs: ttl === 'none' ? null : number('ttl-ms', ttl),
    inlineBudgetMs: number('inline-budget-ms', values['inline-budget-ms']),
    inputTimeoutMs: number('input-timeout-ms', values['input-timeout-ms']),
    timeScale: number('time-scale', values['time-scale'], false),
    fixtures: values.fixtures as TaskServerCoreOptions['fixtures'],
    demo: values['no-demo'] ? false : undefined,
  };
  for (const key of Object.keys(core) as Array<keyof TaskServerCoreOptions>)
    if (core[key] === undefined) delete core[key];

  if (values.stdio) {
    for (const flag of ['host', 'port', 'path', 'cors', 'sse'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to --http only`);
    }
    const server = runStdioServer({ ...core, exposeStats: values['expose-stats'] ?? false });
    process.stderr.write('mcp-tasks-reference-server: serving MCP over stdio\n');
    const stop = (): void => {
      server.core.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await server.closed;
    process.exit(0);
  }

  if (values['expose-stats']) throw new UsageError('--expose-stats applies to --stdio only');
  const server = await createTaskServer({
    ...core,
    host: values.host,
    port: number('port', values.port),
    path: values.path,
    cors: values.cors === '*' ? true : values.cors,
    sse: values.sse,
  });
  process.stdout.write(`listening on ${server.url}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage =
    error instanceof UsageError || (error instanceof TypeError && /option|argument/i.test(error.message));
  process.stderr.write(
    `mcp-tasks-reference-server: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  if (usage) process.stderr.write('Run with --help for usage.\n');
  process.exit(usage ? 2 : 1);
});
