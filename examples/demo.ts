/**
 * `npm run demo`: a small host against the reference task server. It discovers the server, calls a tool that
 * answers inline and one that becomes a task, answers a question a task asks mid-way (from the person at a TTY, or
 * automatically with `--yes` / without a TTY), starts and cancels a third task, and prints a summary.
 */
import { createInterface } from 'node:readline/promises';
import { TaskCancelledError, TaskClient, StreamableHttpTransport, type TaskHandle } from '../src/index.js';
import { createTaskServer } from '../src/testing/index.js';

const autoAnswer = process.argv.includes('--yes') || !process.stdin.isTTY;
const started = Date.now();
const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(2).padStart(6)}s`;
const log = (line: string): void => console.log(`${elapsed()}  ${line}`);
const summary: Array<[string, string]> = [];

function follow<T>(label: string, handle: TaskHandle<T>): void {
  log(`${label}: became task ${handle.taskId} (poll every ${handle.pollIntervalMs} ms, ttl ${handle.task.ttlMs ?? '∞'} ms)`);
  handle.on('status', (task) => log(`${label}: ${task.status}${task.statusMessage ? ` — ${task.statusMessage}` : ''}`));
}

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

async function main(): Promise<void> {
  const server = await createTaskServer({ pollIntervalMs: 250 });
  const client = new TaskClient({ transport: new StreamableHttpTransport(server.url) });
  try {
    const info = await client.discover();
    log(`server ${info.serverInfo?.name ?? '?'} at ${server.url}; tasks extension: ${'io.modelcontextprotocol/tasks' in (info.capabilities.extensions ?? {}) ? 'yes' : 'no'}`);

    // 1. Inline, then a task: the same call, the same promise.
    let t0 = Date.now();
    const small = await client.callTool('reindex_corpus', { documents: 10 });
    log(`reindex_corpus(10): answered inline in ${Date.now() - t0} ms: ${textOf(small)}`);
    summary.push(['reindex_corpus(10)', 'inline']);

    t0 = Date.now();
    const large = await client.callTool('reindex_corpus', { documents: 1500 }, { onTask: (h) => follow('reindex_corpus(1500)', h) });
    log(`reindex_corpus(1500): completed in ${Date.now() - t0} ms: ${textOf(large)}`);
    summary.push(['reindex_corpus(1500)', 'task → completed']);

    // 2. A task that asks a question mid-way.
    client.on('inputRequired', async (event) => {
      if (event.request.method !== 'elicitation/create') return;
      log(`deploy_release: the server asks: "${event.request.params.message}"`);
      const yes = autoAnswer ? true : await ask('Approve?');
      log(`deploy_release: answering ${yes ? 'accept' : 'decline'}${autoAnswer ? ' (automatic)' : ''}`);
      await event.respond(yes ? { action: 'accept', content: { confirm: true } } : { action: 'decline' });
    });
    const deployed = await client
      .callTool('deploy_release', { version: '1.4.0' }, { onTask: (h) => follow('deploy_release', h) })
      .then((r) => `completed: ${textOf(r)}`)
      .catch((e: unknown) => `${(e as Error).name}: ${(e as Error).message}`);
    log(`deploy_release: ${deployed}`);
    summary.push(['deploy_release(1.4.0)', deployed.split(':')[0] ?? deployed]);

    // 3. Start a task and cancel it.
    const controller = new AbortController();
    const outcome = await client
      .callTool('reindex_corpus', { documents: 100_000 }, {
        signal: controller.signal,
        onTask: (h) => {
          follow('reindex_corpus(100000)', h);
          h.once('status', () => {
            log('reindex_corpus(100000): cancelling');
            void h.cancel();
          });
        },
      })
      .then(() => 'completed')
      .catch((e: unknown) => (e instanceof TaskCancelledError ? 'cancelled' : `${(e as Error).name}`));
    log(`reindex_corpus(100000): ${outcome}`);
    summary.push(['reindex_corpus(100000)', `task → ${outcome}`]);

    console.log('\nSummary');
    for (const [call, result] of summary) console.log(`  ${call.padEnd(24)} ${result}`);
    console.log(`  requests served: ${JSON.stringify(server.stats.requestCounts ?? {})}`);
  } finally {
    await client.close();
    await server.close();
  }
}

function textOf(result: { content: Array<{ type: string; text?: unknown }> }): string {
  return result.content.map((c) => (c.type === 'text' ? String(c.text) : `[${c.type}]`)).join(' ');
}

const watchdog = setTimeout(() => {
  console.error('demo: did not finish within 30 s');
  process.exit(1);
}, 30_000);
watchdog.unref();

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('demo failed:', error);
    process.exit(1);
  },
);
