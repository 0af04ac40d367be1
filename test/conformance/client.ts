/**
 * The conformance client: what `@modelcontextprotocol/conformance client --command "…"` runs. It uses only the public
 * API of this package (`src/index.ts`) and is invoked the way the suite invokes clients: the server URL is the last
 * argument, `MCP_CONFORMANCE_SCENARIO` names the scenario, `MCP_CONFORMANCE_CONTEXT` (JSON) carries scenario data,
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` the revision the runner resolved. Exit code 0 = the flow ran to the end.
 *
 * Usage: `node --import tsx test/conformance/client.ts <server-url>` (see scripts/conformance.ts).
 */
import {
  isMcpClientError,
  StreamableHttpTransport,
  TaskClient,
  type CallToolResult,
  type ElicitRequestParams,
  type ElicitResult,
  type Tool,
} from '../../src/index.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/protocol/constants.js';
import { authOptionsFor, runAuthScenario } from './auth-scenarios.js';

type ScenarioRunner = (client: TaskClient, context: Record<string, unknown>) => Promise<void>;

/** A scenario's hook that runs before the elicitation handler answers (once per question). */
let beforeElicitAnswer: (() => Promise<void>) | undefined;

const log = (...parts: unknown[]): void => console.error('[conformance-client]', ...parts);

/** A form answer built from the requested schema: `true` for booleans, a placeholder for the rest. */
function answerForm(params: ElicitRequestParams): ElicitResult {
  const content: Record<string, unknown> = {};
  const props =
    (params.requestedSchema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ??
    {};
  for (const [name, schema] of Object.entries(props)) {
    content[name] =
      schema.type === 'boolean'
        ? true
        : schema.type === 'number' || schema.type === 'integer'
          ? 1
          : 'conformance';
  }
  return { action: 'accept', content } as ElicitResult;
}

/** Sample arguments for a tool: one value per required property, by JSON Schema type. */
function sampleArguments(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: unknown }>; required?: unknown };
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const type = schema.properties?.[name]?.type;
    args[name] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : 'conformance';
  }
  return args;
}

function firstText(result: CallToolResult): string {
  const block = result.content.find((c) => c.type === 'text') as { text?: unknown } | undefined;
  return typeof block?.text === 'string' ? block.text : '';
}

async function listNames(
  client: TaskClient,
  method: 'resources/list' | 'prompts/list',
  key: 'resources' | 'prompts',
  field: 'uri' | 'name',
): Promise<string[]> {
  const result = await client.request(method);
  const items = Array.isArray(result[key]) ? (result[key] as Array<Record<string, unknown>>) : [];
  return items.map((item) => item[field]).filter((v): v is string => typeof v === 'string');
}

const scenarios: Record<string, ScenarioRunner> = {
  /** `tools/list`, then `add_numbers` with numeric arguments. */
  tools_call: async (client) => {
    const tools = await client.listTools();
    const tool = tools.find((t) => t.name === 'add_numbers') ?? tools[0];
    if (!tool) throw new Error('tools_call: the server lists no tools');
    const result = await client.callTool(tool.name, { a: 2, b: 3 });
    log('tools/call:', firstText(result));
  },

  /** Every POST carries the header and `_meta`; the first one is rejected with -32022 and must be retried (1.8). */
  'request-metadata': async (client) => {
    await client.discover();
    await client.listTools();
  },

  /** MRTR: exact `requestState` echo with a new id, no leak into an unrelated call, none sent when none came. */
  'sep-2322-client-request-state': async (client) => {
    await client.listTools();
    // The unrelated call runs while the echo-state round waits for its answer ("between rounds").
    let unrelated: string | undefined;
    beforeElicitAnswer = async () => {
      beforeElicitAnswer = undefined;
      unrelated = firstText(await client.callTool('test_mrtr_unrelated', {}));
    };
    log('echo_state:', firstText(await client.callTool('test_mrtr_echo_state', {})));
    if (unrelated === undefined) throw new Error('test_mrtr_echo_state asked no question');
    log('unrelated:', unrelated);
    log('no_state:', firstText(await client.callTool('test_mrtr_no_state', {})));
    log('no_result_type:', firstText(await client.callTool('test_mrtr_no_result_type', {})));
  },

  /** `Mcp-Method` on every request; `Mcp-Name` on `tools/call`, `resources/read`, `prompts/get`. */
  'http-standard-headers': async (client) => {
    for (const tool of await client.listTools()) await client.callTool(tool.name, sampleArguments(tool));
    for (const uri of await listNames(client, 'resources/list', 'resources', 'uri'))
      await client.readResource(uri);
    for (const name of await listNames(client, 'prompts/list', 'prompts', 'name'))
      await client.getPrompt(name);
  },

  /** `x-mcp-header` arguments mirrored into `Mcp-Param-*` with the 2.6 encoding, null omitted. */
  'http-custom-headers': async (client, context) => {
    await client.listTools();
    const calls = Array.isArray(context.toolCalls)
      ? (context.toolCalls as Array<{ name: string; arguments?: Record<string, unknown> }>)
      : [];
    if (calls.length === 0) throw new Error('http-custom-headers: MCP_CONFORMANCE_CONTEXT has no toolCalls');
    for (const call of calls) await client.callTool(call.name, call.arguments ?? {});
  },

  /** Tools with invalid `x-mcp-header` annotations are dropped by `listTools()`; every kept tool is called. */
  'http-invalid-tool-headers': async (client) => {
    client.on('warning', (message) => log('warning:', message));
    for (const tool of await client.listTools()) await client.callTool(tool.name, sampleArguments(tool));
  },

  /** List tools; a network `$ref` in a schema is never fetched (schemas are kept as received). */
  'json-schema-ref-no-deref': async (client) => {
    const tools = await client.listTools();
    log('tools:', tools.map((t) => t.name).join(', '));
  },

  /** Echo the observed `inputSchema` of the focal tool unaltered. */
  'json-schema-2020-12-preservation': async (client) => {
    const focal = (await client.listTools()).find((t) => t.name === 'json_schema_2020_12_tool');
    if (!focal) throw new Error('json_schema_2020_12_tool is not listed');
    await client.callTool('json_schema_echo', { schema: focal.inputSchema });
  },
};

async function main(): Promise<number> {
  const serverUrl = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const context = process.env.MCP_CONFORMANCE_CONTEXT
    ? (JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) as Record<string, unknown>)
    : {};
  if (!serverUrl || process.argv.length < 3) {
    log('usage: client.ts <server-url> (with MCP_CONFORMANCE_SCENARIO set)');
    return 2;
  }
  const isAuth = scenario.startsWith('auth/');
  const run = isAuth ? (client: TaskClient) => runAuthScenario(client, log) : scenarios[scenario];
  if (!run) {
    log(`unknown scenario "${scenario}"; known: ${Object.keys(scenarios).join(', ')}`);
    return 2;
  }
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    log(
      `the runner resolved protocol ${version}; this client speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} (run with --spec-version 2026-07-28)`,
    );
    return 2;
  }
  const client = new TaskClient({
    transport: new StreamableHttpTransport(
      serverUrl,
      isAuth ? { auth: authOptionsFor(scenario, context) } : {},
    ),
    clientInfo: { name: 'mcp-tasks-client-conformance', version: '0.1.0' },
    timeoutMs: 20_000,
    // Handlers declare elicitation, sampling and roots on every request (1.3); the conformance client opts in.
    handlers: {
      elicitation: async (params) => {
        await beforeElicitAnswer?.();
        return answerForm(params);
      },
      sampling: () => ({
        role: 'assistant',
        content: { type: 'text', text: 'conformance' },
        model: 'conformance',
      }),
      roots: () => ({ roots: [] }),
    },
  });
  try {
    await run(client, context);
    log(`${scenario}: done (protocol ${client.protocolVersion})`);
    return 0;
  } catch (error) {
    log(
      `${scenario}: failed:`,
      isMcpClientError(error) ? `${error.name} [${String(error.code)}] ${error.message}` : error,
    );
    return 1;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    log(error);
    process.exitCode = 1;
  },
);
