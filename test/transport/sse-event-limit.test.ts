/**
 * `maxResponseBytes` bounds one SSE event (one JSON-RPC message), counted as sent, and starts again after each blank
 * line, whatever the line ends (LF, CR LF, CR; a CR LF may be split across chunks). (WHATWG HTML § Server-sent events,
 * event stream interpretation)
 */
import { describe, expect, it } from 'vitest';
import { ResponseTooLargeError } from '../../src/index.js';
import { sseEventMeter } from '../../src/transport/sse-event-limit.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function feed(limit: number, ...chunks: string[]): void {
  const meter = sseEventMeter(limit, 'tools/call');
  for (const chunk of chunks) meter(bytes(chunk));
}

describe('sseEventMeter (maxResponseBytes per SSE event)', () => {
  it('an event of exactly the limit passes; one byte more fails with ResponseTooLargeError', () => {
    const event = 'data: 12345\n'; // 12 bytes, then the blank line ends it
    expect(() => feed(12, event + '\n')).not.toThrow();
    expect(() => feed(11, event + '\n')).toThrow(ResponseTooLargeError);
  });

  it('many events, each under the limit, pass whatever their total (LF, CR LF and CR line ends)', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const event = `data: {"jsonrpc":"2.0","method":"notifications/progress"}${eol}${eol}`;
      expect(() => feed(80, event.repeat(10_000))).not.toThrow();
    }
  });

  it('a CR LF split across chunks is one line end, not a blank line: a big event still fails', () => {
    const chunks = Array.from({ length: 100 }, () => ['data: xxxxxxxxxx\r', '\n']).flat();
    expect(() => feed(500, ...chunks)).toThrow(ResponseTooLargeError);
  });

  it('keep-alive comments between events do not add up', () => {
    expect(() => feed(20, ': keep-alive\n\n'.repeat(10_000))).not.toThrow();
  });

  it('one huge line with no line end fails as soon as it passes the limit', () => {
    const meter = sseEventMeter(1_000, 'tools/call');
    meter(bytes('data: ' + 'x'.repeat(900)));
    expect(() => meter(bytes('x'.repeat(200)))).toThrow('tools/call failed: response exceeded 1000 bytes');
  });
});
