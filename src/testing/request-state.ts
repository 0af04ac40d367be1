/**
 * Opaque, tamper-evident MRTR `requestState`: `base64url(JSON payload) + "." + base64url(HMAC-SHA256)`, keyed by a
 * random per-server secret and bound to the method and name of the request that issued it, so a state cannot be
 * replayed on another tool. (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Encodes and verifies `requestState` strings for one server. */
export class RequestStateCodec {
  readonly #key: Buffer;

  /** @param key HMAC key; a random 32-byte key when omitted. */
  constructor(key: Buffer = randomBytes(32)) {
    this.#key = key;
  }

  /** Encodes `state` for the request identified by `scope` (e.g. `"tools/call:confirm_action"`). */
  encode(scope: string, state: unknown): string {
    const payload = Buffer.from(JSON.stringify({ scope, state }), 'utf8').toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /**
   * Decodes a state issued for `scope`.
   *
   * @returns `{ok: true, state}` when the signature and scope match, `{ok: false}` otherwise.
   */
  decode(scope: string, token: string): { ok: true; state: unknown } | { ok: false } {
    const dot = token.indexOf('.');
    if (dot <= 0) return { ok: false };
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.#sign(payload), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false };
    try {
      const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        scope?: unknown;
        state?: unknown;
      };
      return parsed.scope === scope ? { ok: true, state: parsed.state } : { ok: false };
    } catch {
      return { ok: false };
    }
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}
