/**
 * `listTools()` follows `nextCursor`, but never silently stops: a repeated cursor fails at once, and more than
 * MAX_LIST_PAGES pages is a typed error rather than a shortened list.
 */
import { describe, expect, it } from 'vitest';
import { PaginationError, TaskClient } from '../../src/index.js';
import { MAX_LIST_PAGES } from '../../src/errors.js';
import { ScriptedTransport } from '../helpers/scripted-transport.js';

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

function client(nextCursor: (page: number, cursor: unknown) => string | undefined) {
  let page = 0;
  const transport = new ScriptedTransport((method, params) => {
    if (method !== 'tools/list') return {};
    page++;
    const next = nextCursor(page, params.cursor);
    return {
      resultType: 'complete',
      tools: [tool(`t${page}`)],
      ...(next === undefined ? {} : { nextCursor: next }),
    };
  });
  return { transport, client: new TaskClient({ transport }) };
}

describe('listTools pagination', () => {
  it('follows nextCursor to the last page, sending each cursor once', async () => {
    const { transport, client: c } = client((page) => (page < 3 ? `c${page}` : undefined));
    expect((await c.listTools()).map((t) => t.name)).toEqual(['t1', 't2', 't3']);
    expect(transport.of('tools/list').map((s) => (s.message.params as { cursor?: string }).cursor)).toEqual([
      undefined,
      'c1',
      'c2',
    ]);
  });

  it('the same nextCursor twice: PaginationError (PAGINATION_FAILED, repeated-cursor) after 2 requests, not 100', async () => {
    const { transport, client: c } = client(() => 'c');
    const error = await c.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect(error).toMatchObject({
      code: 'PAGINATION_FAILED',
      reason: 'repeated-cursor',
      pages: 2,
      method: 'tools/list',
    });
    expect((error as Error).message).toBe(
      'tools/list failed: the server repeated a nextCursor after 2 pages (a pagination loop)',
    );
    expect(transport.of('tools/list')).toHaveLength(2);
  });

  it('a cycle of cursors (a, b, a) is caught when a comes back', async () => {
    const { transport, client: c } = client((page) => ['a', 'b', 'a'][page - 1]);
    await expect(c.listTools()).rejects.toMatchObject({ reason: 'repeated-cursor', pages: 3 });
    expect(transport.of('tools/list')).toHaveLength(3);
  });

  it(`a new cursor forever: PaginationError (too-many-pages) after exactly ${MAX_LIST_PAGES} requests; the old tool list is kept`, async () => {
    expect(MAX_LIST_PAGES).toBe(100);
    const { transport, client: c } = client((page) => `c${page}`);
    const error = await c.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaginationError);
    expect(error).toMatchObject({ reason: 'too-many-pages', pages: MAX_LIST_PAGES });
    expect((error as Error).message).toBe(
      `tools/list failed: more than ${MAX_LIST_PAGES} pages; the list is incomplete, so none is returned`,
    );
    expect(transport.of('tools/list')).toHaveLength(MAX_LIST_PAGES);
  });
});
