/**
 * The CLI's pure parts: argument parsing, the `--json` spelling, form fields and their checks, the answers file,
 * result formatting and exit-code mapping.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  RequestTimeoutError,
  TaskCancelledError,
  TaskExpiredError,
  TaskNotFoundError,
  NetworkError,
} from '../../../src/index.js';
import { disambiguateJsonFlag, parseMs, parseServerUrl, parseToolArguments } from '../src/arguments.js';
import { bareTimeoutWarning, formatMs, parseDuration } from '../src/duration.js';
import { ExitCode, exitCodeForError, UnanswerableError, UsageError } from '../src/exit-codes.js';
import { explainError, lastWords } from '../src/explain-error.js';
import type { ServerTarget } from '../src/server/target.js';
import { formatToolResult } from '../src/format-result.js';
import { AnswersFile } from '../src/input/answers-file.js';
import { checkContent, checkFormat, readFields } from '../src/input/schema-fields.js';
import { liveText } from '../src/live-line.js';
import { buildProgram } from '../src/program.js';
import { unquotedStdioProblem } from '../src/stdio-argv.js';

describe('arguments', () => {
  it('parses key=value as JSON when it parses, else as a string; JSON object first, pairs override', () => {
    expect(
      parseToolArguments(['n=5', 'flag=true', 'name=alpha', 'list=[1,2]', 'eq=a=b'], '{"n": 1, "x": "y"}'),
    ).toEqual({ n: 5, flag: true, name: 'alpha', list: [1, 2], eq: 'a=b', x: 'y' });
  });
  it('keeps the text when the tool schema says string', () => {
    expect(
      parseToolArguments(['version=3.0'], undefined, { properties: { version: { type: 'string' } } }),
    ).toEqual({ version: '3.0' });
  });
  it('rejects a pair without "=", JSON that is not an object, and non-http URLs', () => {
    expect(() => parseToolArguments(['oops'], undefined)).toThrow(UsageError);
    expect(() => parseToolArguments([], '[1]')).toThrow(UsageError);
    expect(() => parseServerUrl('file:///x')).toThrow(UsageError);
  });
  it('reads --json {…} as arguments and a bare --json as the output flag', () => {
    expect(disambiguateJsonFlag(['call', 'u', 't', '--json', '{"a":1}', '--json'])).toEqual([
      'call',
      'u',
      't',
      '--args',
      '{"a":1}',
      '--json',
    ]);
    expect(disambiguateJsonFlag(['--json={"a":1}'])).toEqual(['--args={"a":1}']);
  });
});

describe('form fields', () => {
  const fields = readFields({
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 4 },
      when: { type: 'string', format: 'date' },
      n: { type: 'integer', minimum: 1, maximum: 3, default: 2 },
      color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
      tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 1 },
    },
    required: ['name', 'color'],
  });

  it('reads kinds, titles and requiredness', () => {
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'string', true],
      ['when', 'string', false],
      ['n', 'number', false],
      ['color', 'enum', true],
      ['tags', 'multi', false],
    ]);
    expect(fields[3]).toMatchObject({
      options: [
        { value: 'r', title: 'Red' },
        { value: 'g', title: 'Green' },
      ],
    });
  });

  it('fills defaults and reports every problem', () => {
    expect(checkContent(fields, { name: 'abc', color: 'g' })).toEqual({
      content: { name: 'abc', n: 2, color: 'g' },
    });
    expect(checkContent(fields, { name: 'a', when: '2026-02-30', n: 1.5, tags: ['a', 'b'] })).toEqual({
      problems: [
        'name: must be at least 2 characters',
        'when: must be a date YYYY-MM-DD',
        'n: must be an integer',
        'color: required',
        'tags: choose at most 1',
      ],
    });
  });

  it('checks string formats', () => {
    expect(checkFormat('email', 'a@b.co')).toBeUndefined();
    expect(checkFormat('email', 'nope')).toBeDefined();
    expect(checkFormat('uri', 'https://x.y/z')).toBeUndefined();
    expect(checkFormat('date-time', '2026-07-28T12:00:00Z')).toBeUndefined();
    expect(checkFormat('date-time', '2026-07-28')).toBeDefined();
  });
});

describe('answers file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-answers-'));
  const form = {
    method: 'elicitation/create' as const,
    params: {
      message: 'm',
      requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    },
  };

  it('finds answers by key (full, content, action) and by field name', async () => {
    const path = join(dir, 'a.json');
    writeFileSync(
      path,
      JSON.stringify({
        k1: { action: 'accept', content: { ok: true } },
        k2: { ok: false },
        k3: 'cancel',
        ok: true,
      }),
    );
    const file = await AnswersFile.load(path);
    expect(file.lookup('k1', form)).toEqual({
      kind: 'answer',
      response: { action: 'accept', content: { ok: true } },
    });
    expect(file.lookup('k2', form)).toEqual({
      kind: 'answer',
      response: { action: 'accept', content: { ok: false } },
    });
    expect(file.lookup('k3', form)).toEqual({ kind: 'answer', response: { action: 'cancel' } });
    expect(file.lookup('other', form)).toEqual({
      kind: 'answer',
      response: { action: 'accept', content: { ok: true } },
    });
    expect(file.lookup('k1', { method: 'roots/list' })).toMatchObject({ kind: 'invalid' });
  });

  it('keys and field names like __proto__ and constructor are found only when the file has them (never inherited)', async () => {
    const path = join(dir, 'proto.json');
    writeFileSync(path, '{"__proto__": {"ok": true}}');
    const file = await AnswersFile.load(path);
    expect(file.lookup('__proto__', form)).toEqual({
      kind: 'answer',
      response: { action: 'accept', content: { ok: true } },
    });
    expect(file.lookup('constructor', form)).toEqual({ kind: 'none' });
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    expect((await AnswersFile.load(empty)).lookup('__proto__', form)).toEqual({ kind: 'none' });
    const fields = readFields({
      type: 'object',
      properties: JSON.parse('{"__proto__": {"type": "string"}}'),
    });
    const checked = checkContent(fields, JSON.parse('{"__proto__": "kept"}'));
    expect('content' in checked && Object.getOwnPropertyDescriptor(checked.content, '__proto__')?.value).toBe(
      'kept',
    );
    expect(({} as Record<string, unknown>).kept).toBeUndefined();
  });

  it('names a key that is a typo of the question key or of a field name, with the name it likely meant', async () => {
    const path = join(dir, 'typo.json');
    writeFileSync(path, JSON.stringify({ confrim: { ok: true }, okk: true, unrelated: 1 }));
    const file = await AnswersFile.load(path);
    expect(file.lookup('confirm', form)).toEqual({ kind: 'none' });
    expect(file.nearMisses('confirm', form)).toBe(
      '"confrim" (did you mean "confirm"?), "okk" (did you mean "ok"?)',
    );
    expect(file.nearMisses('deploy', form)).toBe('"okk" (did you mean "ok"?)');
    writeFileSync(path, JSON.stringify({ confirm: { ok: true } }));
    expect((await AnswersFile.load(path)).nearMisses('confirm', form)).toBe('');
  });

  it('rejects a file that is not a JSON object', async () => {
    const path = join(dir, 'b.json');
    writeFileSync(path, '[1, 2]');
    await expect(AnswersFile.load(path)).rejects.toThrow(UsageError);
  });
});

describe('output pieces', () => {
  it('formats text plainly, structured content pretty, other content summarised, isError as a tool error', () => {
    const text = formatToolResult({
      isError: true,
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
      ],
      structuredContent: { a: 1 },
    });
    expect(text).toBe(
      'Tool error:\nhello\n[image image/png, 3 B]\n[resource link file:///x (x)]\nstructuredContent:\n{\n  "a": 1\n}',
    );
  });

  it('shows status, message, elapsed, next poll and the short id on the live line', () => {
    expect(
      liveText(
        {
          taskId: 'abcdef-0123456789',
          status: 'working',
          statusMessage: 'indexed 4/10',
          startedAt: 0,
          nextPollAt: 1_500,
        },
        1_200,
      ),
    ).toBe('working · indexed 4/10 · 1.2s · next poll 0.3s · abcdef…(17)');
  });

  it('maps errors to exit codes', () => {
    expect(exitCodeForError(new UsageError('x'))).toBe(ExitCode.Usage);
    expect(exitCodeForError(new TaskCancelledError('t'))).toBe(ExitCode.Cancelled);
    expect(exitCodeForError(new TaskExpiredError('t', 0))).toBe(ExitCode.Expired);
    expect(exitCodeForError(new TaskNotFoundError('t'))).toBe(ExitCode.UnknownTask);
    expect(exitCodeForError(new UnanswerableError('k', 'elicitation/create', 'x'))).toBe(
      ExitCode.InputRequired,
    );
    expect(exitCodeForError(new NetworkError('tools/call'))).toBe(ExitCode.Transport);
  });
});

describe('recorded servers (the transport serverKey is the target identity)', () => {
  it('a --stdio target: its transport carries the identity, which reads back to the same command line and directory', async () => {
    const { openTransport, resolveTarget, targetFromIdentity } = await import('../src/server/target.js');
    const target = await resolveTarget(undefined, { stdio: 'node server.js --stdio', cwd: '/tmp' });
    const transport = openTransport(target);
    expect(transport.serverKey).toBe(target.identity);
    expect(target.identity).toBe(
      `stdio:///${encodeURIComponent('/tmp')}/${encodeURIComponent('node server.js --stdio')}`,
    );
    const back = await targetFromIdentity(transport.serverKey);
    expect(back).toMatchObject({
      kind: 'stdio',
      command: 'node',
      args: ['server.js', '--stdio'],
      cwd: '/tmp',
      identity: target.identity,
    });
    const http = await resolveTarget('http://127.0.0.1:9/mcp?q=1', {});
    expect(openTransport(http).serverKey).toBe('http://127.0.0.1:9/mcp');
  });

  it("a record written with StdioTransport's default key (stdio:<command line>) restarts it in the current directory and keeps the key", async () => {
    const { targetFromIdentity } = await import('../src/server/target.js');
    const back = await targetFromIdentity('stdio:node server.js --stdio');
    expect(back).toMatchObject({
      kind: 'stdio',
      command: 'node',
      args: ['server.js', '--stdio'],
      cwd: undefined,
      identity: 'stdio:node server.js --stdio',
    });
    await expect(targetFromIdentity('mcp-config:nonsense')).rejects.toThrow(UsageError);
  });

  it('a cancel the server has not confirmed is its own event, never "cancelled" (only the server says cancelled)', async () => {
    const { renderEvent } = await import('../src/events.js');
    expect(
      renderEvent({ event: 'cancel-not-confirmed', taskId: 't1', status: 'working', waitMs: 1500 }, 2000),
    ).toBe(
      '[  2.0s] tasks/cancel was delivered, but task t1 was still working after 1.5 s; the server decides how it ends',
    );
    expect(renderEvent({ event: 'cancelled', taskId: 't1' }, 2000)).toBe(
      '[  2.0s] task t1 cancelled (the server reported it)',
    );
  });

  it('CancelNotConfirmedError (the wait ran out before the server reported an end) is exit 9', async () => {
    const { CancelNotConfirmedError } = await import('../../../src/index.js');
    expect(exitCodeForError(new CancelNotConfirmedError('t1', undefined))).toBe(ExitCode.StillRunning);
  });
});

describe('--json error codes', () => {
  it('are always strings: stable codes, JSONRPC_<n> for a server error, CONSTANT_CASE for the CLI own errors', async () => {
    const { errorCode } = await import('../src/session.js');
    const { McpError } = await import('../../../src/index.js');
    expect(errorCode(new TaskExpiredError('t-1', 0))).toBe('TASK_EXPIRED');
    expect(errorCode(new McpError('tools/call', { code: -32602, message: 'Unknown tool' }))).toBe(
      'JSONRPC_-32602',
    );
    expect(errorCode(new UsageError('bad flag'))).toBe('USAGE');
    expect(errorCode(new UnanswerableError('k', 'elicitation/create', 'no TTY'))).toBe('UNANSWERABLE');
    expect(errorCode('not an error')).toBeUndefined();
  });
});

describe('durations on the command line', () => {
  it('--wait and --cancel-wait take the same durations as --timeout, 0 included; a bare number is milliseconds', () => {
    expect(['3s', '500ms', '2m', '0', '1500'].map((raw) => parseMs('--wait', raw))).toEqual([
      3_000, 500, 120_000, 0, 1_500,
    ]);
    expect(() => parseMs('--wait', 'soon')).toThrow(
      new UsageError(
        '--wait must be a duration such as 30s, 2m or 500ms (a bare number is milliseconds), got "soon"',
      ),
    );
    expect(() => parseDuration('--timeout', '0')).toThrow(
      new UsageError(
        '--timeout must be a positive duration such as 30s, 2m or 500ms (a bare number is milliseconds), got "0"',
      ),
    );
    expect(parseDuration('--timeout', '30')).toBe(30);
  });
});

describe('unquoted --stdio: the hint quotes every word of the server command', () => {
  const program = buildProgram(() => {});
  it.each(['tools', 'bridge'])(
    "%s --stdio npx srv --stdio keeps the server's own --stdio in the hint",
    (command) => {
      expect(
        unquotedStdioProblem([command, '--stdio', 'npx', 'mcp-tasks-reference-server', '--stdio'], program),
      ).toBe(
        `"mcp-tasks-reference-server" is one argument too many for ${command}: --stdio takes the server's whole command line as one argument, so quote it, e.g. --stdio "npx mcp-tasks-reference-server --stdio" (mcp-tasks ${command} --help)`,
      );
    },
  );
  it('cancel <id> --stdio npx srv --stdio --json: the words up to our own next option', () => {
    expect(
      unquotedStdioProblem(['cancel', 't-1', '--stdio', 'npx', 'srv', '--stdio', '--json'], program),
    ).toContain('e.g. --stdio "npx srv --stdio" (mcp-tasks cancel --help)');
  });
  it('status <id> --stdio npx --stdio srv: a second --stdio before the server name keeps the name too', () => {
    expect(unquotedStdioProblem(['status', 't-1', '--stdio', 'npx', '--stdio', 'srv'], program)).toContain(
      'e.g. --stdio "npx --stdio srv" (mcp-tasks status --help)',
    );
  });
});

describe('--timeout given as a bare number', () => {
  it('a short duration reads in ms, not "0.0 s"', () => {
    expect([formatMs(30), formatMs(999), formatMs(5_000)]).toEqual(['30 ms', '999 ms', '5.0 s']);
  });
  it('warns for a bare number below 1000 (likely meant as seconds), not for units or larger numbers', () => {
    expect(bareTimeoutWarning(['tools', 'http://x/mcp', '--timeout', '30'])).toBe(
      '--timeout 30 is 30 ms; write 30s for seconds',
    );
    expect(bareTimeoutWarning(['tools', '--timeout=5'])).toBe('--timeout 5 is 5 ms; write 5s for seconds');
    expect(bareTimeoutWarning(['tools', '--timeout', '30s'])).toBeUndefined();
    expect(bareTimeoutWarning(['tools', '--timeout', '1500'])).toBeUndefined();
    expect(bareTimeoutWarning(['call', 'u', 't', '--', '--timeout', '3'])).toBeUndefined();
    // 0 is refused as a usage error; "write 0s for seconds" would be no help
    expect(bareTimeoutWarning(['tools', '--timeout', '0'])).toBeUndefined();
    expect(bareTimeoutWarning(['tools', '--timeout=0.0'])).toBeUndefined();
  });
});

describe("a crashed stdio server's last words", () => {
  it('show the first error line above the last lines (a Node MODULE_NOT_FOUND crash)', () => {
    const stderr = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/nowhere/server.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '    at node:internal/main/run_main_module:28:49 {',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v20.20.2',
      '',
    ].join('\n');
    expect(lastWords(stderr).split('\n  ')).toEqual([
      "Error: Cannot find module '/nowhere/server.js'",
      '…',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v20.20.2',
    ]);
  });
  it('are escaped and bounded; a short stderr is shown as it is', () => {
    expect(lastWords('fatal: \u001b[31mboom\u001b[0m\n')).toBe('fatal: \\x1b[31mboom\\x1b[0m');
    expect(lastWords(`${'x'.repeat(400)}\n`)).toBe(`${'x'.repeat(300)}…`);
  });
});

describe('a stdio server silent at start', () => {
  it('the initialize timeout says the server/discover wait came first (why the start took longer than --timeout)', () => {
    const target = { kind: 'stdio', label: 'node server.js' } as unknown as ServerTarget;
    expect(explainError(new RequestTimeoutError('initialize', 5_000), target)).toContain(
      'to initialize within 5.0 s, after its silence to server/discover (a server silent there is taken for a 2025-11-25 one and sent initialize; that wait came first, so the start took longer than --timeout) (set another limit with --timeout)',
    );
    expect(explainError(new RequestTimeoutError('tools/list', 30), target)).toContain(
      'to tools/list within 30 ms (set another limit with --timeout)',
    );
  });
});
