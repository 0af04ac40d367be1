/**
 * Server text on task spans, with the real OpenTelemetry SDK (in-memory exporter) against the fault server over
 * loopback HTTP: a 200,000-character `statusMessage` full of terminal control characters, and a failed task's
 * equally hostile error message, reach the span escaped and cut at 1,000 characters (exporters print spans to
 * consoles; a server must not grow a span without bound). CLIENT-REQUIREMENTS "bad server input" (hostile strings).
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { beforeAll, describe, expect, it } from 'vitest';
import { TaskFailedError } from '../../src/index.js';
import { loadTelemetry } from '../../src/internal/telemetry.js';
import { rewriteTask } from '../faults/catalogue/index.js';
import { rejectionOf, useFaultBench } from '../faults/setup.js';

const TASK_TOOL = 'reindex_corpus';
const EVIL = '\u001b]0;PWNED\u0007\u001b[2J\r\nFAKE: completed\u0000\u202e';
const HUGE = `${EVIL}${'M'.repeat(200_000)}`;
/** What a span carries of HUGE: its first 1,000 units, escaped, then the original length. */
const SHOWN = `\\u001b]0;PWNED\\u0007\\u001b[2J\\u000d\\u000aFAKE: completed\\u0000\\u202e${'M'.repeat(1_000 - EVIL.length)}…(${HUGE.length} chars)`;
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202e]/;

describe('server text on task spans', () => {
  const exporter = new InMemorySpanExporter();
  const bench = useFaultBench();
  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    await loadTelemetry();
  });

  it('a 200,000-character statusMessage with control characters: escaped and cut at 1,000 on the status events', async () => {
    exporter.reset();
    bench.server.inject(
      rewriteTask('huge hostile statusMessage', (task) => ({ ...task, statusMessage: HUGE })),
      { tool: TASK_TOOL },
    );
    const client = bench.client();
    let taskId = '';
    await client.callTool(TASK_TOOL, { documents: 20 }, { onTask: (h) => (taskId = h.taskId) });
    await client.close();
    const span = exporter.getFinishedSpans().find((s) => s.name === `task ${TASK_TOOL}`);
    expect(span?.attributes['mcp_tasks.task.id']).toBe(taskId);
    const messages = span!.events
      .filter((e) => e.name === 'mcp_tasks.task.status')
      .map((e) => e.attributes?.['mcp_tasks.task.status_message']);
    expect(messages).toEqual([SHOWN, SHOWN]); // working, completed
    expect(JSON.stringify(span!.events).length).toBeLessThan(5_000);
  });

  it("a failed task's hostile error message: the span's status message is escaped and cut at 1,000", async () => {
    exporter.reset();
    bench.server.inject(
      rewriteTask('failed with a huge hostile error', (task) =>
        task.status === 'completed'
          ? {
              ...task,
              status: 'failed',
              result: undefined,
              error: { code: -32000, message: HUGE },
            }
          : undefined,
      ),
      { tool: TASK_TOOL },
    );
    const client = bench.client();
    const error = await rejectionOf(client.callTool(TASK_TOOL, { documents: 20 }));
    expect(error).toBeInstanceOf(TaskFailedError);
    await client.close();
    const span = exporter.getFinishedSpans().find((s) => s.name === `task ${TASK_TOOL}`);
    const message = span!.status.message!;
    expect(message).not.toMatch(UNPRINTABLE);
    expect(message.length).toBeLessThanOrEqual(1_000 + '…(200000 chars)'.length + 10);
    expect(message).toMatch(/…\(\d+ chars\)$/);
  });
});
