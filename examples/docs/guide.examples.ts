/**
 * docs/guide.md's snippets, type-checked. Not run here: test/integration/task-preference.test.ts and
 * test/integration/typed-results.test.ts run the same calls against the reference server.
 */
import type { TaskClient } from 'mcp-tasks-client';
import { z } from 'zod';

declare const client: TaskClient;

export async function forbid(): Promise<unknown> {
  // #region task-forbid
  const result = await client.callTool('reindex_corpus', { documents: 50 }, { task: 'forbid' }); // never a task
  // #endregion task-forbid
  return result;
}

export async function typed(): Promise<void> {
  // #region typed-results
  const Weather = z.object({ city: z.string(), celsius: z.number() });
  const result = await client.callTool('weather', { city: 'Paris' }, { schema: Weather });
  if (!result.isError) result.structuredContent.celsius; // number
  const started = await client.startTool('weather', { city: 'Paris' }, { schema: Weather });
  if (started.resultType === 'task') await started.task.result(); // typed the same way
  // #endregion typed-results
}
