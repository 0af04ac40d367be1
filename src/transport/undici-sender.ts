/**
 * The Node sender: undici's dispatcher API (`Agent.request`), one keep-alive connection pool per origin with a
 * connection cap. It skips what `fetch` builds per call (a `Request`, a `Headers` object, a Web `ReadableStream`
 * over the socket), which is most of the client's CPU per poll. Node only: the Node entry point installs it as the
 * default sender; browser and edge builds never import this file.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 *
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, interceptors, type Dispatcher } from 'undici';
import type { HttpReply, HttpReplyBody, HttpSender, HttpSenderOptions } from './http-sender.js';
import { createStreamLane } from './undici-stream-lane.js';

/** Default cap on concurrent connections per origin: as many as the poll scheduler's default per-server cap. */
export const DEFAULT_MAX_CONNECTIONS_PER_ORIGIN = 16;
/** Redirects followed when the transport asks to follow them (fetch's limit). */
const MAX_REDIRECTIONS = 20;
/** The content codings this sender can decode, as `Accept-Encoding` names them (what `fetch` sends too). */
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** A decoder per content coding (RFC 9110 §8.4.1; `deflate` is the zlib format, as fetch reads it). */
const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The body as its content codings decode it, the last applied first (`Content-Encoding: gzip, br` was gzipped,
 * then compressed with brotli). Every byte limit of the transport then counts decoded bytes, so a small compressed
 * body that decodes past `maxResponseBytes` is refused like any large one. A coding this sender does not know leaves
 * the body as it came (the transport then fails to read it, and says so); `identity` is no coding.
 */
function decoded(body: Readable, contentEncoding: string | string[] | undefined): Readable {
  if (contentEncoding === undefined) return body;
  const codings = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding)
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const decoders = codings.reverse().map((coding) => DECODERS[coding]);
  if (decoders.length === 0 || decoders.some((d) => d === undefined)) return body;
  const streams = [body, ...decoders.map((make) => (make as () => NodeJS.ReadWriteStream)())];
  // pipeline destroys every stream when one fails (a corrupt body, or the reader cancelling the last one).
  return pipeline(
    streams as unknown as [Readable, ...NodeJS.ReadWriteStream[]],
    () => undefined,
  ) as unknown as Readable;
}

function headerGetter(headers: IncomingHttpHeaders): HttpReply['headers'] {
  return {
    get(name: string): string | null {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** Destroys an unfinished body; undici reports that as an 'error' (AbortError), expected here, so it is absorbed. */
function destroyBody(body: Dispatcher.ResponseData['body']): void {
  if (body.readableEnded || body.destroyed) return;
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * The whole body by its 'data' and 'end' events, which costs less than the Readable async iterator (no promise per
 * chunk, no end-of-stream watcher); see `HttpReplyBody.collect`.
 */
function collectBody(
  body: Dispatcher.ResponseData['body'],
  limitBytes: number,
  parts: Uint8Array[] = [],
): Promise<Uint8Array[] | null> {
  return new Promise((resolve, reject) => {
    let total = 0;
    const done = (): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Uint8Array): void => {
      total += chunk.byteLength;
      if (total <= limitBytes) return void parts.push(chunk);
      done();
      destroyBody(body);
      resolve(null);
    };
    const onEnd = (): void => {
      done();
      resolve(parts);
    };
    const onError = (error: unknown): void => {
      done();
      reject(error);
    };
    // Destroyed without an error before its end (no 'end' will come): the reply is cut short.
    const onClose = (): void => {
      done();
      if (body.readableEnded) resolve(parts);
      else
        reject(
          Object.assign(new Error('the reply body closed before its end'), {
            code: 'ERR_STREAM_PREMATURE_CLOSE',
          }),
        );
    };
    if (body.errored) return reject(body.errored);
    if (body.destroyed) return onClose();
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

function nodeBody(body: Dispatcher.ResponseData['body']): HttpReplyBody {
  return {
    // A Node Readable iterates its chunks; leaving the loop early destroys it, which closes an unfinished reply.
    [Symbol.asyncIterator]: () => body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>,
    // A body read to its end has already given its connection back to the pool; only an unfinished one is destroyed
    // (which closes that connection, as fetch does).
    cancel: async () => destroyBody(body),
    collect: (limitBytes, received) => collectBody(body, limitBytes, received),
  };
}

// Runs a request's `beforeWrite` when undici hands it a connection, right before the write
// (`onRequestStart`; `onConnect` for a handler of the older shape); a throw aborts it unsent (undici then closes that
// connection). Every other handler call goes to the original handler.
const START_HOOKS = new Set<PropertyKey>(['onRequestStart', 'onConnect']);
const beforeWriteInterceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const check = (opts as { beforeWrite?: () => void }).beforeWrite;
  if (!check) return dispatch(opts, handler);
  const guarded = new Proxy(handler, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      const method = (value as (...a: unknown[]) => unknown).bind(target);
      if (!START_HOOKS.has(key)) return method;
      return (first: { abort(error: Error): void } | ((error: Error) => void), ...rest: unknown[]) => {
        try {
          check();
        } catch (error) {
          if (typeof first === 'function') first(error as Error);
          else first.abort(error as Error);
          return undefined;
        }
        return method(first, ...rest);
      };
    },
  });
  return dispatch(opts, guarded);
};

function toReply(res: Dispatcher.ResponseData): HttpReply {
  const status = res.statusCode;
  const encoding = res.headers['content-encoding'];
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: headerGetter(res.headers),
    body: nodeBody(
      encoding === undefined ? res.body : (decoded(res.body, encoding) as Dispatcher.ResponseData['body']),
    ),
  };
}

/**
 * A sender over undici's dispatcher API with keep-alive pools (one per origin, at most `maxConnectionsPerOrigin`
 * connections each). It asks for and decodes gzip, deflate and brotli bodies, as `fetch` does. Status, headers, body limits, timeouts and aborts are handled by the transport exactly as with
 * `fetch`; a failure before any reply rejects with undici's error (its `code`, e.g. `ECONNREFUSED`, in the chain).
 *
 * @throws TypeError when `maxConnectionsPerOrigin` is not a positive integer.
 */
export function createUndiciSender(options: HttpSenderOptions = {}): HttpSender {
  const connections = options.maxConnectionsPerOrigin ?? DEFAULT_MAX_CONNECTIONS_PER_ORIGIN;
  if (!Number.isInteger(connections) || connections < 1) {
    throw new TypeError(
      `maxConnectionsPerOrigin must be an integer ≥ 1, got ${options.maxConnectionsPerOrigin}`,
    );
  }
  const pool = new Agent({ connections });
  // A request with a `beforeWrite` goes through the interceptor; one without goes to the pool itself (the same
  // connections), skipping the handler wrappers and the proxy that `compose` puts around every dispatch.
  const guarded = pool.compose(beforeWriteInterceptor);
  let following: Dispatcher | undefined;
  let target = { href: '', origin: '', path: '' };
  // Long-lived streams (`subscriptions/listen`) go on connections of their own, never queued behind pooled requests.
  const streams = createStreamLane((lane) => lane.compose(beforeWriteInterceptor));
  return {
    send(request) {
      let dispatcher: Dispatcher = request.beforeWrite ? guarded : pool;
      if (request.stream) dispatcher = streams.dispatcher();
      else if (request.redirect !== 'manual') {
        following ??= guarded.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
        dispatcher = following;
      }
      const url = request.url;
      // Origin and path are getters that build a string per read; the endpoint's are kept until its href changes.
      if (url.href !== target.href)
        target = { href: url.href, origin: url.origin, path: `${url.pathname}${url.search}` };
      const options = {
        origin: target.origin,
        path: target.path,
        method: request.method,
        headers: { 'accept-encoding': ACCEPT_ENCODING, ...request.headers },
        body: request.body,
        signal: request.signal,
      } as Dispatcher.RequestOptions & { beforeWrite?: () => void };
      if (request.beforeWrite) options.beforeWrite = request.beforeWrite;
      try {
        return dispatcher.request(options).then(toReply);
      } catch (error) {
        return Promise.reject(error); // as from an async function: a send never throws synchronously
      }
    },
    close: async () => {
      await Promise.all([pool.close(), streams.close()]);
    },
  };
}
