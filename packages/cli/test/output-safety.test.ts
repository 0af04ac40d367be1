/**
 * Nothing lost, nothing injected: an 8 MiB result (text and `--json`) and a long `ls` piped into a slow reader
 * arrive byte for byte, with the exit code set after stdout drained; control characters, U+2028/U+2029 and bidi controls from a
 * server (status messages, questions and their keys, tool output, task ids) never reach the output raw, and `--json` stays valid
 * JSON; a result nested deeper than `JSON.stringify` can go is printed, not a `RangeError`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../../src/file-store.js';
import {
  createTaskServer,
  elicitForm,
  textResult,
  type TaskServer,
  type ToolDefinition,
} from '../../../src/testing/index.js';
import { createFaultServer, type FaultServer } from '../../../test/faults/catalogue/index.js';
import { CLI, ensureCliBuilt, killLeftovers, runCli, tempHome } from './helpers.js';

const MIB = 1024 * 1024;
const LINE = 'the quick brown fox jumps over the lazy dog 0123456789\n';
const BIG = LINE.repeat(Math.ceil((8 * MIB) / LINE.length)).slice(0, 8 * MIB);
const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\rover\x08written\u009b31m\u202eesrever\u2028fake line\u2066';
/** Controls (but LF, TAB), line/paragraph separators and bidi controls: none may reach the output raw. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const bigTool: ToolDefinition = {
  name: 'big_output',
  description: '8 MiB of text.',
  inputSchema: { type: 'object', properties: {} },
  run: async () => textResult(BIG),
};
const hostileResult: ToolDefinition = {
  name: 'hostile_result',
  description: 'Control characters in the status and the result.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  run: async (ctx) => {
    ctx.report(`status ${HOSTILE}`);
    await ctx.sleep(2_500); // past the inline budget: a task, so the status goes through polls
    return textResult(`result ${HOSTILE}`, { structuredContent: { note: HOSTILE } });
  },
};
const hostileQuestion: ToolDefinition = {
  name: 'hostile_question',
  description: 'Control characters in a question and its key.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  run: async (ctx) =>
    textResult(
      JSON.stringify(
        await ctx.input({
          [`key${HOSTILE}`]: elicitForm(
            `question ${HOSTILE}`,
            { [`field${HOSTILE}`]: { type: 'string', title: `title ${HOSTILE}` } },
            [`field${HOSTILE}`],
          ),
        }),
      ),
    ),
};

/** Text whose lines end in spaces and a tab, with an empty line: printed indented under a task's result header. */
const SPACED = 'first line  \n\n  indented line\t\nlast line ';
const spacedResult: ToolDefinition = {
  name: 'spaced_result',
  description: 'A task whose multi-line text result has trailing whitespace on its lines.',
  inputSchema: { type: 'object', properties: {} },
  taskSupport: 'required',
  run: async (ctx) => {
    await ctx.sleep(2_500); // past the inline budget: a task, whose result is printed indented
    return textResult(SPACED);
  },
};

let server: TaskServer;
let faults: FaultServer;
let home: string;
beforeAll(async () => {
  await ensureCliBuilt();
  home = tempHome();
  server = await createTaskServer({
    pollIntervalMs: 100,
    inlineBudgetMs: 2_000,
    catalog: { tools: [bigTool, hostileResult, hostileQuestion, spacedResult] },
  });
  faults = await createFaultServer({ core: { pollIntervalMs: 100 } });
}, 120_000);
afterAll(async () => {
  await killLeftovers();
  await server?.close();
  await faults?.close();
});

/** Runs `mcp-tasks …args | slow reader`; the reader waits 2 s, then reads in small sips. */
function throughSlowPipe(
  args: string[],
): Promise<{ code: number; bytes: number; sha256: string; text: string }> {
  const reader = join(home, 'slow-reader.mjs');
  writeFileSync(
    reader,
    `import { createHash } from 'node:crypto';
const hash = createHash('sha256'); const parts = [];
await new Promise((r) => setTimeout(r, 2000));
for await (const chunk of process.stdin) { hash.update(chunk); parts.push(chunk); await new Promise((r) => setTimeout(r, 1)); }
const all = Buffer.concat(parts);
process.stdout.write(JSON.stringify({ bytes: all.length, sha256: hash.digest('hex'), text: all.length < 4_000_000 ? all.toString('utf8') : '' }));\n`,
  );
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `${q(process.execPath)} ${q(CLI)} ${args.map(q).join(' ')} | ${q(process.execPath)} ${q(reader)}; echo " \${PIPESTATUS[0]}"`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { env: { ...process.env, MCP_TASKS_HOME: home } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', () => {
      const at = out.lastIndexOf(' ');
      resolve({
        ...(JSON.parse(out.slice(0, at)) as { bytes: number; sha256: string; text: string }),
        code: Number(out.slice(at + 1)),
      });
    });
  });
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('output through a pipe is complete', () => {
  it('an 8 MiB result into a slow reader arrives byte for byte (text), exit 0', async () => {
    const run = await throughSlowPipe(['call', server.url, 'big_output']);
    expect(run.code).toBe(0);
    expect(run.bytes).toBe(BIG.length + 1);
    expect(run.sha256).toBe(sha(`${BIG}\n`));
  }, 180_000);

  it('the same with --json: the result line is complete JSON', async () => {
    const run = await throughSlowPipe(['call', server.url, 'big_output', '--json']);
    expect(run.code).toBe(0);
    const expected = `${JSON.stringify({ event: 'result', exitCode: 0, result: { resultType: 'complete', content: [{ type: 'text', text: BIG }] } })}\n`;
    expect(run.bytes).toBe(Buffer.byteLength(expected));
    expect(run.sha256).toBe(sha(expected));
  }, 180_000);

  it('ls with 3000 records into a slow reader: every line arrives', async () => {
    const lsHome = tempHome();
    const store = new FileTaskStore(join(lsHome, 'tasks'));
    for (let i = 0; i < 3000; i++) {
      await store.put({
        version: 1,
        server: 'http://127.0.0.1:1/mcp',
        method: 'tools/call',
        name: 'reindex_corpus',
        taskId: `task-${String(i).padStart(5, '0')}`,
        localCreatedAt: Date.now(),
        ttlMs: null,
        status: 'working',
        answeredKeys: [],
        updatedAt: Date.now(),
      });
    }
    const previous = home;
    home = lsHome;
    try {
      const run = await throughSlowPipe(['ls']);
      expect(run.code).toBe(0);
      const lines = run.text.trimEnd().split('\n');
      expect(lines).toHaveLength(3001);
      expect(lines.at(-1)).toMatch(/^task-02999\s+working/);
    } finally {
      home = previous;
    }
  }, 180_000);
});

describe('no control characters from a server reach the output', () => {
  it('status message, result text and structured content are escaped; --json keeps them exactly, as valid JSON', async () => {
    const text = await runCli(['call', server.url, 'hostile_result'], home);
    expect(text.code).toBe(0);
    expect(CONTROL.test(text.stdout + text.stderr)).toBe(false);
    expect(text.stdout).toContain(
      'result \\x1b]0;pwned\\x07\\x1b[2J\\x0dover\\x08written\\x9b31m\\u202eesrever\\u2028fake line\\u2066',
    );
    expect(text.stdout + text.stderr).toContain(
      'status \\x1b]0;pwned\\x07\\x1b[2J\\x0dover\\x08written\\x9b31m\\u202eesrever\\u2028fake line\\u2066',
    );
    const json = await runCli(['call', server.url, 'hostile_result', '--json'], home);
    expect(json.code).toBe(0);
    expect(/[\u0080-\u009f\u001b\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(json.stdout)).toBe(false);
    const events = json.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            event: string;
            statusMessage?: string;
            result?: { content: Array<{ text: string }> };
          },
      );
    expect(events.find((e) => e.event === 'result')?.result?.content[0]?.text).toBe(`result ${HOSTILE}`);
    expect(events.some((e) => e.statusMessage === `status ${HOSTILE}`)).toBe(true);
  });

  it('a question and its key are escaped in the output and in the answers-file hint', async () => {
    const run = await runCli(['call', server.url, 'hostile_question'], home);
    expect(run.code).toBe(7);
    expect(CONTROL.test(run.stdout + run.stderr)).toBe(false);
    expect(run.stdout).toContain('question \\x1b]0;pwned');
    expect(run.stdout).toContain('\\x9b31m\\u202eesrever\\u2028fake line\\u2066');
  });

  it('a task id with control characters is refused as an invalid response, and reaches the output only escaped', async () => {
    faults.inject(
      {
        name: 'hostile-task-id',
        reply: async (_request, next) => {
          const honest = await next();
          const body = honest.kind === 'json' ? (honest.body as { result?: { taskId?: string } }) : undefined;
          if (body?.result?.taskId) body.result.taskId = `id${HOSTILE}`;
          return honest;
        },
      },
      { tool: 'reindex_corpus', method: 'tools/call', times: 1 },
    );
    const run = await runCli(['call', faults.url, 'reindex_corpus', 'documents=100000'], home);
    expect(CONTROL.test(run.stdout + run.stderr)).toBe(false);
    expect(run.stdout + run.stderr).toContain('invalid response');
    // The task is named (it may be running on the server), escaped: never the raw id
    expect(run.stdout + run.stderr).toContain('task id\\u001b]0;pwned\\u0007\\u001b[2J\\u000dover');
  });
});

describe('trailing whitespace', () => {
  it('no printed line of a result ends in whitespace (the indented empty line neither); --json keeps the text exactly', async () => {
    const run = await runCli(['call', server.url, 'spaced_result'], home);
    expect(run.code).toBe(0);
    const result = run.stdout.slice(run.stdout.indexOf('Result of task'));
    expect(result).toMatch(
      /^Result of task [0-9a-f-]{36}:\n {2}first line\n\n {4}indented line\n {2}last line\n$/,
    );
    expect((run.stdout + run.stderr).split('\n').filter((line) => /\s$/.test(line))).toEqual([]);
    const json = await runCli(['call', server.url, 'spaced_result', '--json'], home);
    const last = JSON.parse(json.stdout.trim().split('\n').at(-1) as string) as {
      result: { content: Array<{ text: string }> };
    };
    expect(last.result.content[0]?.text).toBe(SPACED);
  });
});

describe('results nested too deeply to render normally', () => {
  it('are printed as JSON text (compact) with --json and without, never a RangeError', async () => {
    const depth = 200_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    faults.inject(
      {
        name: 'deep-result',
        reply: (request) => ({
          kind: 'raw',
          status: 200,
          headers: { 'content-type': 'application/json' },
          chunks: [
            `{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"resultType":"complete","content":[{"type":"text","text":"deep"}],"structuredContent":{"d":${deep}}}}`,
          ],
        }),
      },
      { tool: 'echo', method: 'tools/call' },
    );
    for (const json of [false, true]) {
      const run = await runCli(['call', faults.url, 'echo', 'text=x', ...(json ? ['--json'] : [])], home);
      expect(run.stderr).not.toMatch(/RangeError|Maximum call stack/);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`{"d":${deep}}`);
    }
  }, 120_000);
});
