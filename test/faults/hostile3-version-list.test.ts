/**
 * A hostile -32022 (unsupported protocol version) whose `data.supported` lists no version this client speaks, but
 * strings with terminal escapes, bidi controls and 100,000 characters: the call fails with
 * `UnsupportedProtocolVersionError` whose `supported` keeps the server's strings exactly, and whose `message` (what
 * ends up in logs and terminals) shows them escaped and cut, like every other server text in an error message.
 * Real HTTP on loopback. House rule: bad server input is a typed error or kept exactly, never raw control characters
 * reaching a terminal.
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedProtocolVersionError } from '../../src/node.js';
import { settledBox, useHostile } from './hostile3-harness.js';
import { until } from './hostile3-server.js';

const bench = useHostile();

describe('hostile3: -32022 with hostile supported versions', () => {
  it('the message escapes and bounds them; supported keeps them exactly', async () => {
    const terminalEscape = '\u001b]0;owned\u0007\u001b[2J2099-01-01\u202e';
    const long = 'v'.repeat(100_000);
    const client = bench.client();
    const call = settledBox(client.callTool('deploy', {}));
    (await bench.server.next('tools/call')).error(-32022, 'unsupported', {
      supported: [terminalEscape, long],
    });
    await until(() => call.settled, 'settled');
    const error = call.error as UnsupportedProtocolVersionError;
    expect(error).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect(error.supported).toEqual([terminalEscape, long]);
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(error.message).toContain('\\u001b]0;owned\\u0007\\u001b[2J2099-01-01\\u202e');
    expect(error.message.length).toBeLessThan(2_000);
    expect(bench.server.count('tools/call')).toBe(1);
  });
});
