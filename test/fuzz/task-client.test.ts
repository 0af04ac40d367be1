/**
 * Fuzzing the real TaskClient pipeline (resultType dispatch, CreateTaskResult and DetailedTask parsing, the poll
 * loop and scheduler, MRTR rounds, the input broker) with a scripted transport under fake timers: arbitrary and
 * mutated creation results, `tasks/get` sequences and MRTR results. Once the script is used up the server answers
 * -32602 (task lost) or a plain result, so every call must settle: with a result or an `McpClientError`, never an
 * untyped error, never pending.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  McpError,
  TaskClient,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type Transport,
} from '../../src/index.js';
import {
  assertSettledTyped,
  json,
  mrtrResult,
  mutated,
  observe,
  taskShape,
  validTask,
  type Outcome,
} from './arbitraries.js';
import '../helpers/no-jitter.js';

export const POLL_RUNS = 2_000;
export const MRTR_RUNS = 1_500;

type Reply = Record<string, unknown> | { rpcError: { code: number; message: string } };

/** A transport whose replies come from per-method scripts; past a script's end, `fallback` answers. */
class ScriptTransport implements Transport {
  readonly serverKey = 'fuzz://server';
  constructor(
    private readonly scripts: Record<string, Reply[]>,
    private readonly fallback: (method: string) => Reply,
  ) {}
  async request(message: JsonRpcRequest): Promise<Record<string, unknown>> {
    const reply = this.scripts[message.method]?.shift() ?? this.fallback(message.method);
    if ('rpcError' in reply)
      throw new McpError(message.method, reply.rpcError as { code: number; message: string });
    return structuredClone(reply) as Record<string, unknown>;
  }
  async notify(_message: JsonRpcNotification): Promise<void> {}
  async close(): Promise<void> {}
}

function newClient(transport: Transport): TaskClient {
  return new TaskClient({
    transport,
    polling: { maxIntervalMs: 1_000 },
    handlers: {
      elicitation: () => ({ action: 'accept', content: { confirm: true } }),
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }),
      roots: () => ({ roots: [] }),
    },
  });
}

/** Advances fake time until the call settled (bounded: every wait in the client is finite). */
async function drive(box: ReturnType<typeof observe>): Promise<void> {
  for (let i = 0; i < 200 && box.outcome.kind === 'pending'; i++)
    await vi.advanceTimersByTimeAsync(i < 20 ? 100 : 30_000);
}

/** Outcome counts by kind (`value`) or error code. */
const pollOutcomes = new Map<string, number>();
const mrtrOutcomes = new Map<string, number>();
function tally(into: Map<string, number>, outcome: Outcome): void {
  const key = outcome.kind === 'typed' ? String(outcome.error.code) : outcome.kind;
  into.set(key, (into.get(key) ?? 0) + 1);
}

const LOST = { rpcError: { code: -32602, message: 'Task not found' } };
const rpcFailure = fc.record({
  rpcError: fc.record({
    code: fc.constantFrom(-32602, -32603, -32601, -32021),
    message: fc.string({ maxLength: 6 }),
  }),
});

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  if (process.env.FUZZ_STATS)
    console.log(
      'poll outcomes',
      Object.fromEntries(pollOutcomes),
      'mrtr outcomes',
      Object.fromEntries(mrtrOutcomes),
    );
});

describe('fuzz: task creation and polling', () => {
  it(`arbitrary creation results and tasks/get sequences settle typed (${POLL_RUNS} cases)`, async () => {
    const sameId = fc.constantFrom('t-1', 't-1', 't-1', 't-2', '', 42);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 4, arbitrary: validTask('t-1', 'task') },
          { weight: 3, arbitrary: mutated(validTask('t-1', 'task')) },
          { weight: 1, arbitrary: mutated(taskShape(sameId).map((t) => ({ ...t, resultType: 'task' }))) },
        ),
        fc.array(
          fc.oneof(
            { weight: 8, arbitrary: validTask('t-1', 'complete') },
            { weight: 3, arbitrary: mutated(validTask('t-1', 'complete')) },
            { weight: 2, arbitrary: mutated(taskShape(sameId)) },
            { weight: 1, arbitrary: rpcFailure },
            { weight: 1, arbitrary: json },
          ),
          { maxLength: 6 },
        ),
        fc.constantFrom('callTool', 'startTool', 'attach'),
        async (creation, polls, entry) => {
          const scripts: Record<string, Reply[]> = {
            'tools/call': [creation as Reply],
            'tasks/get': polls.map((p) =>
              p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Reply) : { value: p },
            ),
          };
          const client = newClient(
            new ScriptTransport(scripts, (m) => (m === 'tasks/get' ? LOST : { resultType: 'complete' })),
          );
          const call =
            entry === 'callTool'
              ? client.callTool('fuzz', {})
              : entry === 'startTool'
                ? client
                    .startTool('fuzz', {})
                    .then((s) => (s.resultType === 'task' ? s.task.result() : s.result))
                : client.task('t-1').then((h) => h.result());
          const box = observe(call);
          await drive(box);
          await client.close();
          // close() rejects every waiting call; the rejection reaches the caller's promise a few microtasks later
          // (a server may legally ask for a poll interval longer than the drive above, so close() is what ends it).
          await vi.advanceTimersByTimeAsync(0);
          assertSettledTyped(box.outcome, `${entry} ${JSON.stringify({ creation, polls }).slice(0, 400)}`);
          tally(pollOutcomes, box.outcome);
        },
      ),
      { numRuns: POLL_RUNS },
    );
    // The generators reach both ends: results (a task that completed) and each kind of typed failure.
    expect(pollOutcomes.get('value') ?? 0).toBeGreaterThan(POLL_RUNS / 20);
    for (const code of ['INVALID_RESPONSE', 'TASK_NOT_FOUND', 'TASK_FAILED', 'TASK_CANCELLED'])
      expect(pollOutcomes.get(code) ?? 0).toBeGreaterThan(0);
  }, 60_000);
});

describe('fuzz: MRTR rounds', () => {
  it(`arbitrary input_required results settle typed (${MRTR_RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof({ weight: 5, arbitrary: mrtrResult }, { weight: 1, arbitrary: rpcFailure }), {
          maxLength: 5,
        }),
        fc.constantFrom('tools/call', 'resources/read', 'prompts/get'),
        async (rounds, method) => {
          const scripts: Record<string, Reply[]> = {
            [method]: rounds.map((r) =>
              r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Reply) : { value: r },
            ),
          };
          const final: Record<string, Reply> = {
            'tools/call': { content: [] },
            'resources/read': { contents: [] },
            'prompts/get': { messages: [] },
            'tasks/get': LOST,
          };
          const client = newClient(
            new ScriptTransport(scripts, (m) => final[m] ?? { resultType: 'complete' }),
          );
          const call =
            method === 'tools/call'
              ? client.callTool('fuzz', {})
              : method === 'resources/read'
                ? client.readResource('file:///fuzz')
                : client.getPrompt('fuzz');
          const box = observe(call);
          await drive(box);
          await client.close();
          // close() rejects every waiting call; the rejection reaches the caller's promise a few microtasks later
          // (a server may legally ask for a poll interval longer than the drive above, so close() is what ends it).
          await vi.advanceTimersByTimeAsync(0);
          assertSettledTyped(box.outcome, `${method} ${JSON.stringify(rounds).slice(0, 400)}`);
          tally(mrtrOutcomes, box.outcome);
        },
      ),
      { numRuns: MRTR_RUNS },
    );
    expect(mrtrOutcomes.get('value') ?? 0).toBeGreaterThan(MRTR_RUNS / 50);
    expect(mrtrOutcomes.get('INVALID_RESPONSE') ?? 0).toBeGreaterThan(0);
  }, 60_000);
});
