/**
 * The Lua scripts of the Redis task store. Each runs atomically on the single primary; time is the Redis server's
 * clock (`TIME`), so workers' clocks never decide who holds a lease.
 *
 * Key layout (prefix `P`, record id `I` = hash of server identity and `taskId`):
 * - `P:task:I` hash: `record` (JSON), `fence`, `token`, `owner`, `until` (lease end, ms), `due` (earliest next poll
 *   by any worker, ms), `polled` (when the last poll was fenced, ms), `outcome` (the recorded outcome's status);
 * - `P:due` sorted set: `I` scored by when the task next needs a worker (its next poll, or its lease end);
 * - `P:tasks` set of every `I`; `P:fence` the fence counter; `P:events` the stream of questions, answers, outcomes;
 * - `P:workers` sorted set: worker id scored by its last claim round (the live workers share the open tasks).
 *
 * @module
 * @internal
 */

/** Shared prelude: the Redis clock in ms. */
const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Writes a record. KEYS: task, due, tasks, fence, events. ARGV: id, record JSON, token of the lease held ('' = none),
 * fence, owner, leaseMs, dueInMs (from now), outcome status ('' = none), taskId, server, maxStreamLength.
 * Returns `{1, fence, outcomeRecorded}` or `{0, reason}` (reason: 'stale' | 'leased' | 'final').
 * A record Redis does not have yet is created unleased (claimable), unless the write carries a lease: the lease's
 * holder took it first with {@link ACQUIRE_SCRIPT}, so the record joins its lease (a lease Redis no longer has is
 * 'stale'). Writing the outcome a task already has (same status) again is accepted and changes nothing
 * (`outcomeRecorded` 0); a different outcome is refused ('final').
 */
export const PUT_SCRIPT = `${NOW}
local id, json, token, fence = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local dueAt, outcome = now + tonumber(ARGV[7]), ARGV[8]
local terminal = outcome ~= ''
local function finish(f)
  local recorded = 0
  if terminal then
    redis.call('HDEL', KEYS[1], 'token', 'owner', 'until')
    redis.call('ZREM', KEYS[2], id)
    if redis.call('HSETNX', KEYS[1], 'outcome', outcome) == 1 then
      recorded = 1
      redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[11], '*', 'type', 'outcome', 'id', id, 'taskId', ARGV[9], 'server', ARGV[10])
    end
  end
  return {1, f, recorded}
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  if token ~= '' then return {0, 'stale'} end
  redis.call('SADD', KEYS[3], id)
  redis.call('HSET', KEYS[1], 'record', json, 'due', dueAt)
  if not terminal then redis.call('ZADD', KEYS[2], dueAt, id) end
  return finish(0)
end
local h = redis.call('HMGET', KEYS[1], 'token', 'fence', 'until', 'outcome', 'record', 'due')
if token ~= '' and (h[1] ~= token or h[2] ~= fence) then return {0, 'stale'} end
if h[4] then
  if h[4] == outcome then return {1, tonumber(h[2] or '0'), 0} end
  return {0, 'final'}
end
if token == '' and h[1] and tonumber(h[3] or '0') > now then return {0, 'leased'} end
redis.call('HSET', KEYS[1], 'record', json)
if not h[5] then
  redis.call('SADD', KEYS[3], id)
  local d = tonumber(h[6] or '0')
  if not h[6] then d = dueAt; redis.call('HSET', KEYS[1], 'due', d) end
  if not terminal then redis.call('ZADD', KEYS[2], math.max(d, tonumber(h[3] or '0')), id) end
end
return finish(tonumber(h[2] or '0'))
`;

/**
 * Takes the lease of one task for a follower, also of a task Redis has no record of yet (the record joins it when
 * written). Refused while another holder's lease runs. KEYS: task, due, fence. ARGV: id, token, owner, leaseMs.
 * Returns `{1, fence, msUntilDue}` (the earliest next poll by any holder, from now) or `{0, holder, msLeft}`.
 */
export const ACQUIRE_SCRIPT = `${NOW}
local h = redis.call('HMGET', KEYS[1], 'token', 'until', 'owner', 'due', 'outcome', 'record')
local untilMs = tonumber(h[2] or '0')
if h[1] and untilMs > now then return {0, h[3] or '', untilMs - now} end
local f = redis.call('INCR', KEYS[3])
untilMs = now + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'fence', f, 'token', ARGV[2], 'owner', ARGV[3], 'until', untilMs)
local due = tonumber(h[4] or '0')
if h[6] and not h[5] then redis.call('ZADD', KEYS[2], math.max(untilMs, due), ARGV[1]) end
return {1, f, math.max(0, due - now)}
`;

/**
 * Claims due tasks (next poll time passed) that are not leased (lease ended), at most ARGV[2] and at most this
 * worker's fair share: ⌈open tasks ÷ live workers⌉ minus the ARGV[6] tasks it holds. A worker is live while its last
 * claim round is less than ARGV[7] ms old. KEYS: due, fence, workers. ARGV: prefix, limit, token, owner, leaseMs,
 * held, liveMs. Returns a flat list: id, record JSON, fence, previous owner ('' if none), ms since the previous lease
 * ended ('').
 */
export const CLAIM_SCRIPT = `${NOW}
local prefix, limit, token, owner, leaseMs = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])
redis.call('ZADD', KEYS[3], now, owner)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[7]))
local share = math.ceil(redis.call('ZCARD', KEYS[1]) / math.max(1, redis.call('ZCARD', KEYS[3])))
limit = math.min(limit, share - tonumber(ARGV[6]))
if limit <= 0 then return {} end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit * 2)
local out = {}
local n = 0
for _, id in ipairs(ids) do
  if n >= limit then break end
  local key = prefix .. ':task:' .. id
  local h = redis.call('HMGET', key, 'record', 'until', 'outcome', 'owner', 'due')
  if not h[1] or h[3] then
    redis.call('ZREM', KEYS[1], id)
  elseif math.max(tonumber(h[2] or '0'), tonumber(h[5] or '0')) > now then
    redis.call('ZADD', KEYS[1], math.max(tonumber(h[2] or '0'), tonumber(h[5] or '0')), id)
  else
    local f = redis.call('INCR', KEYS[2])
    redis.call('HSET', key, 'fence', f, 'token', token, 'owner', owner, 'until', now + leaseMs)
    redis.call('ZADD', KEYS[1], now + leaseMs, id)
    table.insert(out, id); table.insert(out, h[1]); table.insert(out, f)
    local late = ''
    if h[4] and h[2] then late = tostring(now - tonumber(h[2])) end
    table.insert(out, h[4] or ''); table.insert(out, late)
    n = n + 1
  end
end
return out
`;

/**
 * Fences one poll: run just before this worker sends `tasks/get`. Refuses unless the lease is still this holder's
 * and has not ended; then extends it, records the poll time, and moves the task's earliest next poll by any worker to
 * ARGV[5] + ARGV[6] ms from now (the poll interval plus the longest this worker may take to send the poll).
 * KEYS: task, due. ARGV: id, token, fence, leaseMs, intervalMs, sendWindowMs. Returns the new lease end (ms, Redis
 * clock), or 0 when refused.
 */
export const POLL_SCRIPT = `${NOW}
local h = redis.call('HMGET', KEYS[1], 'token', 'fence', 'until', 'due')
if h[1] ~= ARGV[2] or h[2] ~= ARGV[3] or tonumber(h[3] or '0') <= now then return 0 end
local untilMs = now + tonumber(ARGV[4])
local dueAt = math.max(now + tonumber(ARGV[5]) + tonumber(ARGV[6]), tonumber(h[4] or '0'))
redis.call('HSET', KEYS[1], 'until', untilMs, 'due', dueAt, 'polled', now)
redis.call('ZADD', KEYS[2], math.max(untilMs, dueAt), ARGV[1])
return untilMs
`;

/**
 * Extends a lease and sets the next poll time, never earlier than a fenced poll already set it. KEYS: task, due.
 * ARGV: id, token, fence, leaseMs, dueInMs (from now). Returns the new lease end (ms, Redis clock), or 0 when the
 * lease is no longer this holder's.
 */
export const RENEW_SCRIPT = `${NOW}
local h = redis.call('HMGET', KEYS[1], 'token', 'fence', 'due')
if h[1] ~= ARGV[2] or h[2] ~= ARGV[3] then return 0 end
local untilMs = now + tonumber(ARGV[4])
local dueAt = math.max(now + tonumber(ARGV[5]), tonumber(h[3] or '0'))
redis.call('HSET', KEYS[1], 'until', untilMs, 'due', dueAt)
redis.call('ZADD', KEYS[2], math.max(untilMs, dueAt), ARGV[1])
return untilMs
`;

/**
 * Gives a lease back so another holder may take the task at its next poll time, at the earliest `dueInMs` from now (a
 * poll of the old holder may still be on its way). A task that has no record (its lease was taken, its record never
 * written) is forgotten. KEYS: task, due. ARGV: id, token, fence, dueInMs. Returns 1, or 0 when the lease was not
 * this holder's.
 */
export const RELEASE_SCRIPT = `${NOW}
local h = redis.call('HMGET', KEYS[1], 'token', 'fence', 'due', 'outcome', 'record')
if h[1] ~= ARGV[2] or h[2] ~= ARGV[3] then return 0 end
if not h[5] then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HDEL', KEYS[1], 'token', 'owner', 'until')
if not h[4] then
  local due = math.max(tonumber(h[3] or '0'), now + tonumber(ARGV[4]))
  redis.call('HSET', KEYS[1], 'due', due)
  redis.call('ZADD', KEYS[2], due, ARGV[1])
end
return 1
`;

/**
 * Records a value once per field and announces it on the stream. KEYS: hash, events. ARGV: field, value, type, id,
 * taskId, server, maxStreamLength. Returns 1 when this call recorded it, 0 when it was already there.
 */
export const RECORD_ONCE_SCRIPT = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[7], '*', 'type', ARGV[3], 'id', ARGV[4], 'taskId', ARGV[5], 'server', ARGV[6], 'key', ARGV[1])
return 1
`;

/**
 * Binds an idempotency key to its task if this worker still holds the pending claim. KEYS: idem. ARGV: pending
 * value, final value, ttl ms. Returns 1 when bound.
 */
export const BIND_KEY_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

/** Deletes the key only while it still holds ARGV[1]. KEYS: key. */
export const DELETE_IF_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
