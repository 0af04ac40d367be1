/**
 * OpenTelemetry client spans for requests, through the optional peer `@opentelemetry/api` (the API only; the host
 * brings the SDK and registers a tracer provider). Without the package, or before it is loaded, nothing is traced;
 * with it but no provider registered, the API's no-op span costs one call and its `isRecording()` check.
 * One span per request of either era, named and attributed as the MCP semantic conventions say, and its context
 * carried in `params._meta` (`traceparent`, `tracestate`; `baggage` only when asked; nothing when turned off).
 * (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md)
 *
 * @module
 * @internal
 */

type OtelApi = typeof import('@opentelemetry/api');
type Span = import('@opentelemetry/api').Span;

let api: OtelApi | undefined;
let loading: Promise<OtelApi | undefined> | undefined;
let loaded = false;

/**
 * Starts loading `@opentelemetry/api` once (not a literal specifier, so bundlers leave it alone); resolves with it,
 * or `undefined` when it is not installed. Requests wait for it while it loads ({@link telemetryLoading}).
 */
export function loadTelemetry(): Promise<OtelApi | undefined> {
  const specifier = ['@opentelemetry', 'api'].join('/');
  loading ??= (import(/* @vite-ignore */ /* webpackIgnore: true */ specifier) as Promise<OtelApi>)
    .then(
      (module) => (api = module),
      () => undefined,
    )
    .finally(() => {
      loaded = true;
    });
  return loading;
}

/**
 * The load of `@opentelemetry/api` while it is under way, else `undefined`: the first requests of a process wait
 * for it (once, a few milliseconds), so that they are traced too.
 */
export function telemetryLoading(): Promise<unknown> | undefined {
  return loaded ? undefined : loading;
}

/**
 * What W3C trace context goes to the server in `params._meta`: `true` the span's `traceparent` and `tracestate`;
 * `'with-baggage'` also the active context's `baggage`; `false` nothing.
 */
export type TraceContextMode = boolean | 'with-baggage';

/** What a request's span needs to know of where it goes. */
export interface RequestTarget {
  protocolVersion: string;
  /** The server's URL (HTTP), for `server.address` and `server.port`. */
  url?: string;
}

/** The object of the MCP convention a request names: the tool, prompt or resource; none for other methods. */
function targetOf(method: string, params: Record<string, unknown>): string | undefined {
  const target =
    method === 'resources/read'
      ? params.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params.name
        : undefined;
  return typeof target === 'string' ? target : undefined;
}

/**
 * Starts the client span of one request, when a tracer provider records it, and returns `_meta` with the span's
 * context injected (a copy; `meta` may be shared and frozen) and the function that ends the span with the outcome.
 * `undefined` when nothing records.
 */
export function startRequestSpan(
  method: string,
  id: number | string,
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
  where: RequestTarget,
  traceContext: TraceContextMode,
):
  | { meta: Record<string, unknown>; end: (error: unknown, result?: Record<string, unknown>) => void }
  | undefined {
  const otel = api;
  if (otel === undefined) return undefined;
  const target = targetOf(method, params);
  const span: Span = otel.trace
    .getTracer('mcp-tasks-client')
    .startSpan(target === undefined ? method : `${method} ${target}`, {
      kind: otel.SpanKind.CLIENT,
    });
  if (!span.isRecording()) return undefined;
  span.setAttribute('mcp.method.name', method);
  span.setAttribute('mcp.protocol.version', where.protocolVersion);
  span.setAttribute('jsonrpc.request.id', String(id));
  if (method === 'tools/call' && target !== undefined) {
    span.setAttribute('gen_ai.tool.name', target);
    span.setAttribute('gen_ai.operation.name', 'execute_tool');
  }
  if (method === 'prompts/get' && target !== undefined) span.setAttribute('gen_ai.prompt.name', target);
  if (method === 'resources/read' && target !== undefined) span.setAttribute('mcp.resource.uri', target);
  if (typeof params.taskId === 'string') span.setAttribute('mcp.task.id', params.taskId);
  if (where.url !== undefined) {
    try {
      const url = new URL(where.url);
      span.setAttribute('server.address', url.hostname);
      span.setAttribute('server.port', Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
    } catch {
      // not a URL (e.g. stdio): no address
    }
  }
  let sent = meta;
  if (traceContext !== false) {
    sent = { ...meta };
    // Baggage only when asked: it may carry anything and reaches the server's operators.
    const baggage = traceContext === 'with-baggage';
    otel.propagation.inject(otel.trace.setSpan(otel.context.active(), span), sent, {
      set: (carrier, key, value) => {
        if (key === 'traceparent' || key === 'tracestate' || (baggage && key === 'baggage'))
          (carrier as Record<string, unknown>)[key] = value;
      },
    });
  }
  return {
    meta: sent,
    end: (error, result) => {
      if (error !== undefined) {
        const e = error as { code?: unknown; httpStatus?: unknown; status?: unknown; name?: unknown };
        // A JSON-RPC error's HTTP status (`httpStatus`), or an HTTP failure's own (`status`, `HttpError`).
        const status =
          typeof e.httpStatus === 'number'
            ? e.httpStatus
            : typeof e.status === 'number'
              ? e.status
              : undefined;
        if (status !== undefined) span.setAttribute('http.response.status_code', status);
        span.setAttribute(
          'error.type',
          typeof e.code === 'number' ? String(e.code) : String(e.name ?? 'Error'),
        );
        if (typeof e.code === 'number') span.setAttribute('rpc.response.status_code', String(e.code));
        span.setStatus({
          code: otel.SpanStatusCode.ERROR,
          message: String((error as Error).message ?? error),
        });
      } else if (result?.isError === true) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: otel.SpanStatusCode.ERROR });
      }
      // The task a creation reply named: `{ resultType: 'task', taskId }` (2026-07-28), `{ task: { taskId } }` (2025-11-25).
      const created =
        result?.resultType === 'task' ? result.taskId : (result?.task as { taskId?: unknown })?.taskId;
      if (typeof created === 'string') span.setAttribute('mcp.task.id', created);
      span.end();
    },
  };
}
