/**
 * `mcp-tasks bridge <server>`: an MCP server a host starts like any other (stdio by default, Streamable HTTP with
 * `--http`), in front of a task server the host cannot speak to itself. See docs/bridge.md.
 *
 * Stdout belongs to the MCP channel over stdio: every line for the operator goes to stderr.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { safeLine, safeText, TaskClient, VERSION } from 'mcp-tasks-client';
import { sessionAuth } from '../auth/sign-in.js';
import { Bridge, type BridgeOptions } from '../bridge/bridge-server.js';
import { serveHttp } from '../bridge/http-host.js';
import { parseDuration } from '../duration.js';
import { explainError } from '../explain-error.js';
import { ExitCode, UsageError, type ExitCodeValue } from '../exit-codes.js';
import { Output } from '../output.js';
import { openRecordStore } from '../record-store.js';
import { runReporting } from '../session.js';
import { openTransport, resolveTarget, type ServerOptions, type ServerTarget } from '../server/target.js';

/** Options of `bridge`, as commander gives them. */
export interface BridgeCommandOptions extends ServerOptions {
  timeout?: string;
  prefix?: string;
  maxWait: string;
  maxWaitProgress: string;
  keepAlive: string;
  onAbort: string;
  taskTtl: string;
  http?: boolean;
  port: string;
  host: string;
  allowOrigin?: string[];
}

/** The environment variable that gives the HTTP bearer token instead of a generated one. */
export const TOKEN_ENV = 'MCP_TASKS_BRIDGE_TOKEN';

function bridgeOptions(options: BridgeCommandOptions, log: (line: string) => void): BridgeOptions {
  if (options.onAbort !== 'cancel' && options.onAbort !== 'detach')
    throw new UsageError(`--on-abort must be "cancel" or "detach", got ${JSON.stringify(options.onAbort)}`);
  const maxWaitMs = parseDuration('--max-wait', options.maxWait);
  const keepAliveMs = parseDuration('--keep-alive', options.keepAlive);
  if (keepAliveMs <= 0 || keepAliveMs > 15_000)
    throw new UsageError('--keep-alive must be above 0 and at most 15s');
  return {
    prefix: options.prefix ?? '',
    maxWaitMs,
    progressMaxWaitMs: Math.max(maxWaitMs, parseDuration('--max-wait-progress', options.maxWaitProgress)),
    keepAliveMs,
    onAbort: options.onAbort,
    nativeTtlMs: parseDuration('--task-ttl', options.taskTtl),
    nativePollIntervalMs: 1_000,
    log,
  };
}

/** Runs `bridge` until the host goes away (stdio) or a signal stops it (HTTP); resolves with the exit code. */
export function bridgeCommand(
  server: string | undefined,
  options: BridgeCommandOptions,
): Promise<ExitCodeValue> {
  // Over stdio the host reads stdout: the CLI's own output (errors included) goes to stderr only.
  const output = new Output({ json: false, stdout: process.stderr });
  // Upstream text (error messages, tool names) is escaped: no control or bidi character reaches the terminal.
  const log = (line: string): void => void process.stderr.write(`mcp-tasks bridge: ${safeText(line)}\n`);
  let target: ServerTarget | undefined;
  return runReporting(
    output,
    async () => {
      const settings = bridgeOptions(options, log);
      const timeoutMs =
        options.timeout !== undefined ? parseDuration('--timeout', options.timeout) : undefined;
      target = await resolveTarget(server, options);
      const upstream = target;
      settings.upstream = target.label;
      settings.explain = (error) => explainError(error, upstream);
      const store = openRecordStore((file, reason) => log(`skipped task record ${file}: ${reason}`));
      // Upstream credentials (stored OAuth tokens, --header, a config's env) stay in this client: the host never
      // sees them, and the bridge only ever talks to this one server.
      const client = new TaskClient({
        transport: openTransport(target, target.kind === 'http' ? await sessionAuth(target.url) : undefined),
        clientInfo: { name: 'mcp-tasks-bridge', version: VERSION },
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(target.era !== undefined ? { era: target.era } : {}),
        capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
        store,
      });
      client.on('warning', (message) => log(`warning: ${message}`));
      const info = { name: 'mcp-tasks-bridge', version: VERSION };
      const stopped = new Promise<string>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
          process.once(signal, () => resolve(`stopped by ${signal}`));
      });
      // Once the bridge is ending, the start-up probe's late answer (a closed client) is no news.
      let ending = false;
      try {
        if (!options.http) {
          const bridge = new Bridge(client, info, settings);
          const transport = new StdioServerTransport();
          const closed = new Promise<string>((resolve) => {
            transport.onclose = () => resolve('the host closed stdin');
            process.stdin.once('end', () => resolve('the host closed stdin'));
          });
          await bridge.server.connect(transport);
          log(`serving ${safeLine(target.label)} over stdio`);
          void probeUpstream(client, target, (line) => ending || log(line));
          const why = await Promise.race([closed, stopped]);
          ending = true;
          log(`${why}: ending open calls`);
          await bridge.close(why);
          await bridge.server.close().catch(() => undefined);
        } else {
          const token = process.env[TOKEN_ENV] || randomBytes(24).toString('base64url');
          const host = await serveHttp({
            host: options.host,
            port: Number.parseInt(options.port, 10),
            token,
            allowedOrigins: options.allowOrigin ?? [],
            newBridge: () => new Bridge(client, info, settings),
            log,
          });
          log(`serving ${safeLine(target.label)} at ${host.url}`);
          void probeUpstream(client, target, log);
          if (!process.env[TOKEN_ENV]) log(`bearer token: ${token}`);
          const why = await stopped;
          log(`${why}: ending open calls`);
          await host.close();
        }
      } finally {
        await client.close().catch(() => undefined);
      }
      return ExitCode.Completed;
    },
    () => target,
  );
}

/**
 * Asks the upstream for its tools once at start, so an operator sees at once whether it answers: one line on stderr,
 * naming the upstream, either way. The bridge serves the host in both cases (the host's `tools/list` fails with the
 * same words until the upstream answers).
 */
async function probeUpstream(
  client: TaskClient,
  target: ServerTarget,
  log: (line: string) => void,
): Promise<void> {
  try {
    const tools = await client.listTools();
    log(`upstream ${safeLine(target.label)} answered: ${tools.length} tool${tools.length === 1 ? '' : 's'}`);
  } catch (error) {
    log(
      `upstream ${safeLine(target.label)} did not answer tools/list: ${safeLine(explainError(error, target))} (the bridge runs on; the host's tools/list fails until the upstream answers)`,
    );
  }
}
