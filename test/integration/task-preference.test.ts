/**
 * `task: 'forbid'` per call, against the reference server over loopback HTTP: the call does not declare the Tasks
 * extension, so a tool that may run as a task answers inline and a task-only tool is refused with -32021.
 * (ext-tasks § Capability Negotiation)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/constants.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';

describe("per-call task preference ('forbid') over loopback HTTP", () => {
  let server: TaskServer;
  beforeAll(async () => {
    server = await createTaskServer({ pollIntervalMs: 50, inlineBudgetMs: 20 });
  });
  afterAll(() => server.close());

  const client = () =>
    new TaskClient({
      transport: new StreamableHttpTransport(server.url),
      handlers: { elicitation: async () => ({ action: 'accept', content: { confirm: true } }) },
    });

  it('a job longer than the inline budget becomes a task by default, and answers inline when tasks are forbidden', async () => {
    const c = client();
    try {
      let tasks = 0;
      const allowed = await c.callTool('reindex_corpus', { documents: 50 }, { onTask: () => tasks++ });
      expect(allowed.structuredContent).toEqual({ documents: 50 });
      expect(tasks).toBe(1);
      const forbidden = await c.callTool(
        'reindex_corpus',
        { documents: 50 },
        { task: 'forbid', onTask: () => tasks++ },
      );
      expect(forbidden.structuredContent).toEqual({ documents: 50 });
      expect(tasks).toBe(1);
      const started = await c.startTool('reindex_corpus', { documents: 50 }, { task: 'forbid' });
      expect(started.resultType).toBe('complete');
    } finally {
      await c.close();
    }
  });

  it('a task-only tool is refused with McpError -32021 (MissingRequiredClientCapability), and no task is started', async () => {
    const c = client();
    try {
      const error = await c
        .callTool('deploy_release', { version: '1.0.0' }, { task: 'forbid' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.MissingRequiredClientCapability);
      expect((error as McpError).code).toBe(-32021);
      expect((error as McpError).method).toBe('tools/call');
    } finally {
      await c.close();
    }
  });

  it("refuses a value other than 'allow' or 'forbid' before sending anything", async () => {
    const c = client();
    try {
      await expect(
        c.callTool('echo', { text: 'x' }, { task: 'required' as unknown as 'forbid' }),
      ).rejects.toThrow(/option "task" must be 'allow' or 'forbid'/);
    } finally {
      await c.close();
    }
  });
});
