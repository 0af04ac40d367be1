/**
 * The open questions of a fleet: every question recorded for a task that has no outcome yet and no recorded answer.
 * A process that joins the fleet after a question was asked (a restarted UI, a worker taking a task over) reads them
 * once, since the fleet's stream only brings what is announced after it started reading.
 *
 * @module
 */
import type { InputRequest } from '../../protocol/input.js';
import type { RedisConnection } from './connection.js';
import type { FleetKeys } from './keys.js';

/** One open question of a fleet task. */
export interface OpenQuestion {
  /** Record id (hash of server identity and `taskId`). */
  readonly id: string;
  readonly taskId: string;
  /** The server identity the task lives on. */
  readonly server: string;
  /** The server's key for this request, unique within its task. */
  readonly key: string;
  /** The embedded request as recorded: `{ method, params }`. */
  readonly request: InputRequest;
}

/**
 * Lists unanswered questions of tasks without an outcome, atomically. KEYS: tasks. ARGV: prefix, most questions.
 * Returns a flat list: id, record JSON, key, request JSON (four entries per question).
 */
const OPEN_QUESTIONS_SCRIPT = `
local prefix, limit = ARGV[1], tonumber(ARGV[2])
local out, n = {}, 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if n >= limit then break end
  local task = prefix .. ':task:' .. id
  local h = redis.call('HMGET', task, 'record', 'outcome')
  if h[1] and h[2] ~= '1' then
    local q = redis.call('HGETALL', prefix .. ':q:' .. id)
    for i = 1, #q, 2 do
      if redis.call('HEXISTS', prefix .. ':a:' .. id, q[i]) == 0 and n < limit then
        table.insert(out, id); table.insert(out, h[1]); table.insert(out, q[i]); table.insert(out, q[i + 1])
        n = n + 1
      end
    end
  end
end
return out
`;

/** Most open questions one listing returns. */
export const MAX_OPEN_QUESTIONS = 10_000;

function json(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The open questions recorded in Redis (entries whose record or request does not parse are skipped). */
export async function listOpenQuestions(redis: RedisConnection, keys: FleetKeys): Promise<OpenQuestion[]> {
  const flat = (await redis.eval(
    OPEN_QUESTIONS_SCRIPT,
    [keys.tasks],
    [keys.prefix, MAX_OPEN_QUESTIONS],
  )) as unknown[];
  const out: OpenQuestion[] = [];
  for (let i = 0; i + 3 < flat.length; i += 4) {
    const record = json(flat[i + 1]) as { taskId?: unknown; server?: unknown } | undefined;
    const request = json(flat[i + 3]) as InputRequest | undefined;
    if (
      typeof record?.taskId !== 'string' ||
      typeof record.server !== 'string' ||
      request === undefined ||
      request === null
    )
      continue;
    out.push({
      id: String(flat[i]),
      taskId: record.taskId,
      server: record.server,
      key: String(flat[i + 2]),
      request,
    });
  }
  return out;
}
