/**
 * Every message the client sends in a full scripted flow is valid against the published JSON Schemas:
 * mcp-2026-07-28.schema.json (per-method request defs and ClientRequest) and tasks-extension.schema.json
 * (GetTaskRequest, UpdateTaskRequest, CancelTaskRequest; their `_meta` against RequestMetaObject).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskClient } from '../../src/index.js';
import type { JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import { ScriptedTransport, type Reply } from '../helpers/scripted-transport.js';
import { completed, created, detailed, elicit, toolResult } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Finds a schema beside the clone (`../shared/spec`), else in /work/shared/spec; fails loudly when missing. */
function schemaPath(name: string): string {
  const candidates = [
    path.resolve(repoRoot, '..', 'shared', 'spec', name),
    path.join('/work/shared/spec', name),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`schema ${name} not found; looked in: ${candidates.join(', ')}`);
  return found;
}

const MCP_ID = 'https://modelcontextprotocol.io/schema/2026-07-28.json';
const TASKS_ID = 'https://modelcontextprotocol.io/ext-tasks/schema.json';

/** Which schema definition each method's request must satisfy. */
const REQUEST_DEFS: Record<string, { schema: string; def: string }> = {
  'server/discover': { schema: MCP_ID, def: 'DiscoverRequest' },
  'tools/list': { schema: MCP_ID, def: 'ListToolsRequest' },
  'tools/call': { schema: MCP_ID, def: 'CallToolRequest' },
  'resources/read': { schema: MCP_ID, def: 'ReadResourceRequest' },
  'prompts/get': { schema: MCP_ID, def: 'GetPromptRequest' },
  'tasks/get': { schema: TASKS_ID, def: 'GetTaskRequest' },
  'tasks/update': { schema: TASKS_ID, def: 'UpdateTaskRequest' },
  'tasks/cancel': { schema: TASKS_ID, def: 'CancelTaskRequest' },
};

/** ajv is CommonJS: under NodeNext the default import is its `module.exports`, whose `default` is the class. */
const Ajv = Ajv2020.default;
type Validate = ((value: unknown) => boolean) & { errors?: unknown };
let ajv: InstanceType<typeof Ajv>;

function validator(schemaId: string, def: string): Validate {
  const v = ajv.getSchema(`${schemaId}#/$defs/${def}`);
  if (!v) throw new Error(`no definition ${def} in ${schemaId}`);
  return v as Validate;
}

function expectValid(schemaId: string, def: string, value: unknown, label: string): void {
  const validate = validator(schemaId, def);
  const ok = validate(value);
  expect(ok ? null : { label, def, errors: validate.errors }).toBeNull();
}

beforeAll(() => {
  ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('uri', (s: string) => {
    try {
      return new URL(s).protocol.length > 1;
    } catch {
      return false;
    }
  });
  ajv.addFormat('uri-template', true);
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  const mcp = JSON.parse(readFileSync(schemaPath('mcp-2026-07-28.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const tasks = JSON.parse(readFileSync(schemaPath('tasks-extension.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  ajv.addSchema({ ...mcp, $id: MCP_ID });
  ajv.addSchema({ ...tasks, $id: TASKS_ID });
});

describe('wire schema (conformance wire-schema-valid)', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-08-01T09:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('finds both schema files (beside the clone or in /work/shared/spec)', () => {
    expect(existsSync(schemaPath('mcp-2026-07-28.schema.json'))).toBe(true);
    expect(existsSync(schemaPath('tasks-extension.schema.json'))).toBe(true);
  });

  it('the validators are not vacuous: a request without _meta, or with a wrong method, fails', () => {
    const noMeta = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } };
    expect(validator(MCP_ID, 'CallToolRequest')(noMeta)).toBe(false);
    expect(validator(MCP_ID, 'ClientRequest')(noMeta)).toBe(false);
    expect(
      validator(
        TASKS_ID,
        'UpdateTaskRequest',
      )({ jsonrpc: '2.0', id: 1, method: 'tasks/update', params: { taskId: 't' } }),
    ).toBe(false);
    expect(
      validator(MCP_ID, 'RequestMetaObject')({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }),
    ).toBe(false);
    expect(validator(MCP_ID, 'CallToolRequest')({ ...noMeta, id: null })).toBe(false);
  });

  it('1.1, 2.1, 4.4, 4.7, 5.11: every request of a full flow validates against its schema definition', async () => {
    let callRound = 0;
    const transport: ScriptedTransport = new ScriptedTransport((method, params): Reply => {
      switch (method) {
        case 'server/discover':
          return {
            supportedVersions: ['2026-07-28'],
            capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
            serverInfo: { name: 's', version: '1' },
          };
        case 'tools/list':
          return {
            tools: [
              {
                name: 'needs_input',
                inputSchema: {
                  type: 'object',
                  properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
                },
              },
            ],
          };
        case 'tools/call':
          if (params.name === 'long') return created({ taskId: 't-long' });
          callRound++;
          if (callRound === 1) {
            return {
              resultType: 'input_required',
              inputRequests: {
                confirm: elicit('Go?'),
                llm: {
                  method: 'sampling/createMessage',
                  params: {
                    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
                    maxTokens: 10,
                  },
                },
                where: { method: 'roots/list', params: {} },
              },
              requestState: 'opaque-state-1',
            };
          }
          if (callRound === 2) return { resultType: 'input_required', requestState: 'opaque-state-2' };
          return created();
        case 'tasks/get':
          if (params.taskId === 't-long') return detailed({ taskId: 't-long' });
          return transport.of('tasks/update').length === 0
            ? detailed({ status: 'input_required', inputRequests: { approve: elicit('Approve?') } })
            : completed(toolResult('done'));
        case 'resources/read':
          return { contents: [{ uri: String(params.uri), text: 'A' }] };
        case 'prompts/get':
          return { messages: [{ role: 'user', content: { type: 'text', text: 'p' } }] };
        default:
          return {};
      }
    });
    const client = new TaskClient({
      transport,
      handlers: {
        elicitation: () => ({ action: 'accept', content: { ok: true } }),
        sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm-1' }),
        roots: () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }),
      },
    });

    await client.discover();
    await client.listTools();
    const call = client.callTool('needs_input', { region: 'eu' }, { onProgress: () => undefined });
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(call).resolves.toEqual(toolResult('done'));
    const long = await client.startTool('long');
    if (long.resultType !== 'task') throw new Error('expected a task');
    await vi.advanceTimersByTimeAsync(1_000);
    await long.task.cancel();
    await client.readResource('file:///docs/a%20b.txt?rev=2');
    await client.getPrompt('summarise', { topic: 'x' });
    await client.getPrompt('plain');

    const wire = transport.sent.map((s) => JSON.parse(JSON.stringify(s.message)) as JsonRpcRequest);
    expect(wire.map((m) => m.method)).toEqual([
      'server/discover',
      'tools/list',
      'tools/call',
      'tools/call',
      'tools/call',
      'tasks/get',
      'tasks/update',
      'tasks/get',
      'tools/call',
      'tasks/get',
      'tasks/cancel',
      'resources/read',
      'prompts/get',
      'prompts/get',
    ]);
    // Every method the flow was meant to cover was sent, so no validation was skipped.
    expect(new Set(wire.map((m) => m.method))).toEqual(new Set(Object.keys(REQUEST_DEFS)));

    for (const [i, message] of wire.entries()) {
      const label = `#${i} ${message.method}`;
      const target = REQUEST_DEFS[message.method];
      if (!target) throw new Error(`no schema definition mapped for ${message.method}`);
      expectValid(target.schema, target.def, message, label);
      if (target.schema === MCP_ID) expectValid(MCP_ID, 'ClientRequest', message, label);
      else
        expectValid(
          MCP_ID,
          'RequestMetaObject',
          (message.params as { _meta?: unknown })._meta,
          `${label} _meta`,
        );
      expectValid(MCP_ID, 'RequestId', message.id, `${label} id`);
    }

    // The MRTR retry answered all three kinds in their 4.7 shapes, each validated as an InputResponse.
    const retry = wire[3]!.params as { inputResponses: Record<string, unknown>; requestState: string };
    expect(Object.keys(retry.inputResponses)).toEqual(['confirm', 'llm', 'where']);
    expect(retry.requestState).toBe('opaque-state-1');
    for (const [key, answer] of Object.entries(retry.inputResponses))
      expectValid(MCP_ID, 'InputResponse', answer, `inputResponses.${key}`);
    const stateOnly = wire[4]!.params as Record<string, unknown>;
    expect('inputResponses' in stateOnly).toBe(false);
    expect(stateOnly.requestState).toBe('opaque-state-2');
  });
});
