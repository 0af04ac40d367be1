/**
 * StdioTransport against small scripted child processes (CLIENT-REQUIREMENTS 3.1–3.5).
 */
import { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ClientClosedError,
  InvalidResponseError,
  RequestTimeoutError,
  ServerExitedError,
  StreamEndedError,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from '../../src/index.js';
import { MAX_SKIPPED_LINES, StdioTransport, type StdioTransportOptions } from '../../src/stdio.js';

/** A scripted stdio server: the method names what it does. */
const SERVER = String.raw`
const flags = new Set(process.argv.slice(1));
if (flags.has('--ignore-term')) process.on('SIGTERM', () => {});
const cancels = [];
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let i;
  while ((i = buffered.indexOf('\n')) !== -1) { const line = buffered.slice(0, i); buffered = buffered.slice(i + 1); onLine(line); }
});
process.stdin.on('end', () => { if (!flags.has('--ignore-eof')) process.exit(0); });
if (flags.has('--ignore-eof')) setInterval(() => {}, 60_000); // else it ends anyway once nothing is left to do
function onLine(line) {
  const m = JSON.parse(line);
  const p = m.params || {};
  const reply = (result) => send({ jsonrpc: '2.0', id: m.id, result });
  switch (m.method) {
    case 'notifications/cancelled': cancels.push(p); return;
    case 'echo': return reply({ params: p });
    case 'raw': return reply({ line });
    case 'slow': return setTimeout(() => reply({ waited: p.ms }), p.ms);
    case 'never': return;
    case 'cancels': return reply({ cancels });
    case 'progress':
      send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'other', progress: 9 } });
      send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: p._meta.progressToken, progress: 1, total: 2 } });
      send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } });
      return setTimeout(() => reply({ done: true }), 20);
    case 'log-later': return setTimeout(() => send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'idle' } }), 20);
    case 'ask':
      send({ jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: {} });
      return reply({ asked: true });
    case 'stderr': process.stderr.write('log line on stderr\n'); return setTimeout(() => reply({ ok: true }), 20);
    case 'error': return send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'bad things' } });
    case 'garbage': process.stdout.write('x'.repeat(500) + '\n'); return setTimeout(() => reply({ after: 'garbage' }), 20);
    case 'garbage-forever': return process.stdout.write(('not json\n').repeat(p.lines));
    case 'wrong-id': return send({ jsonrpc: '2.0', id: 'nobody', result: {} });
    case 'exit': return process.exit(p.code);
    case 'kill': return process.kill(process.pid, 'SIGKILL');
    case 'split': { const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { text: 'é'.repeat(5) } }) + '\n'; const b = Buffer.from(text); process.stdout.write(b.subarray(0, 40)); return setTimeout(() => process.stdout.write(b.subarray(40)), 20); }
  }
}
`;

const transports: StdioTransport[] = [];
function connect(options: Partial<StdioTransportOptions> & { flags?: string[] } = {}): StdioTransport {
  const { flags = [], ...rest } = options;
  const transport = new StdioTransport({
    command: process.execPath,
    args: ['-e', SERVER, '--', ...flags],
    closeGraceMs: 200,
    ...rest,
  });
  transports.push(transport);
  return transport;
}
let nextId = 1;
function req(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = nextId++,
): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method, params };
}

afterEach(async () => {
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(60_000); // a close() a failed test left waiting ends
  vi.useRealTimers();
  vi.restoreAllMocks();
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

describe('StdioTransport', () => {
  it('names the server by its command line', () => {
    expect(new StdioTransport({ command: 'node', args: ['server.js', '--stdio'] }).serverKey).toBe(
      'stdio:node server.js --stdio',
    );
  });

  it('rejects invalid options with a TypeError naming the field', () => {
    expect(() => new StdioTransport({ command: '' })).toThrow(/"command"/);
    expect(() => new StdioTransport({ command: 'node', closeGraceMs: -1 })).toThrow(/"closeGraceMs".*-1/);
  });

  it('writes one message per line with no embedded newline (3.1)', async () => {
    const t = connect();
    const result = await t.request(req('raw', { text: 'two\nlines\r\n', sep: '\u2028' }));
    const line = String(result.line);
    expect(line).not.toMatch(/[\r\n]/);
    expect(JSON.parse(line).params).toEqual({ text: 'two\nlines\r\n', sep: '\u2028' });
  });

  it('matches concurrent responses by id, string and number ids apart (3.2)', async () => {
    const t = connect();
    const slow = t.request(req('slow', { ms: 80 }, 7));
    const fast = t.request(req('slow', { ms: 10 }, '7'));
    const echo = t.request(req('echo', { n: 1 }));
    await expect(Promise.all([slow, fast, echo])).resolves.toEqual([
      { waited: 80 },
      { waited: 10 },
      { params: { n: 1 } },
    ]);
  });

  it('reassembles a message split across chunks, multi-byte characters included', async () => {
    await expect(connect().request(req('split'))).resolves.toEqual({ text: 'ééééé' });
  });

  it('rejects a JSON-RPC error with McpError and a duplicate in-flight id with TypeError', async () => {
    const t = connect();
    await expect(t.request(req('error'))).rejects.toMatchObject({ code: -32602, method: 'error' });
    const first = t.request(req('slow', { ms: 30 }, 'dup'));
    await expect(t.request(req('echo', {}, 'dup'))).rejects.toBeInstanceOf(TypeError);
    await first;
  });

  it('routes progress by token and other notifications to the oldest call (6.4)', async () => {
    const warnings: string[] = [];
    const t = connect({ onWarning: (w) => warnings.push(w) });
    const seen: JsonRpcNotification[] = [];
    const result = await t.request(
      { jsonrpc: '2.0', id: nextId++, method: 'progress', params: { _meta: { progressToken: 'tok-1' } } },
      { onNotification: (n) => seen.push(n) },
    );
    expect(result).toEqual({ done: true });
    expect(seen.map((n) => n.method)).toEqual(['notifications/progress', 'notifications/message']);
    expect(seen[0]?.params).toMatchObject({ progressToken: 'tok-1', progress: 1, total: 2 });
    expect(warnings.join('\n')).toMatch(/progress for token "other"/);
  });

  it('hands notifications to onNotification when no call is in flight', async () => {
    const idle: JsonRpcNotification[] = [];
    const t = connect({ onNotification: (n) => idle.push(n) });
    await t.notify({ jsonrpc: '2.0', method: 'log-later' });
    await expect.poll(() => idle.length, { timeout: 15_000 }).toBe(1); // a liveness wait, not a timing claim
    expect(idle[0]?.params).toMatchObject({ data: 'idle' });
  });

  it('drops server-to-client requests and responses for unknown ids, with a warning', async () => {
    const warnings: string[] = [];
    const t = connect({ onWarning: (w) => warnings.push(w) });
    await expect(t.request(req('ask'))).resolves.toEqual({ asked: true });
    const late = t.request(req('wrong-id')).catch((e: unknown) => e);
    await expect.poll(() => warnings.length).toBe(2);
    expect(warnings[0]).toMatch(/dropped server request sampling\/createMessage/);
    expect(warnings[1]).toMatch(/"nobody" matches no request/);
    await t.close();
    expect(await late).toBeInstanceOf(ClientClosedError);
  });

  it('cancels on abort: notifications/cancelled {requestId, reason}, rejects with signal.reason (3.3)', async () => {
    const t = connect();
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const call = t.request(req('never', {}, 'abort-me'), { signal: controller.signal });
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    const { cancels } = await t.request(req('cancels'));
    expect(cancels).toEqual([{ requestId: 'abort-me', reason: 'user pressed stop' }]);
  });

  it('does not send an already-aborted request', async () => {
    const t = connect();
    const reason = new Error('too late');
    await expect(t.request(req('echo'), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(t.pid).toBeUndefined();
  });

  it('times out with RequestTimeoutError and cancels the request (6.1)', async () => {
    const t = connect();
    const error = await t.request(req('never', {}, 41), { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).code).toBe('REQUEST_TIMEOUT');
    const { cancels } = await t.request(req('cancels'));
    expect(cancels).toEqual([{ requestId: 41, reason: 'never timed out after 50 ms' }]);
  });

  it('sends stderr to onStderr and never into results', async () => {
    const stderr: string[] = [];
    const t = connect({ onStderr: (text) => stderr.push(text) });
    await expect(t.request(req('stderr'))).resolves.toEqual({ ok: true });
    await expect.poll(() => stderr.join('')).toContain('log line on stderr');
  });

  it('fails every pending call with ServerExitedError naming the exit code', async () => {
    const t = connect({ restart: false });
    const pending = t.request(req('never'));
    const exiting = t.request(req('exit', { code: 3 }));
    for (const call of [pending, exiting]) {
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerExitedError);
      expect(error).toMatchObject({ code: 'SERVER_EXITED', exitCode: 3, signal: null });
      expect((error as Error).message).toMatch(/exited with code 3/);
    }
    await expect(t.request(req('echo'))).rejects.toBeInstanceOf(ServerExitedError); // restart: false
  });

  it('fails pending calls soon after the exit even when a grandchild keeps stdout open', async () => {
    const t = new StdioTransport({
      command: process.execPath,
      // The grandchild holds stdout open for 60 s: waiting for stdout to end would run into the test's timeout.
      args: [
        '-e',
        `require('node:child_process').spawn('sleep', ['60'], { stdio: 'inherit' }).unref(); process.stdin.once('data', () => process.exit(4));`,
      ],
      restart: false,
    });
    transports.push(t);
    const error = await t.request(req('echo')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVER_EXITED', exitCode: 4 });
  }, 30_000);

  it('names the signal that killed the server, and restarts it on the next call (3.5)', async () => {
    const t = connect();
    const error = await t.request(req('kill')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVER_EXITED', exitCode: null, signal: 'SIGKILL' });
    expect((error as Error).message).toMatch(/killed by SIGKILL/);
    await expect(t.request(req('echo', { again: true }))).resolves.toEqual({ params: { again: true } });
  });

  it('a stdout line that is not JSON is reported (truncated) and skipped: the requests in flight still get their responses', async () => {
    const warnings: string[] = [];
    const t = connect({ onWarning: (w) => warnings.push(w) });
    const pending = t.request(req('slow', { ms: 60 }));
    await expect(t.request(req('garbage'))).resolves.toEqual({ after: 'garbage' });
    await expect(pending).resolves.toEqual({ waited: 60 });
    const bad = warnings.filter((w) => w.includes('is not JSON'));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toContain(`stdout line is not JSON; skipped: ${'x'.repeat(200)}…`);
    expect(bad[0]).not.toContain('x'.repeat(201));
  });

  it(`${MAX_SKIPPED_LINES} non-JSON lines in a row fail the requests in flight as lost (StreamEndedError, the last line as cause); the server stays usable`, async () => {
    expect(MAX_SKIPPED_LINES).toBe(100);
    const t = connect({ onWarning: () => undefined });
    const error = await t
      .request(req('garbage-forever', { lines: MAX_SKIPPED_LINES }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamEndedError);
    expect((error as Error).cause).toBeInstanceOf(InvalidResponseError);
    expect(((error as Error).cause as Error).message).toBe(
      `garbage-forever failed: invalid response: the server wrote ${MAX_SKIPPED_LINES} lines in a row that are not JSON; last: not json`,
    );
    await expect(t.request(req('echo', { still: 'alive' }))).resolves.toEqual({ params: { still: 'alive' } });
  });

  it('fails with ServerExitedError when the command cannot be started', async () => {
    const t = new StdioTransport({ command: '/nonexistent/mcp-server' });
    const error = await t.request(req('echo')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerExitedError);
    expect((error as Error).message).toMatch(/could not be started: .*ENOENT/);
    await expect(t.start()).rejects.toBeInstanceOf(ServerExitedError);
    await t.close();
  });

  it('closes politely: stdin end is enough for a well-behaved server, no signal is sent (3.4)', async () => {
    const t = connect({ closeGraceMs: 5_000 });
    await t.start();
    const pid = t.pid as number;
    const kill = vi.spyOn(ChildProcess.prototype, 'kill');
    // Only the grace waits run on fake timers (the child's pipes and its exit stay real I/O) and the fake clock never
    // moves: close() can end only by the server's own exit once its stdin closed, never by SIGTERM or SIGKILL.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let closed = false;
    const closing = t.close().then(() => (closed = true));
    // A wait, not a measure: real turns of the loop (Date and setImmediate are real) until close() resolved.
    for (const end = Date.now() + 10_000; !closed && Date.now() < end; )
      await new Promise((r) => setImmediate(r));
    expect(closed).toBe(true);
    await closing;
    expect(kill).not.toHaveBeenCalled();
    expect(() => process.kill(pid, 0)).toThrow(); // gone
    await expect(t.request(req('echo'))).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('escalates to SIGTERM, then SIGKILL, after the grace period, each sent to the server’s process group (3.4)', async () => {
    const t = connect({ flags: ['--ignore-eof', '--ignore-term'], closeGraceMs: 100 });
    await t.request(req('echo')); // the SIGTERM handler is installed once the server answers
    const pid = t.pid as number;
    const pending = t.request(req('never')).catch((e: unknown) => e);
    const kill = vi.spyOn(ChildProcess.prototype, 'kill');
    const killGroup = vi.spyOn(process, 'kill');
    await t.close();
    if (process.platform === 'win32') expect(kill.mock.calls).toEqual([['SIGTERM'], ['SIGKILL']]);
    else {
      // POSIX: the server leads its own group, so a wrapper's children (npx, sh -c) get the signals too.
      expect(killGroup.mock.calls).toEqual([
        [-pid, 'SIGTERM'],
        [-pid, 'SIGKILL'],
      ]);
      expect(kill).not.toHaveBeenCalled();
    }
    expect(await pending).toBeInstanceOf(ClientClosedError);
    expect(() => process.kill(pid, 0)).toThrow(); // gone
  });

  it('ends a call the server cancels with notifications/cancelled as StreamEndedError (6.3)', async () => {
    // The scripted server has no such method; simulate through a second request that makes it echo a cancel.
    const t = new StdioTransport({
      command: process.execPath,
      args: [
        '-e',
        `process.stdin.once('data', (d) => { const m = JSON.parse(String(d).split('\\n')[0]); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: m.id, reason: 'bye' } }) + '\\n'); }); process.stdin.on('end', () => process.exit(0));`,
      ],
    });
    transports.push(t);
    await expect(t.request(req('subscriptions/listen'))).rejects.toBeInstanceOf(StreamEndedError);
  });
});
