import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS, TaskClient, type TaskClientOptions } from '../../src/index.js';
import { buildCapabilities, buildMeta } from '../../src/modern/meta.js';
import { ScriptedTransport, type Handler } from '../helpers/scripted-transport.js';
import { completed, created, detailed, elicit, queue } from '../helpers/unit-fixtures.js';
import '../helpers/no-jitter.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const TASKS = 'io.modelcontextprotocol/tasks';

function setup(handler: Handler, options: Partial<TaskClientOptions> = {}) {
  const transport = new ScriptedTransport(handler);
  const client = new TaskClient({ transport, ...options });
  return { transport, client };
}

function metaOf(transport: ScriptedTransport, index: number): Record<string, unknown> {
  return (transport.sent[index]!.message.params as { _meta: Record<string, unknown> })._meta;
}

/** Runs discover, tools/list, tools/call → task → input → update → cancel. */
async function fullFlow(transport: ScriptedTransport, client: TaskClient): Promise<void> {
  const handle = await client.startTool('job', { a: 1 });
  if (handle.resultType !== 'task') throw new Error('expected a task');
  await client.discover();
  await client.listTools();
  await vi.advanceTimersByTimeAsync(1_000);
  await handle.task.respond({ q: { action: 'accept', content: { ok: true } } });
  await handle.task.cancel();
}

const flowServer: Handler = (method) => {
  switch (method) {
    case 'server/discover':
      return { supportedVersions: ['2026-07-28'], capabilities: { extensions: { [TASKS]: {} } } };
    case 'tools/list':
      return { tools: [] };
    case 'tools/call':
      return created();
    case 'tasks/get':
      return detailed({ status: 'input_required', inputRequests: { q: elicit('?') } });
    default:
      return {};
  }
};

describe('per-request _meta (1.1–1.6, 5.1)', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('1.1, 1.2, 1.4, 5.1: every request, incl. server/discover and tasks/*, carries version, capabilities, clientInfo; the tasks extension only where a task is accepted', async () => {
    const { transport, client } = setup(flowServer);
    await fullFlow(transport, client);
    expect(transport.sent.map((s) => s.message.method)).toEqual([
      'tools/call',
      'server/discover',
      'tools/list',
      'tasks/get',
      'tasks/update',
      'tasks/cancel',
    ]);
    for (const [i, sent] of transport.sent.entries()) {
      const meta = metaOf(transport, i);
      expect(meta[PV], sent.message.method).toBe('2026-07-28');
      expect(meta[INFO], sent.message.method).toEqual({ name: 'mcp-tasks-client', version: '0.1.0' });
      const caps = meta[CAPS] as Record<string, unknown>;
      // ext-tasks tasks.md § Capability Negotiation: declared on task-capable methods and tasks/*, nowhere else.
      const acceptsTask = sent.message.method === 'tools/call' || sent.message.method.startsWith('tasks/');
      expect(caps.extensions, sent.message.method).toEqual(acceptsTask ? { [TASKS]: {} } : undefined);
      expect(caps[TASKS], sent.message.method).toBeUndefined(); // never at top level ("Seed vs spec" 1)
      expect(Object.keys(caps).filter((k) => k.includes('/'))).toEqual([]);
    }
    expect(DEFAULTS.clientInfo).toEqual({ name: 'mcp-tasks-client', version: '0.1.0' });
  });

  it('1.6: ids are unique integers, never reused', async () => {
    const { transport, client } = setup(flowServer);
    await fullFlow(transport, client);
    const ids = transport.sent.map((s) => s.message.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('1.3: with no handler and no listener nothing is declared on tools/list (empty capabilities)', async () => {
    const { transport, client } = setup(() => ({ tools: [] }));
    await client.listTools();
    expect(metaOf(transport, 0)[CAPS]).toEqual({});
  });

  it('1.3: an elicitation handler declares elicitation (form); sampling and roots handlers declare theirs', async () => {
    const { transport, client } = setup(() => ({ tools: [] }), {
      handlers: {
        elicitation: () => ({ action: 'decline' }),
        sampling: () => ({ role: 'assistant', content: {}, model: 'm' }),
        roots: () => ({ roots: [] }),
      },
    });
    await client.listTools();
    expect(metaOf(transport, 0)[CAPS]).toEqual({ elicitation: { form: {} }, sampling: {}, roots: {} });
  });

  it('1.3, 4.8: sampling and roots are not declared without handlers even when a listener exists', async () => {
    const { transport, client } = setup(() => ({ tools: [] }));
    await client.listTools();
    client.on('inputRequired', () => undefined);
    await client.listTools();
    const listener = () => undefined;
    client.removeAllListeners('inputRequired');
    client.on('inputRequired', listener);
    client.off('inputRequired', listener);
    await client.listTools();
    expect(metaOf(transport, 0)[CAPS]).toEqual({});
    expect(metaOf(transport, 1)[CAPS]).toEqual({ elicitation: { form: {} } }); // per request
    expect(metaOf(transport, 2)[CAPS]).toEqual({});
  });

  it('1.2: clientInfo:false omits it; a custom clientInfo is sent as given', async () => {
    const off = setup(() => ({ tools: [] }), { clientInfo: false });
    await off.client.listTools();
    expect(INFO in metaOf(off.transport, 0)).toBe(false);
    const custom = setup(() => ({ tools: [] }), { clientInfo: { name: 'acme-client', version: '9.9.9' } });
    await custom.client.listTools();
    expect(metaOf(custom.transport, 0)[INFO]).toEqual({ name: 'acme-client', version: '9.9.9' });
  });

  it('1.4: declared capabilities are merged; declared extensions keep the tasks extension', async () => {
    const { transport, client } = setup(() => ({ content: [] }), {
      capabilities: { elicitation: { form: {}, url: {} }, extensions: { 'com.example/x': { on: true } } },
    });
    await client.callTool('x');
    expect(metaOf(transport, 0)[CAPS]).toEqual({
      elicitation: { form: {}, url: {} },
      extensions: { 'com.example/x': { on: true }, [TASKS]: {} },
    });
  });

  it('1.5: onProgress adds a unique progressToken; caller meta cannot override reserved keys', async () => {
    const { transport, client } = setup(() => ({ content: [] }));
    await client.callTool(
      'a',
      {},
      { onProgress: () => undefined, meta: { [PV]: '1999-01-01', 'com.example/trace': 't-1' } },
    );
    await client.callTool('b', {}, { onProgress: () => undefined });
    const m0 = metaOf(transport, 0);
    const m1 = metaOf(transport, 1);
    expect(m0[PV]).toBe('2026-07-28');
    expect(m0['com.example/trace']).toBe('t-1');
    expect(typeof m0.progressToken).toBe('string');
    expect(m0.progressToken).not.toBe(m1.progressToken);
  });

  it('5.1: the tasks poll of a completed flow keeps the extension declared (no elided _meta, "Seed vs spec" 15)', async () => {
    const get = queue([completed()]);
    const { transport, client } = setup((m) => (m === 'tools/call' ? created() : get()), {
      clientInfo: false,
    });
    const call = client.callTool('x');
    await vi.advanceTimersByTimeAsync(1_000);
    await call;
    expect(metaOf(transport, 1)).toEqual({ [PV]: '2026-07-28', [CAPS]: { extensions: { [TASKS]: {} } } });
  });
});

describe('buildCapabilities / buildMeta', () => {
  it('answersByEvent alone declares elicitation form', () => {
    expect(buildCapabilities({ declared: undefined, handlers: undefined, answersByEvent: true })).toEqual({
      elicitation: { form: {} },
      extensions: { [TASKS]: {} },
    });
  });

  it('does not mutate the declared object', () => {
    const declared = { extensions: { 'com.example/x': {} } };
    buildCapabilities({ declared, handlers: undefined, answersByEvent: false });
    expect(declared).toEqual({ extensions: { 'com.example/x': {} } });
  });

  it('reserved keys win over extra', () => {
    expect(buildMeta('2026-07-28', {}, undefined, { [PV]: 'x', [CAPS]: 'y', k: 1 })).toEqual({
      [PV]: '2026-07-28',
      [CAPS]: {},
      k: 1,
    });
  });
});
