/**
 * The one place the era is decided, per client (no process-wide cache): modern (our own pipeline) or legacy (the
 * official SDK 1.x session), detected on first contact. On HTTP the first modern request decides; over stdio a
 * `server/discover` probe does. (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning;
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio)
 *
 * @module
 * @internal
 */
import { ClientClosedError, McpError, RequestTimeoutError } from '../errors.js';
import { raceAbort } from '../internal/race-abort.js';
import { eraFromError, notAnEndpoint, type Era } from '../legacy/era.js';
import { LegacyBackend, type LegacyHost } from '../legacy/legacy-backend.js';
import { ErrorCode, METHODS } from '../protocol/constants.js';
import type { EraBackend } from '../tasks/backend.js';
import type { JsonRpcChannel } from '../transport/channel.js';
import { probeOf, type Transport } from '../transport/transport.js';
import type { EraMode } from '../tasks/config.js';

/**
 * How long the stdio `server/discover` probe waits for an answer, in ms, before taking the server for a legacy one
 * (a 2025-11-25 server may ignore a request sent before `initialize`). A server that is only slow to start is not
 * lost by this: the probe stays in flight while `initialize` is tried, and a late answer to it, or `initialize`
 * refused as an unknown method, switches back to the modern era.
 */
export const DISCOVER_PROBE_TIMEOUT_MS = 5_000;

/** The stdio `server/discover` probe still in flight after its time budget ran out. */
interface LateProbe {
  /** Resolves `true` once the server answered the probe (it is modern), `false` once the probe failed or stopped. */
  readonly answered: Promise<boolean>;
  /** Stops the probe (the server is sent `notifications/cancelled`). */
  readonly stop: () => void;
}

const TIMED_OUT = Symbol('timed out');

/** Decides the era and hands out the backend for it. */
export class EraRouter {
  readonly #transport: Transport;
  readonly #host: LegacyHost;
  readonly #probe: (signal?: AbortSignal) => Promise<unknown>;
  readonly #probeTimeoutMs: number;
  /** The legacy session; resolves `undefined` when trying it showed the server to be modern after all. */
  #legacy: Promise<LegacyBackend | undefined> | undefined;
  #probing: Promise<Era> | undefined;
  #late: LateProbe | undefined;
  #era: Era | undefined;
  #closed = false;

  /**
   * @param probe - sends a modern `server/discover` (used when the target asks for a probe, i.e. stdio); it must
   *   settle on its own (the client's request timeout bounds it) or when the signal it gets aborts.
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
  run<R>(modern: EraBackend, op: (backend: EraBackend) => Promise<R>, signal?: AbortSignal): Promise<R> {
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
    signal?: AbortSignal,
  ): Promise<R> {
    if (this.#closed) throw new ClientClosedError();
    let era = this.#era;
    if (era === undefined) {
      const target = this.#transport.target; // read only while the era is unknown: it is built per read
      if (target !== undefined && probeOf(target) === 'discover') era = await this.#probeDiscover(signal);
    }
    if (era === 'legacy') {
      const backend = await this.#backend();
      // `undefined`: a server slow to answer the probe turned out modern when `initialize` was tried.
      return backend ? legacy(backend) : modern();
    }
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
      if (backend) return legacy(backend);
      throw error; // not reached: only a stdio probe leaves a late answer that can turn the era back to modern
    }
  }

  /** Closes the legacy session, if any. */
  async close(): Promise<void> {
    this.#closed = true;
    const legacy = this.#legacy;
    this.#legacy = undefined;
    this.#late?.stop();
    this.#late = undefined;
    if (legacy) await (await legacy.catch(() => undefined))?.close();
  }

  /**
   * One `server/discover` for concurrent first calls. An answer means modern; a JSON-RPC error that is not a modern
   * rejection, or no answer within the probe's timeout, means legacy. Anything else (the caller aborted, the server
   * exited or could not be started) decides nothing: it is rethrown and the next call probes again. A probe that
   * timed out is not stopped: it stays in flight while `initialize` is tried (see {@link #fallBack}).
   */
  #probeDiscover(signal?: AbortSignal): Promise<Era> {
    this.#probing ??= this.#runProbe().finally(() => (this.#probing = undefined));
    return raceAbort(this.#probing, signal); // the probe is shared: one caller's abort stops only its own wait
  }

  async #runProbe(): Promise<Era> {
    const controller = new AbortController();
    const probe = this.#probe(controller.signal);
    probe.catch(() => undefined); // its failure is read below, or by the late probe's `answered`
    let timer: ReturnType<typeof setTimeout> | undefined;
    const budget = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(resolve, this.#probeTimeoutMs, TIMED_OUT);
    });
    try {
      if ((await Promise.race([probe, budget])) === TIMED_OUT) {
        // No answer in time: legacy (versioning.mdx § Backward Compatibility), unless the legacy attempt shows
        // otherwise. The probe goes on meanwhile, for a modern server that is only slow to start.
        const timeout = new RequestTimeoutError(METHODS.discover, this.#probeTimeoutMs);
        this.#late = {
          answered: probe.then(
            () => true,
            () => false,
          ),
          stop: () => controller.abort(timeout),
        };
        this.#era = 'legacy';
      } else this.#era = 'modern';
    } catch (error) {
      const detected = eraFromError(error, 'discover');
      if (detected === undefined) throw error;
      this.#era = detected;
    } finally {
      clearTimeout(timer);
    }
    return this.#era as Era;
  }

  /** The legacy session, or `undefined` when trying it showed the server to be modern (the era is then modern). */
  #backend(): Promise<LegacyBackend | undefined> {
    if (this.#legacy) return this.#legacy;
    const target = this.#transport.target;
    if (target === undefined)
      return Promise.reject(
        new TypeError(`${METHODS.callTool}: the transport cannot reach a 2025-11-25 server`),
      );
    const release = target.kind === 'stdio' ? () => this.#transport.close() : undefined;
    const late = this.#late;
    this.#late = undefined;
    const legacy = late
      ? this.#fallBack(target, late, release)
      : LegacyBackend.connect(target, this.#host, release);
    this.#legacy = legacy;
    legacy.then(
      (backend) => {
        if (backend === undefined && this.#legacy === legacy) this.#legacy = undefined;
      },
      () => {
        if (this.#legacy === legacy) this.#legacy = undefined;
      },
    );
    return legacy;
  }

  /**
   * `initialize` after a probe that got no answer in time, with the probe still in flight and the process that got
   * it still running (ended only once `initialize` succeeded). The server is modern after all, and the era switches
   * back (one `warning`), when the probe is answered first, or when `initialize` is refused as an unknown method
   * (-32601: every 2025-11-25 server knows it) or with another JSON-RPC error and the probe is then answered. Any
   * other failure of `initialize` is rethrown as it is, the probe stopped.
   */
  async #fallBack(
    target: NonNullable<Transport['target']>,
    late: LateProbe,
    release: (() => Promise<void>) | undefined,
  ): Promise<LegacyBackend | undefined> {
    // The channel `initialize` goes on, kept to be closed when the server turns out modern (its process ended).
    let channel: JsonRpcChannel | undefined;
    const open = target.kind === 'stdio' ? target.openChannel : undefined;
    const tracked = open ? { ...target, openChannel: () => (channel = open()) } : target;
    const connecting = LegacyBackend.connect(tracked, this.#host);
    type Outcome = { backend: LegacyBackend } | { error: unknown } | { answered: true };
    const settled: Promise<Outcome> = connecting.then(
      (backend) => ({ backend }),
      (error: unknown) => ({ error }),
    );
    // A late answer to the probe wins; a failed probe leaves it to `initialize`.
    const first = await Promise.race([
      settled,
      late.answered.then((answered): Outcome | Promise<Outcome> => (answered ? { answered } : settled)),
    ]);
    if ('answered' in first) {
      channel?.close().catch(() => undefined); // `initialize` is refused anyway by a modern server
      connecting.then((backend) => backend.close()).catch(() => undefined);
      return this.#modernAfterAll('its late answer to server/discover');
    }
    if ('backend' in first) {
      late.stop();
      release?.().catch(() => undefined);
      return first.backend;
    }
    const { error } = first;
    if (error instanceof McpError && error.httpStatus === undefined && !this.#closed) {
      if (error.code === ErrorCode.MethodNotFound)
        return this.#modernAfterAll(`initialize refused as an unknown method (${error.code})`);
      if (await late.answered) return this.#modernAfterAll('its late answer to server/discover');
    }
    late.stop();
    throw error;
  }

  #modernAfterAll(evidence: string): undefined {
    if (this.#closed) throw new ClientClosedError();
    this.#era = 'modern';
    this.#host.warning?.(
      `${METHODS.discover} got no answer within ${this.#probeTimeoutMs} ms, so initialize was tried; ` +
        `the server speaks 2026-07-28 (${evidence}): continuing in the modern era`,
    );
    return undefined;
  }
}
