/**
 * OpenTelemetry for requests and tasks, through the optional peer `@opentelemetry/api` (the API only; the host
 * brings the SDK and registers a tracer or meter provider). Without the package, or before it is loaded, nothing is
 * traced or measured; with it but no provider registered, a request costs one look at the global tracer provider
 * and one at the global meter provider.
 * One span per request of either era, named and attributed as the MCP semantic conventions say, its context carried
 * in `params._meta` (`traceparent`, `tracestate`; `baggage` only when asked; nothing when the client turned it off),
 * and the `mcp.client.operation.duration` histogram. A `tasks/get`
 * about a task that has its own span (see `tasks/task-telemetry.ts`) gets no span of its own: the task's span counts
 * it, and its `tasks/update` and `tasks/cancel` spans are children of the task's span.
 * (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md)
 *
 * @module
 * @internal
 */

import { printableExcerpt } from '../protocol/printable.js';

type OtelApi = typeof import('@opentelemetry/api');
type Span = import('@opentelemetry/api').Span;
type SpanContext = import('@opentelemetry/api').SpanContext;
type Histogram = import('@opentelemetry/api').Histogram;
type Attributes = import('@opentelemetry/api').Attributes;

/** The most UTF-16 units of server text one span attribute, event attribute or status message carries. */
export const SPAN_TEXT_MAX_CHARS = 1_000;

/**
 * Server text (a `statusMessage`, an error message) as a span carries it: escaped like error messages (control
 * characters as `\uXXXX`, since exporters print spans to consoles) and cut at {@link SPAN_TEXT_MAX_CHARS} with
 * `…(N chars)`, so a server cannot grow a span without bound.
 */
export function spanText(text: string): string {
  return printableExcerpt(text, SPAN_TEXT_MAX_CHARS);
}

let api: OtelApi | undefined;
let loading: Promise<OtelApi | undefined> | undefined;

/**
 * Starts loading `@opentelemetry/api` once (not a literal specifier, so bundlers leave it alone); resolves with it,
 * or `undefined` when it is not installed. Requests sent before it resolves are not traced: in Node the entry point
 * loads it at once instead ({@link useTelemetryApi}), so there the first request of a process is traced too.
 */
export function loadTelemetry(): Promise<OtelApi | undefined> {
  const specifier = ['@opentelemetry', 'api'].join('/');
  loading ??= (import(/* @vite-ignore */ /* webpackIgnore: true */ specifier) as Promise<OtelApi>).then(
    (module) => (api = module),
    () => undefined,
  );
  return loading;
}

/** Uses an `@opentelemetry/api` already loaded (the Node entry point requires it synchronously when installed). */
export function useTelemetryApi(module: OtelApi): void {
  api = module;
  loading ??= Promise.resolve(module);
}

/**
 * What W3C trace context goes to the server in `params._meta`: `true` the span's `traceparent` and `tracestate`;
 * `'with-baggage'` also the active context's `baggage`; `false` nothing.
 */
export type TraceContextMode = boolean | 'with-baggage';

/** The loaded API, or `undefined` (not installed, or not loaded yet). */
export function telemetryApi(): OtelApi | undefined {
  return api;
}

/** The tracer and meter name of this library. */
export const INSTRUMENTATION_NAME = 'mcp-tasks-client';

// --- Tracing -------------------------------------------------------------------------------------------------------

/** The API's no-op tracer provider: the delegate of a global provider nobody registered a tracer provider behind. */
let noopTracerProvider: { api: OtelApi; provider: unknown } | undefined;

/**
 * Whether a tracer provider is registered: `false` while the global one is the API's no-op, whose spans never record,
 * so a request skips naming, starting and checking a span nobody keeps. Per call it costs one look at the global
 * provider.
 */
export function tracerRegistered(otel: OtelApi): boolean {
  if (noopTracerProvider?.api !== otel) {
    // A proxy with no delegate answers with the API's one no-op provider.
    noopTracerProvider = { api: otel, provider: new otel.ProxyTracerProvider().getDelegate() };
  }
  const global = otel.trace.getTracerProvider();
  const delegate = global instanceof otel.ProxyTracerProvider ? global.getDelegate() : global;
  return delegate !== noopTracerProvider.provider;
}

// --- Metrics -------------------------------------------------------------------------------------------------------

/** Bucket boundaries (s) the MCP convention advises for `mcp.client.operation.duration`. */
const OPERATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** Bucket boundaries (s) for a task's life and its time waiting for input: seconds to a day. */
const TASK_BUCKETS_S = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14_400, 43_200, 86_400];
/** Bucket boundaries for the number of polls of one task. */
const POLL_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

/** The histograms this library records, made once per meter provider. */
export interface Instruments {
  /** `mcp.client.operation.duration` (s): every request. */
  readonly operationDuration: Histogram;
  /** `mcp_tasks.task.duration` (s): from the creation reply (or the start of following) to the end of following. */
  readonly taskDuration: Histogram;
  /** `mcp_tasks.task.polls` ({poll}): the `tasks/get` that returned a state, per task. */
  readonly taskPolls: Histogram;
  /** `mcp_tasks.task.input_required.duration` (s): per task that asked, its total time in `input_required`. */
  readonly inputRequiredDuration: Histogram;
}

let made: { provider: unknown; instruments: Instruments | undefined } | undefined;

/**
 * The instruments, when a meter provider that records is registered; `undefined` otherwise. Per call it costs one
 * look at the global provider: the instruments are made again only when the provider changed.
 */
export function instruments(otel: OtelApi): Instruments | undefined {
  const provider = otel.metrics.getMeterProvider();
  if (made?.provider !== provider) made = { provider, instruments: makeInstruments(otel, provider) };
  return made.instruments;
}

function makeInstruments(
  otel: OtelApi,
  provider: ReturnType<OtelApi['metrics']['getMeterProvider']>,
): Instruments | undefined {
  const meter = provider.getMeter(INSTRUMENTATION_NAME);
  const operationDuration = meter.createHistogram('mcp.client.operation.duration', {
    description:
      'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
    unit: 's',
    advice: { explicitBucketBoundaries: OPERATION_BUCKETS_S },
  });
  // The no-op provider hands out the API's no-op instrument: then nothing is measured, and nothing is built per call.
  const noop = otel.createNoopMeter?.().createHistogram('noop');
  if (noop !== undefined && operationDuration.constructor === noop.constructor) return undefined;
  return {
    operationDuration,
    taskDuration: meter.createHistogram('mcp_tasks.task.duration', {
      description:
        'How long this client followed a task: from its creation reply (or attach) to its outcome.',
      unit: 's',
      advice: { explicitBucketBoundaries: TASK_BUCKETS_S },
    }),
    taskPolls: meter.createHistogram('mcp_tasks.task.polls', {
      description: 'The tasks/get requests that returned a state, per task.',
      unit: '{poll}',
      advice: { explicitBucketBoundaries: POLL_BUCKETS },
    }),
    inputRequiredDuration: meter.createHistogram('mcp_tasks.task.input_required.duration', {
      description: 'Per task that asked for input: its total time in input_required.',
      unit: 's',
      advice: { explicitBucketBoundaries: TASK_BUCKETS_S },
    }),
  };
}

// --- Shared helpers ----------------------------------------------------------------------------------------------------

/**
 * The `error.type` of a failure: the JSON-RPC code (e.g. `-32602`) of a JSON-RPC error, otherwise the error's class
 * name (e.g. `RequestTimeoutError`, `TaskFailedError`).
 */
export function errorType(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown } | null | undefined;
  if (typeof e?.code === 'number') return String(e.code);
  return String(e?.name ?? 'Error');
}

/** A span context as a W3C `traceparent` value (what a task record keeps). */
export function toTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C `traceparent` value read back as a (remote) span context; `undefined` when it is not one. */
export function fromTraceparent(value: string | undefined): SpanContext | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined;
  return {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  };
}

// --- Task spans known to requests ------------------------------------------------------------------------------------

/** The live span of each followed task, by its transport (the server it lives on), then its task id. */
const taskSpans = new WeakMap<object, Map<string, Span>>();

/** Makes `span` the span of `taskId` on `owner` (the transport) while it is followed; returns the function that ends that. */
export function registerTaskSpan(owner: object, taskId: string, span: Span): () => void {
  let spans = taskSpans.get(owner);
  if (!spans) taskSpans.set(owner, (spans = new Map()));
  spans.set(taskId, span);
  return () => {
    if (spans.get(taskId) === span) spans.delete(taskId);
  };
}

/** The span of the request whose reply created a task, by that reply (the raw result object). */
const creatingSpans = new WeakMap<object, SpanContext>();

/** The `traceparent` of the span of the request whose reply is `created` (a `CreateTaskResult`), when it was traced. */
export function creatingSpanOf(created: object): string | undefined {
  const context = creatingSpans.get(created);
  return context === undefined ? undefined : toTraceparent(context);
}

/** Lets `rebuilt` (a creation reply read into another shape) name the same creating span as `reply`. */
export function keepCreatingSpan(reply: object, rebuilt: object): void {
  const context = creatingSpans.get(reply);
  if (context !== undefined) creatingSpans.set(rebuilt, context);
}

// --- Request spans ---------------------------------------------------------------------------------------------------

/** What a request's span needs to know of where it goes. */
export interface RequestTarget {
  protocolVersion: string;
  /** The server's URL (HTTP), for `server.address` and `server.port`. */
  url?: string;
  /** The transport: a `tasks/*` request about a task followed on it belongs to that task's span. */
  owner?: object;
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

/** `server.address` and `server.port` of an HTTP server's URL; none for another transport (e.g. stdio). */
function serverAttributes(url: string | undefined, into: Attributes): void {
  if (url === undefined) return;
  try {
    const parsed = new URL(url);
    into['server.address'] = parsed.hostname;
    into['server.port'] = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  } catch {
    // not a URL: no address
  }
}

/** The attributes the convention puts on both the span and the duration metric of a request. */
function requestAttributes(method: string, target: string | undefined, where: RequestTarget): Attributes {
  const attributes: Attributes = {
    'mcp.method.name': method,
    'mcp.protocol.version': where.protocolVersion,
  };
  if (method === 'tools/call' && target !== undefined) {
    attributes['gen_ai.tool.name'] = target;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (method === 'prompts/get' && target !== undefined) attributes['gen_ai.prompt.name'] = target;
  serverAttributes(where.url, attributes);
  return attributes;
}

/**
 * `_meta` with `span`'s context injected (a copy; `meta` may be shared and frozen): `traceparent`, `tracestate`, and
 * the active context's `baggage` when `withBaggage`. Whatever else the propagator writes is left out.
 */
function injected(
  otel: OtelApi,
  span: Span,
  meta: Record<string, unknown>,
  withBaggage: boolean,
): Record<string, unknown> {
  const sent = { ...meta };
  otel.propagation.inject(otel.trace.setSpan(otel.context.active(), span), sent, {
    set: (carrier, key, value) => {
      // Baggage only when asked: it may carry anything and reaches the server's operators.
      if (key === 'traceparent' || key === 'tracestate' || (withBaggage && key === 'baggage'))
        (carrier as Record<string, unknown>)[key] = value;
    },
  });
  return sent;
}

/** What {@link startRequestSpan} hands back: the `_meta` to send and the function that ends the request's telemetry. */
export interface RequestTelemetry {
  meta: Record<string, unknown>;
  end: (error: unknown, result?: Record<string, unknown>) => void;
}

/** `answer`, settled as it is, after ending `telemetry` with its result or its failure. */
export function endWhenSettled(
  telemetry: RequestTelemetry,
  answer: Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  return answer.then(
    (result) => {
      telemetry.end(undefined, result);
      return result;
    },
    (error: unknown) => {
      telemetry.end(error);
      throw error;
    },
  );
}

/**
 * Starts the telemetry of one request: its client span, when a tracer provider records it, and its duration, when a
 * meter provider records. Returns `_meta` with the span's context injected (a copy; `meta` may be shared and frozen)
 * and the function that ends both with the outcome; `undefined` when nothing records.
 *
 * A `tasks/get` about a task whose span is live gets no span: it carries the task span's context, and the task's
 * span counts it. Other `tasks/*` requests about such a task are children of its span.
 */
export function startRequestSpan(
  method: string,
  id: number | string,
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
  where: RequestTarget,
  traceContext: TraceContextMode,
): RequestTelemetry | undefined {
  const otel = api;
  if (otel === undefined) return undefined;
  const metrics = instruments(otel);
  const tracing = tracerRegistered(otel);
  const taskId = typeof params.taskId === 'string' ? params.taskId : undefined;
  const taskSpan =
    taskId !== undefined && where.owner !== undefined ? taskSpans.get(where.owner)?.get(taskId) : undefined;
  if (!tracing && metrics === undefined && taskSpan === undefined) return undefined;
  const target = targetOf(method, params);
  let span: Span | undefined;
  if (tracing && !(taskSpan !== undefined && method === 'tasks/get')) {
    const parent =
      taskSpan === undefined ? otel.context.active() : otel.trace.setSpan(otel.context.active(), taskSpan);
    span = otel.trace
      .getTracer(INSTRUMENTATION_NAME)
      .startSpan(
        target === undefined ? method : `${method} ${target}`,
        { kind: otel.SpanKind.CLIENT },
        parent,
      );
    if (!span.isRecording()) span = undefined;
  }
  if (span === undefined && metrics === undefined && taskSpan === undefined) return undefined;
  const startedAt = metrics === undefined ? 0 : performance.now();
  const attributes =
    span === undefined && metrics === undefined ? undefined : requestAttributes(method, target, where);
  if (span !== undefined && attributes !== undefined) {
    span.setAttributes(attributes);
    span.setAttribute('jsonrpc.request.id', String(id));
    if (method === 'resources/read' && target !== undefined) span.setAttribute('mcp.resource.uri', target);
    if (taskId !== undefined) span.setAttribute('mcp_tasks.task.id', taskId);
  }
  const carrier = span ?? taskSpan;
  return {
    meta:
      traceContext !== false && carrier !== undefined
        ? injected(otel, carrier, meta, traceContext === 'with-baggage')
        : meta,
    end: (error, result) => {
      let type: string | undefined;
      if (error !== undefined) {
        type = errorType(error);
        const e = error as { code?: unknown; httpStatus?: unknown; status?: unknown };
        // A JSON-RPC error's HTTP status (`httpStatus`), or an HTTP failure's own (`status`, `HttpError`).
        const status =
          typeof e.httpStatus === 'number'
            ? e.httpStatus
            : typeof e.status === 'number'
              ? e.status
              : undefined;
        if (span !== undefined) {
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
          if (typeof e.code === 'number') span.setAttribute('rpc.response.status_code', String(e.code));
          span.setStatus({
            code: otel.SpanStatusCode.ERROR,
            message: spanText(String((error as Error).message ?? error)),
          });
        }
      } else if (result?.isError === true) {
        type = 'tool_error';
        span?.setStatus({ code: otel.SpanStatusCode.ERROR });
      }
      if (span !== undefined) {
        if (type !== undefined) span.setAttribute('error.type', type);
        // The task a creation reply named: `{ resultType: 'task', taskId }` (2026-07-28), `{ task: { taskId } }`
        // (2025-11-25).
        const created =
          result?.resultType === 'task'
            ? result.taskId
            : (result?.task as { taskId?: unknown } | undefined)?.taskId;
        if (result !== undefined && typeof created === 'string') {
          span.setAttribute('mcp_tasks.task.id', created);
          creatingSpans.set(result, span.spanContext());
        }
        span.end();
      }
      if (metrics !== undefined && attributes !== undefined) {
        const measured = type === undefined ? attributes : { ...attributes, 'error.type': type };
        metrics.operationDuration.record((performance.now() - startedAt) / 1000, measured);
      }
    },
  };
}
