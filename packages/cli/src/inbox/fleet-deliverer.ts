/**
 * The inbox over a Redis fleet (`--redis redis://…`): it joins each server's fleet as a listener
 * (`runFleet({ claim: false })`), so it follows no task itself. The questions the lease holders announce wait in
 * the page; an answer is recorded once for the fleet (the first across every worker and inbox wins) and the lease
 * holder sends it with `tasks/update`. A cancel is sent to the server directly (`tasks/cancel`); the holder sees
 * the end at its next poll and records it.
 *
 * @module
 */
import type { RedisClientLike, RedisTaskStore } from 'mcp-tasks-client/redis-store';
import { hostname } from 'node:os';
import type { FleetQuestion, FleetRunner, TaskClient, TaskRecord } from 'mcp-tasks-client';
import type { AnswerableQuestion, Deliverer } from './inbox-tasks.js';
import { taskKey } from './inbox-tasks.js';
import { cancelUnfollowed, openServerClient } from './server-client.js';

/** Options of {@link openFleetDeliverer}. */
export interface FleetDelivererOptions {
  /** `redis://…` URL of the fleet's Redis primary. */
  url: string;
  /** The fleet's key prefix. @default the store's default (`mcp-tasks`) */
  prefix?: string;
  onChange: () => void;
}

/** Opens the Redis connection and the store; the deliverer joins each server's fleet as it meets its tasks. */
export async function openFleetDeliverer(
  options: FleetDelivererOptions,
): Promise<{ store: RedisTaskStore; deliverer: FleetDeliverer }> {
  let redis: typeof import('redis');
  try {
    redis = await import('redis');
  } catch {
    throw new TypeError('--redis needs the package "redis" (node-redis 5 or 6): npm install redis');
  }
  const { RedisTaskStore } = await import('mcp-tasks-client/redis-store');
  const connection = redis.createClient({
    url: options.url,
    socket: { reconnectStrategy: (n: number) => Math.min(100 * n, 2_000) },
  });
  connection.on('error', () => undefined);
  await connection.connect();
  const store = new RedisTaskStore({
    client: connection as unknown as RedisClientLike,
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    workerId: `inbox@${hostname()}:${process.pid}`,
  });
  const deliverer = new FleetDeliverer(store, options.onChange, async () => {
    await connection.close().catch(() => undefined);
  });
  return { store, deliverer };
}

/** Listens to a fleet's questions and records the page's answers for the lease holders. */
export class FleetDeliverer implements Deliverer {
  readonly via = 'recorded for the fleet' as const;
  readonly #store: RedisTaskStore;
  readonly #onChange: () => void;
  readonly #disconnect: () => Promise<void>;
  readonly #fleets = new Map<string, Promise<{ client: TaskClient; fleet: FleetRunner }>>();
  readonly #questions = new Map<string, Map<string, FleetQuestion>>();
  readonly #collected = new Set<string>();
  readonly #problems = new Map<string, string>();

  constructor(store: RedisTaskStore, onChange: () => void, disconnect: () => Promise<void>) {
    this.#store = store;
    this.#onChange = onChange;
    this.#disconnect = disconnect;
  }

  async sync(records: readonly TaskRecord[]): Promise<void> {
    for (const server of new Set(records.map((r) => r.server)))
      void this.#join(server).catch(() => undefined);
  }

  #join(server: string): Promise<{ client: TaskClient; fleet: FleetRunner }> {
    let joined = this.#fleets.get(server);
    if (!joined) {
      joined = (async () => {
        const client = await openServerClient(server, { store: this.#store });
        const fleet = client.runFleet({ claim: false });
        fleet.on('inputRequired', (question) => {
          const id = taskKey(question.server, question.taskId);
          const open = this.#questions.get(id) ?? new Map<string, FleetQuestion>();
          open.set(question.key, question);
          this.#questions.set(id, open);
          this.#onChange();
        });
        fleet.on('outcome', ({ taskId, server: s }) => {
          this.#questions.delete(taskKey(s, taskId));
          this.#onChange();
        });
        fleet.on('error', (error) => {
          this.#problems.set(server, `fleet of ${server}: ${(error as Error).message}`);
        });
        return { client, fleet };
      })();
      joined.catch((error: unknown) => {
        this.#fleets.delete(server);
        this.#problems.set(server, `cannot reach ${server}: ${(error as Error).message}`);
      });
      this.#fleets.set(server, joined);
    }
    return joined;
  }

  questions(record: TaskRecord): ReadonlyMap<string, AnswerableQuestion> {
    const open = new Map<string, AnswerableQuestion>();
    if (record.outcome) return open;
    for (const [key, question] of this.#questions.get(taskKey(record.server, record.taskId)) ?? []) {
      if (!record.answeredKeys.includes(key)) open.set(key, question);
    }
    return open;
  }

  follower(record: TaskRecord): 'fleet' | 'none' {
    return record.outcome ? 'none' : 'fleet';
  }

  async cancel(record: TaskRecord): Promise<void> {
    await cancelUnfollowed(record);
  }

  async collect(record: TaskRecord): Promise<void> {
    this.#collected.add(taskKey(record.server, record.taskId));
  }

  uncollected(record: TaskRecord): boolean {
    return (
      record.outcome !== undefined &&
      record.uncollected === true &&
      !this.#collected.has(taskKey(record.server, record.taskId))
    );
  }

  warnings(): string[] {
    return [...this.#problems.values()];
  }

  async close(): Promise<void> {
    const fleets = await Promise.allSettled(this.#fleets.values());
    for (const f of fleets) if (f.status === 'fulfilled') await f.value.client.close().catch(() => undefined);
    await this.#disconnect();
  }
}
