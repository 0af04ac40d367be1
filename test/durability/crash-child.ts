/**
 * The child process of the crash test (crash.test.ts). Run with `node --import tsx`:
 *
 *   crash-child.ts start  <storeDir> <mainUrl> <shortUrl>
 *     creates tasks through a FileTaskStore, answers the first questions from a handler, prints `ready` once those
 *     answers are acknowledged and stored, then keeps polling until it is killed (SIGKILL) — or exits after 60 s.
 *   crash-child.ts resume <storeDir> <mainUrl> <shortUrl> <clockOffsetMs>
 *     builds new clients on the same store, calls resumeAll() on each server, answers what is asked, waits for every
 *     outcome, prints it, and exits 0.
 *
 * Every line on stdout is one JSON event: created, asked, ready, resumed, settled, done, fatal.
 */
import { FileTaskStore } from '../../src/file-store.js';
import {
  isMcpClientError,
  StreamableHttpTransport,
  TaskClient,
  type CallToolResult,
  type InputContext,
  type TaskHandle,
} from '../../src/index.js';

const [mode, storeDir, mainUrl, shortUrl, offsetArg] = process.argv.slice(2);
if ((mode !== 'start' && mode !== 'resume') || !storeDir || !mainUrl || !shortUrl) {
  process.stderr.write(
    'usage: crash-child.ts start|resume <storeDir> <mainUrl> <shortUrl> [clockOffsetMs]\n',
  );
  process.exit(2);
}
const clockOffsetMs = Number(offsetArg ?? 0);

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const store = new FileTaskStore(storeDir, {
  onInvalid: (file, reason) => emit({ event: 'invalid', file, reason }),
});

// This process's clock runs `clockOffsetMs` ahead: the client reads the global clock.
const realNow = Date.now;
Date.now = () => realNow() + clockOffsetMs;

function client(url: string): TaskClient {
  return new TaskClient({
    transport: new StreamableHttpTransport(url),
    store,
    handlers: {
      elicitation: (_params, context: InputContext) => {
        emit({ event: 'asked', taskId: context.taskId, key: context.key });
        return { action: 'accept', content: { confirm: true } };
      },
    },
  });
}

async function start(): Promise<void> {
  const main = client(mainUrl!);
  const short = client(shortUrl!);
  const calls: Array<[TaskClient, string, Record<string, unknown>, string]> = [
    [main, 'reindex_corpus', { documents: 100 }, 'main'], // 2 s at timeScale 10
    [main, 'reindex_corpus', { documents: 150 }, 'main'], // 3 s
    [main, 'reindex_corpus', { documents: 200, api_token: 'sk-live-SECRET' }, 'main'], // 4 s; the token must not be stored
    [main, 'deploy_release', { version: '3.1.0' }, 'main'], // 1 s, asks `confirm`, 1 s
    [main, 'two_step_release', { version: '4.0.0' }, 'main'], // 1 s, asks `approve`, 3 s, asks `window`, 0.5 s
    [short, 'reindex_corpus', { documents: 1_000 }, 'short'], // 20 s; its server forgets it first
  ];
  const ids: Record<string, string> = {};
  await Promise.all(
    calls.map(async ([c, tool, args, server], i) => {
      const start = await c.startTool(tool, args, { idempotencyKey: `crash-test-${i}` });
      if (start.resultType !== 'task') throw new Error(`${tool} did not become a task`);
      ids[tool === 'reindex_corpus' ? `${tool}#${i}` : tool] = start.task.taskId;
      start.task.result().catch(() => undefined);
      emit({ event: 'created', taskId: start.task.taskId, tool, server });
    }),
  );
  // Ready once both first answers are acknowledged by the server and written to the store.
  for (;;) {
    const records = await store.list();
    const answered = (id: string | undefined, key: string) =>
      records.find((r) => r.taskId === id)?.answeredKeys.includes(key) === true;
    if (answered(ids.deploy_release, 'confirm') && answered(ids.two_step_release, 'approve')) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  emit({ event: 'ready' });
  setTimeout(() => process.exit(3), 60_000).unref(); // never outlive a parent that forgot to kill us
  await new Promise(() => setTimeout(() => undefined, 60_000));
}

async function resume(): Promise<void> {
  const clients = [client(mainUrl!), client(shortUrl!)];
  const handles: Array<TaskHandle<CallToolResult>> = [];
  for (const c of clients) handles.push(...(await c.resumeAll()));
  for (const h of handles) emit({ event: 'resumed', taskId: h.taskId });
  await Promise.all(
    handles.map(async (h) => {
      try {
        const result = await h.result();
        emit({
          event: 'settled',
          taskId: h.taskId,
          ok: true,
          text: result.content.map((c) => String((c as { text?: unknown }).text ?? '')).join(''),
        });
      } catch (error) {
        emit({
          event: 'settled',
          taskId: h.taskId,
          ok: false,
          code: isMcpClientError(error) ? error.code : String(error),
        });
      }
    }),
  );
  // Let the recorders flush the outcomes before exiting.
  for (let i = 0; i < 100; i++) {
    const records = await store.list();
    if (records.every((r) => r.outcome !== undefined)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.all(clients.map((c) => c.close()));
  emit({ event: 'done' });
}

(mode === 'start' ? start() : resume()).then(
  () => process.exit(0),
  (error: unknown) => {
    emit({ event: 'fatal', error: String((error as Error)?.stack ?? error) });
    process.exit(1);
  },
);
