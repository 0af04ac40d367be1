/**
 * The one place the era is decided, per client (no process-wide cache): modern (our own pipeline) or legacy (the
 * official SDK 1.x session), detected on first contact. On HTTP the first modern request decides; over stdio a
 * `server/discover` probe does. (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning;
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 * @internal
 */
import { ClientClosedError, RequestTimeoutError } from '../errors.js';
import { linkAbort } from '../internal/abort.js';
import { raceAbort } from '../internal/race-abort.js';
import { signalOf, type RequestAbort } from '../internal/request-abort.js';
import { eraFromError, notAnEndpoint, type Era } from '../legacy/era.js';
import { LegacyBackend, type LegacyHost } from '../legacy/legacy-backend.js';
import { METHODS } from '../protocol/constants.js';
import type { EraBackend } from '../tasks/backend.js';
import { probeOf, type Transport } from '../transport/transport.js';
import type { EraMode } from '../tasks/config.js';

/**
 * How long the stdio `server/discover` probe waits for an answer, in ms, before taking the server for a legacy one
 * (a 2025-11-25 server may ignore a request sent before `initialize`).
 */
export const DISCOVER_PROBE_TIMEOUT_MS = 5_000;

/** Decides the era and hands out the backend for it. */
export class EraRouter {
  readonly #transport: Transport;
  readonly #host: LegacyHost;
  readonly #probe: (signal?: AbortSignal) => Promise<unknown>;
  readonly #probeTimeoutMs: number;
  #legacy: Promise<LegacyBackend> | undefined;
  #probing: Promise<Era> | undefined;
  #era: Era | undefined;
  #closed = false;

  /**
   * @param probe - sends a modern `server/discover` (used when the target asks for a probe, i.e. stdio); the
   *   signal it gets also carries the probe's own timeout.
   * @param probeTimeoutMs - the probe's time budget. @default DISCOVER_PROBE_TIMEOUT_MS
   */
  constructor(
    transport: Transport,
    mode: EraMode,
    host: LegacyHost,
    probe: (signal?: AbortSignal) => Promise<unknown>,
    probeTimeoutMs = DISCOVER_PROBE_TIMEOUT_MS,
  ) {
    this.#transport = transport;
    this.#host = host;
    this.#probe = probe;
    this.#probeTimeoutMs = probeTimeoutMs;
    if (mode !== 'auto') this.#era = mode;
    else if (transport.target === undefined) this.#era = 'modern';
  }

  /** The era in use, once known. */
  get era(): Era | undefined {
    return this.#era;
  }

  /** Runs `op` on the era's backend: `modern` as given, or the legacy session (see {@link route}). */
  run<R>(
    modern: EraBackend,
    op: (backend: EraBackend) => Promise<R>,
    signal?: AbortSignal | RequestAbort,
  ): Promise<R> {
    // The era known to be modern (every request after the first): what `route` does then, without its closures and
    // async frame.
    if (this.#era === 'modern' && !this.#closed) {
      try {
        return op(modern);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.route(
      () => op(modern),
      (legacy) => op(legacy),
      signal,
    );
  }

  /**
   * Runs `modern`, or `legacy` with the session. While the era is unknown, the modern attempt decides it: a legacy
   * signature switches to the legacy era and re-issues the call there (the server rejected the modern one, so
   * nothing ran twice).
   */
  async route<R>(
    modern: () => Promise<R>,
    legacy: (backend: LegacyBackend) => Promise<R>,
    signal?: AbortSignal | RequestAbort,
  ): Promise<R> {
    if (this.#closed) throw new ClientClosedError();
    let era = this.#era;
    if (era === undefined) {
      const target = this.#transport.target; // read only while the era is unknown: it is built per read
      if (target !== undefined && probeOf(target) === 'discover')
        era = await this.#probeDiscover(signalOf(signal));
    }
    if (era === 'legacy') return legacy(await this.#backend());
    if (era === 'modern') return modern();
    try {
      const result = await modern();
      this.#era = 'modern';
      return result;
    } catch (error) {
      const detected = eraFromError(error, 'request');
      if (detected) this.#era = detected;
      if (detected !== 'legacy') throw error;
      const backend = await this.#backend().catch((failure: unknown) => {
        const missing = notAnEndpoint(error, failure, this.#transport.target);
        if (missing) this.#era = undefined; // neither era is there: decide again on the next call
        throw missing ?? failure;
      });
      return legacy(backend);
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
    return raceAbort(this.#probing, signal); // the probe is shared: one caller's abort stops only its own wait
  }

  async #runProbe(): Promise<Era> {
    const link = linkAbort(
      undefined,
      this.#probeTimeoutMs,
      () => new RequestTimeoutError(METHODS.discover, this.#probeTimeoutMs),
    );
    try {
      await this.#probe(link.signal);
      this.#era = 'modern';
    } catch (error) {
      const detected = eraFromError(link.timedOut ? link.signal.reason : error, 'discover');
      if (detected === undefined) throw error;
      this.#era = detected;
    } finally {
      link.dispose();
    }
    return this.#era as Era;
  }

  #backend(): Promise<LegacyBackend> {
    const target = this.#transport.target;
    if (target === undefined)
      return Promise.reject(
        new TypeError(`${METHODS.callTool}: the transport cannot reach a 2025-11-25 server`),
      );
    const release = target.kind === 'stdio' ? () => this.#transport.close() : undefined;
    this.#legacy ??= LegacyBackend.connect(target, this.#host, release);
    this.#legacy.catch(() => (this.#legacy = undefined));
    return this.#legacy;
  }
}
