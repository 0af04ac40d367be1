/**
 * Shared setup of the engine behaviour tests: a scripted server, a client with a memory store, fake-timer helpers.
 */
import {
  TaskClient,
  MemoryTaskStore,
  type TaskClientOptions,
  type TaskHandle,
  type CallToolResult,
} from '../../src/index.js';
import { ScriptedTransport, type Handler } from './scripted-transport.js';
import './no-jitter.js';

export const T0 = Date.parse('2026-08-01T12:00:00Z');

export function setup(
  handler: Handler,
  options: Partial<TaskClientOptions> = {},
  Transport: typeof ScriptedTransport = ScriptedTransport,
) {
  const transport = new Transport(handler);
  const store = new MemoryTaskStore();
  const client = new TaskClient({ transport, store, ...options });
  const warnings: string[] = [];
  client.on('warning', (w) => warnings.push(w));
  return { transport, client, store, warnings };
}

export async function startTask(client: TaskClient, name = 'job'): Promise<TaskHandle<CallToolResult>> {
  const start = await client.startTool(name, {});
  if (start.resultType !== 'task') throw new Error('expected a task');
  return start.task;
}

/** A `tasks/get` answer asking one form question, `confirm` (`{ ok: boolean }`). */
export const askingTask = {
  resultType: 'complete',
  taskId: 't1',
  status: 'input_required',
  createdAt: '2026-08-01T09:00:00Z',
  lastUpdatedAt: '2026-08-01T09:00:00Z',
  ttlMs: 600_000,
  pollIntervalMs: 1_000,
  inputRequests: {
    confirm: {
      method: 'elicitation/create',
      params: {
        message: 'Deploy?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
    },
  },
};
