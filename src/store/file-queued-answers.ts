/**
 * Queued answers of a `FileTaskStore` (Node only): files beside the records.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { QueuedAnswer, QueuedAnswers } from './queued-answers.js';

const hash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * Queued answers as files beside a `FileTaskStore`'s records (`answers/<task hash>.<key hash>.json`, mode 0600):
 * created exclusively (`wx`, so the first answer for a key wins across processes) and fsync'd; taken by moving the
 * file aside under a unique name first (only one process can move a given file), then reading and removing it.
 */
export class FileQueuedAnswers implements QueuedAnswers {
  readonly #dir: string;
  #ready: Promise<unknown> | undefined;

  constructor(storeDir: string) {
    this.#dir = join(storeDir, 'answers');
  }

  #path(server: string, taskId: string, key: string): string {
    return join(this.#dir, `${hash(`${server}\n${taskId}`)}.${hash(key)}.json`);
  }

  async queue(server: string, taskId: string, answer: QueuedAnswer): Promise<boolean> {
    this.#ready ??= mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await this.#ready;
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(this.#path(server, taskId, answer.key), 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    try {
      await file.writeFile(JSON.stringify({ server, taskId, ...answer }));
      await file.sync();
    } finally {
      await file.close();
    }
    return true;
  }

  async take(server: string, taskId: string, keys: readonly string[]): Promise<QueuedAnswer[]> {
    const taken: QueuedAnswer[] = [];
    for (const key of keys) {
      const path = this.#path(server, taskId, key);
      const aside = `${path}.${randomUUID()}.taken`;
      try {
        await rename(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      try {
        const parsed = JSON.parse(await readFile(aside, 'utf8')) as Partial<QueuedAnswer> & {
          taskId?: unknown;
        };
        const response = parsed.response;
        if (parsed.key === key && parsed.taskId === taskId && response && typeof response === 'object')
          taken.push({
            key,
            response,
            queuedAt: typeof parsed.queuedAt === 'number' ? parsed.queuedAt : 0,
            ...(typeof parsed.answeredBy === 'string' ? { answeredBy: parsed.answeredBy } : {}),
          });
      } finally {
        await rm(aside, { force: true });
      }
    }
    return taken;
  }
}
