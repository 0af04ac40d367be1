/**
 * The bridge in front of an upstream whose finished results or questions the host's SDK would reject or show raw:
 * a content part that is not valid (an image whose `data` is not base64) is replaced by a note and the valid parts
 * reach the host (never "-32602 Invalid tools/call result", which blames the host's request); a question's
 * message, titles and descriptions and a progress message reach the host escaped, while the data the upstream
 * compares with (`default`, field keys) stays exact. The official SDK 1.x `Client` as the host, the bridge as a
 * child process, a hand-written upstream over loopback HTTP.
 */
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { bridgeTestFile, sdkHost } from './bridge-helpers.js';
import { hostileUpstream, taskOf } from './hostile-upstream.js';

const EVIL = '\u001b]0;T\u0007\u001b[31mRED\u202eevil\r\nFAKE: completed';
/** Every character that must not reach a host raw: C0/C1 controls but LF and TAB, DEL, bidi controls. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const { home, hosts, upstreams } = bridgeTestFile();

describe('a finished task whose result the host would reject', () => {
  it('keeps the valid text and replaces the invalid image by a note naming why', async () => {
    const upstream = await hostileUpstream({
      call: () => ({ resultType: 'task', ...taskOf('t-bi', 'working') }),
      get: () => ({
        resultType: 'complete',
        ...taskOf('t-bi', 'completed', {
          result: {
            content: [
              { type: 'text', text: 'important text' },
              { type: 'image', data: '!!', mimeType: 'image/png' },
            ],
          },
        }),
      }),
    });
    upstreams.push(upstream);
    const { client } = await sdkHost(upstream.url, home());
    hosts.push(client);
    const result = await client.callTool({ name: 'go', arguments: {} });
    expect(result.isError).toBeUndefined();
    const content = result.content as { type: string; text?: string }[];
    expect(content[0]).toEqual({ type: 'text', text: 'important text' });
    expect(content[1]?.type).toBe('text');
    expect(content[1]?.text).toMatch(
      /^\[a image content part of the upstream's result was dropped here: at "data": .*base64/i,
    );
  }, 60_000);
});

describe('questions and progress from a hostile upstream', () => {
  it('reach the host escaped; default values and field keys stay exact', async () => {
    let answered: unknown;
    const upstream = await hostileUpstream({
      call: () => ({ resultType: 'task', ...taskOf('t-ee', 'working', { statusMessage: EVIL }) }),
      get: (_p, n) =>
        answered === undefined
          ? {
              resultType: 'complete',
              ...taskOf('t-ee', 'input_required', {
                statusMessage: n === 1 ? EVIL : `${EVIL} again`,
                inputRequests: {
                  q1: {
                    method: 'elicitation/create',
                    params: {
                      message: EVIL,
                      requestedSchema: {
                        type: 'object',
                        properties: {
                          name: { type: 'string', title: EVIL, description: EVIL, default: EVIL },
                          'k\u202ey': { type: 'string' },
                        },
                        required: ['name'],
                      },
                    },
                  },
                },
              }),
            }
          : {
              resultType: 'complete',
              ...taskOf('t-ee', 'completed', { result: { content: [{ type: 'text', text: 'fine' }] } }),
            },
      update: (p) => {
        answered = p.inputResponses;
        return { resultType: 'complete' };
      },
    });
    upstreams.push(upstream);
    const { client } = await sdkHost(upstream.url, home(), [], { capabilities: { elicitation: {} } });
    hosts.push(client);
    const asked: Record<string, unknown>[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: 'accept', content: { name: 'x' } };
    });
    const progress: string[] = [];
    const result = await client.callTool({ name: 'go', arguments: {} }, undefined, {
      onprogress: (p) => {
        if (p.message !== undefined) progress.push(p.message);
      },
    });
    expect(result.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(asked).toHaveLength(1);
    const question = asked[0] as {
      message: string;
      requestedSchema: { properties: Record<string, Record<string, unknown>> };
    };
    expect(question.message).toBe('\\x1b]0;T\\x07\\x1b[31mRED\\u202eevil\\x0d\nFAKE: completed');
    const name = question.requestedSchema.properties.name as Record<string, unknown>;
    expect(name.title).toBe('\\x1b]0;T\\x07\\x1b[31mRED\\u202eevil\\x0d\\x0aFAKE: completed');
    expect(name.description).toBe('\\x1b]0;T\\x07\\x1b[31mRED\\u202eevil\\x0d\nFAKE: completed');
    expect(name.default).toBe(EVIL);
    // The key is the name the upstream expects: kept; the host shows its escaped form as the field's title.
    expect(question.requestedSchema.properties['k\u202ey']).toEqual({ type: 'string', title: 'k\\u202ey' });
    expect(progress.length).toBeGreaterThan(0);
    for (const message of progress) expect(UNSAFE.test(message)).toBe(false);
    expect(answered).toEqual({ q1: { action: 'accept', content: { name: 'x' } } });
  }, 60_000);
});
