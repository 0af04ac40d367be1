/**
 * What a person at a terminal sees (a pseudo-terminal via `script`): the waiting line shows at once while a server
 * stays silent, `--no-input` says "--no-input" (not "no TTY"), and the Ctrl-C texts of `--help`, the live run and
 * docs/cli.md say the same thing: the first press sends tasks/cancel, the second stops waiting and the cancel stays
 * sent.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliServer } from './fixtures.js';
import { ROOT, runCli, startCliInPty } from './helpers.js';

const env = useCliServer();
let silent: Server;
let silentUrl = '';
const sockets = new Set<Socket>();
beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

describe('at a terminal', () => {
  it('a silent server: the waiting line is shown at once (before a second has passed on its own clock) and --timeout ends it', async () => {
    const proc = startCliInPty(['call', silentUrl, 'echo', '--timeout', '5s'], env.home);
    await proc.waitFor(
      /waiting for http:\/\/127\.0\.0\.1:\d+\/mcp to answer tools\/list \(0 s; gives up after 5 s/,
    );
    const run = await proc.done;
    expect(run.code).toBe(8);
    expect(run.stdout).toMatch(/no answer from 127\.0\.0\.1:\d+ to tools\/list within 5\.0 s/);
  });

  it('--no-input at a terminal names --no-input, exits 7, and the hint carries every required field', async () => {
    const proc = startCliInPty(['call', env.server.url, 'survey', '--no-input'], env.home);
    const run = await proc.done;
    expect(run.code).toBe(7);
    expect(run.stdout).toContain('--no-input was given, so no prompt');
    expect(run.stdout).not.toContain('no TTY');
    const example = /where answers\.json is, for example:\s+(\{.*\})/.exec(run.stdout)?.[1] as string;
    const content = (JSON.parse(example) as Record<string, { content: Record<string, unknown> }>).profile
      ?.content;
    expect(Object.keys(content ?? {}).sort()).toEqual(['channels', 'contact', 'name', 'region', 'replicas']);
  });

  it('the Ctrl-C texts of --help, the live run and docs/cli.md agree', async () => {
    const help = await runCli(['--help'], env.home);
    const docs = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'a second Ctrl-C stops waiting at once (the cancel request stays sent; the server decides how the task ends)',
    );
    expect(docs.replace(/\s+/g, ' ')).toContain(
      'The cancel request already sent stays sent (the server decides how the task ends)',
    );
    expect(help.stdout).not.toContain('leaves the task running and prints how to resume it');
    const proc = startCliInPty(
      ['call', env.server.url, 'reindex_corpus', 'documents=1000000', '--cancel-wait', '60000'],
      env.home,
    );
    await proc.waitFor(/task [0-9a-f-]{36} started/);
    proc.child.stdin.write('\x03');
    await proc.waitFor(
      /Ctrl-C: sent tasks\/cancel for [0-9a-f-]{36}; waiting up to 60\.0 s for its final status \(Ctrl-C again to stop waiting\)/,
    );
    expect(docs).toContain(
      'Ctrl-C: sent tasks/cancel for <taskId>; waiting up to 3.0 s for\n  its final status (Ctrl-C again to stop waiting)',
    );
  });
});
