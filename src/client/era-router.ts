/**
 * Chooses the era for each call: modern (our own pipeline) or legacy (the official SDK 1.x session), detecting it
 * on first contact and caching it per server. (issue 4; CLIENT-REQUIREMENTS 2.12, 3.6)
 *
 * @module
 * @internal
 */
import { ClientClosedError, RequestTimeoutError } from '../errors.js';
import { linkAbort } from '../internal/abort.js';
import { cachedEra, eraFromError, rememberEra, type Era } from '../legacy/era.js';
import { LegacyBackend, type LegacyHost } from '../legacy/legacy-backend.js';
import { METHODS } from '../protocol/constants.js';
import { hasLegacyTarget, type Transport } from '../transport/transport.js';

/**
 * How long the stdio `server/discover` probe waits for an answer, in ms, before taking the server for a legacy one
 * (a 2025-11-25 server may ignore a request sent before `initialize`).
 */
export const DISCOVER_PROBE_TIMEOUT_MS = 5_000;

/** Which eras a client may use: detect (`auto`), or insist on one. */
export type EraMode = 'auto' | Era;

/** Routes calls to the modern pipeline or the legacy backend. */
export class EraRouter {
  readonly #transport: Transport;
  readonly #mode: EraMode;
  readonly #host: LegacyHost;
  readonly #probe: (signal?: AbortSignal) => Promise<unknown>;
  readonly #probeTimeoutMs: number;
  #legacy: Promise<LegacyBackend> | undefined;
  #probing: Promise<Era> | undefined;
  #era: Era | undefined;
  #closed = false;

  /**
   * @param probe - sends a modern `server/discover` (used when the transport asks for a probe, i.e. stdio); the
   *   signal it gets also carries the probe's own timeout.
   * @param probeTimeoutMs - the probe's time budget. @default DISCOVER_PROBE_TIMEOUT_MS
   */
  constructor(transport: Transport, mode: EraMode, host: LegacyHost, probe: (signal?: AbortSignal) => Promise<unknown>, probeTimeoutMs = DISCOVER_PROBE_TIMEOUT_MS) {
    this.#transport = transport;
    this.#mode = mode;
    this.#host = host;
    this.#probe = probe;
    this.#probeTimeoutMs = probeTimeoutMs;
    if (mode !== 'auto') this.#era = mode;
    else if (!hasLegacyTarget(transport)) this.#era = 'modern';
  }

  /** The era in use, once known. */
  get era(): Era | undefined {
    return this.#era ?? cachedEra(this.#transport.serverKey);
  }

  /** The legacy session, if one was opened. */
  get legacy(): Promise<LegacyBackend> | undefined {
    return this.#legacy;
  }

  /**
   * Runs `modern`, or `legacy` with the session. While the era is unknown, the modern attempt decides it: a legacy
   * signature switches to the legacy era and re-issues the call there (the server rejected the modern one, so
   * nothing ran twice).
   */
  async route<R>(modern: () => Promise<R>, legacy: (backend: LegacyBackend) => Promise<R>, signal?: AbortSignal): Promise<R> {
    if (this.#closed) throw new ClientClosedError();
    let era = this.era;
    if (era === undefined && hasLegacyTarget(this.#transport) && this.#transport.legacyTarget.probe === 'discover') {
      era = await this.#probeDiscover(signal);
    }
    if (era === 'legacy') return legacy(await this.#backend());
    if (era === 'modern') return modern();
    try {
      const result = await modern();
      this.#set('modern');
      return result;
    } catch (error) {
      const detected = eraFromError(error, 'request');
      if (detected) this.#set(detected);
      if (detected !== 'legacy') throw error;
      return legacy(await this.#backend());
    }
  }

  /** Closes the legacy session, if any. */
  async close(): Promise<void> {
    this.#closed = true;
    const legacy = this.#legacy;
    this.#legacy = undefined;
    if (legacy) await (await legacy.catch(() => undefined))?.close();
  }

  /**
   * One `server/discover` for concurrent first calls. An answer means modern; a JSON-RPC error that is not a modern
   * rejection, or no answer within the probe's timeout, means legacy. Anything else (the caller aborted, the server
   * exited or could not be started) decides nothing: it is rethrown and the next call probes again.
   */
  #probeDiscover(signal?: AbortSignal): Promise<Era> {
    this.#probing ??= this.#runProbe().finally(() => (this.#probing = undefined));
    if (!signal) return this.#probing;
    if (signal.aborted) return Promise.reject(signal.reason);
    // The probe is shared: one caller's abort stops that caller's wait, not the probe.
    return new Promise<Era>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      (this.#probing as Promise<Era>).then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  async #runProbe(): Promise<Era> {
    const link = linkAbort(undefined, this.#probeTimeoutMs, () => new RequestTimeoutError(METHODS.discover, this.#probeTimeoutMs));
    try {
      await this.#probe(link.signal);
      this.#set('modern');
    } catch (error) {
      const detected = eraFromError(link.timedOut ? link.signal.reason : error, 'discover');
      if (detected === undefined) throw error;
      this.#set(detected);
    } finally {
      link.dispose();
    }
    return this.#era as Era;
  }

  #set(era: Era): void {
    this.#era = era;
    rememberEra(this.#transport.serverKey, era);
  }

  #backend(): Promise<LegacyBackend> {
    if (!hasLegacyTarget(this.#transport)) {
      return Promise.reject(new TypeError(`${METHODS.callTool}: the transport cannot reach a 2025-11-25 server`));
    }
    this.#legacy ??= LegacyBackend.connect(this.#transport.legacyTarget, this.#host);
    this.#legacy.catch(() => (this.#legacy = undefined));
    return this.#legacy;
  }
}
