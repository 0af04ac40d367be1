/**
 * One OpenTelemetry span per followed task, and the task metrics: the observer a {@link TaskHandle} tells of its
 * transitions. The span runs from the creation reply (or the start of following: attach, resume, a fleet takeover)
 * to the end of following (the server's outcome, a lost task, a detach or a close); status changes, questions,
 * answers, cancels and `Retry-After` pauses are events on it. A `tasks/get` is neither a span nor an event: the span
 * counts them (`mcp_tasks.task.polls`), so 10,000 tasks polled for an hour stay 10,000 spans. The span is a child of
 * the request that created the task and linked to it; a task followed again links to its first span, whose context
 * the task record keeps (`traceparent`).
 *
 * The MCP semantic conventions have no task attributes yet: ours are in the `mcp_tasks.` namespace (listed in
 * docs/observability.md). Nothing here runs without `@opentelemetry/api` and a provider that records.
 * (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md)
 *
 * @module
 * @internal
 */
import {
  errorType,
  fromTraceparent,
  INSTRUMENTATION_NAME,
  instruments,
  registerTaskSpan,
  spanText,
  telemetryApi,
  toTraceparent,
  tracerRegistered,
  type Instruments,
} from '../internal/telemetry.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { Settled } from './decisions.js';

type Span = import('@opentelemetry/api').Span;
type Attributes = import('@opentelemetry/api').Attributes;
type Link = import('@opentelemetry/api').Link;
type SpanStatusCode = import('@opentelemetry/api').SpanStatusCode;

/** What a task's span is told at its start. */
export interface TaskTraceStart {
  taskId: string;
  /** The method that created the task, e.g. `tools/call`. */
  method: string;
  /** The tool or prompt name, or resource URI. */
  name: string | undefined;
  /** The transport the task lives on (its `tasks/*` request spans become children of this span). */
  owner: object;
  /** `traceparent` of the request span whose reply created the task (this span's parent, and linked). */
  createdIn: string | undefined;
  /** `traceparent` of the task's first span (kept in its record): this one follows it again, and links to it. */
  firstSpan: string | undefined;
  /** The first state, as the server sent it. */
  task: DetailedTask;
  /** The engine's clock (epoch ms), for the metrics' durations. */
  now: () => number;
}

/**
 * The observer of one task. Every method is cheap and never throws into the engine.
 */
export interface TaskTrace {
  /** `traceparent` of this span (`undefined` when only metrics record). */
  readonly traceparent: string | undefined;
  /** The status or `statusMessage` changed (also the first state): an event when the status itself changed. */
  status(task: DetailedTask): void;
  /** A `tasks/get` returned a state. */
  polled(): void;
  /** A `tasks/get` failed and will be retried; `retryAfterMs` when the server asked to wait (`Retry-After`). */
  pollFailed(error: unknown, retryAfterMs: number | undefined): void;
  /** A question was offered to the caller. */
  asked(key: string, method: string): void;
  /** The server acknowledged an answer (`tasks/update`). */
  answered(key: string, action: string | undefined): void;
  /** `cancel()` was called for the first time. */
  cancelRequested(): void;
  /** The server acknowledged `tasks/cancel`, or it failed for good. */
  cancelDelivered(error?: unknown): void;
  /** Following ended: `outcome` is the handle's, `task` the last state the server reported. */
  end(outcome: Settled<unknown>, task: DetailedTask): void;
}

/** Event names on a task's span. */
export const TASK_EVENTS = {
  status: 'mcp_tasks.task.status',
  inputRequested: 'mcp_tasks.input.requested',
  inputAnswered: 'mcp_tasks.input.answered',
  cancelRequested: 'mcp_tasks.cancel.requested',
  cancelAcknowledged: 'mcp_tasks.cancel.acknowledged',
  cancelFailed: 'mcp_tasks.cancel.failed',
  cancelConfirmed: 'mcp_tasks.cancel.confirmed',
  pollFailed: 'mcp_tasks.poll.failed',
  retryAfter: 'mcp_tasks.poll.retry_after',
} as const;

/**
 * The observer of a task starting to be followed now, or `undefined` when neither a tracer provider nor a meter
 * provider records (then the handle's transitions cost one optional call each).
 */
export function traceTask(start: TaskTraceStart): TaskTrace | undefined {
  const otel = telemetryApi();
  if (otel === undefined) return undefined;
  const metrics = instruments(otel);
  const tracing = tracerRegistered(otel);
  if (!tracing && metrics === undefined) return undefined;
  const created = fromTraceparent(start.createdIn);
  const first = fromTraceparent(start.firstSpan);
  const links: Link[] = [];
  if (created) links.push({ context: created, attributes: { 'mcp_tasks.link.kind': 'created_by' } });
  if (first) links.push({ context: first, attributes: { 'mcp_tasks.link.kind': 'first_follow' } });
  // Created here: a child of the creating request, so the task is in its trace. Followed again: a child of the
  // caller's context, linked to the first span (its trace may be long gone from the backend's retention).
  const parent = created ? otel.trace.setSpanContext(otel.context.active(), created) : otel.context.active();
  const span = tracing
    ? otel.trace
        .getTracer(INSTRUMENTATION_NAME)
        .startSpan(
          `task ${start.name ?? start.method}`,
          { kind: otel.SpanKind.INTERNAL, links, attributes: baseAttributes(start) },
          parent,
        )
    : undefined;
  const recording = span?.isRecording() ? span : undefined;
  if (recording === undefined && metrics === undefined) return undefined;
  if (recording && first) recording.setAttribute('mcp_tasks.task.followed_again', true);
  return new TaskObserver(start, recording, metrics, otel.SpanStatusCode.ERROR);
}

/** The `error.type` of a task that ended in `error`: the JSON-RPC code of a `failed` task's error, else {@link errorType}. */
function taskErrorType(error: unknown): string {
  const code = (error as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === 'number' ? String(code) : errorType(error);
}

function baseAttributes(start: TaskTraceStart): Attributes {
  const attributes: Attributes = {
    'mcp_tasks.task.id': start.taskId,
    'mcp.method.name': start.method,
  };
  if (start.method === 'tools/call' && start.name !== undefined) {
    attributes['gen_ai.tool.name'] = start.name;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (start.method === 'prompts/get' && start.name !== undefined)
    attributes['gen_ai.prompt.name'] = start.name;
  return attributes;
}

class TaskObserver implements TaskTrace {
  readonly traceparent: string | undefined;
  readonly #start: TaskTraceStart;
  readonly #span: Span | undefined;
  readonly #metrics: Instruments | undefined;
  readonly #errorCode: SpanStatusCode;
  readonly #unregister: (() => void) | undefined;
  readonly #startedAt: number;
  #polls = 0;
  #rounds = 0;
  #cancelRequested = false;
  /** Since when the task is `input_required` (epoch ms), while it is. */
  #waitingSince: number | undefined;
  #waitedMs = 0;
  #ended = false;
  /** The status of the last status event. */
  #status: string | undefined;

  constructor(
    start: TaskTraceStart,
    span: Span | undefined,
    metrics: Instruments | undefined,
    errorCode: SpanStatusCode,
  ) {
    this.#start = start;
    this.#span = span;
    this.#metrics = metrics;
    this.#errorCode = errorCode;
    this.#startedAt = start.now();
    this.traceparent = span ? toTraceparent(span.spanContext()) : undefined;
    this.#unregister = span ? registerTaskSpan(start.owner, start.taskId, span) : undefined;
  }

  status(task: DetailedTask): void {
    if (this.#ended) return;
    const waiting = task.status === 'input_required';
    if (waiting && this.#waitingSince === undefined) {
      this.#waitingSince = this.#start.now();
      this.#rounds++;
    } else if (!waiting && this.#waitingSince !== undefined) {
      this.#waitedMs += this.#start.now() - this.#waitingSince;
      this.#waitingSince = undefined;
    }
    const span = this.#span;
    // A new statusMessage alone is no event: a server reporting progress at every poll would fill the span.
    if (!span || task.status === this.#status) return;
    this.#status = task.status;
    const attributes: Attributes = { 'mcp_tasks.task.status': task.status };
    // Server text, capped and escaped: a 200,000-char or control-laden statusMessage must not become the span.
    if (task.statusMessage !== undefined)
      attributes['mcp_tasks.task.status_message'] = spanText(String(task.statusMessage));
    span.addEvent(TASK_EVENTS.status, attributes);
    if (task.status === 'cancelled' && this.#cancelRequested) span.addEvent(TASK_EVENTS.cancelConfirmed);
  }

  polled(): void {
    this.#polls++;
  }

  pollFailed(error: unknown, retryAfterMs: number | undefined): void {
    const span = this.#span;
    if (!span || this.#ended) return;
    span.addEvent(TASK_EVENTS.pollFailed, { 'error.type': errorType(error) });
    if (retryAfterMs !== undefined)
      span.addEvent(TASK_EVENTS.retryAfter, { 'mcp_tasks.retry_after_ms': retryAfterMs });
  }

  asked(key: string, method: string): void {
    if (this.#ended) return;
    this.#span?.addEvent(TASK_EVENTS.inputRequested, {
      'mcp_tasks.input.key': spanText(key),
      'mcp_tasks.input.method': spanText(method),
    });
  }

  answered(key: string, action: string | undefined): void {
    if (this.#ended) return;
    const attributes: Attributes = { 'mcp_tasks.input.key': spanText(key) };
    if (action !== undefined) attributes['mcp_tasks.input.action'] = action;
    this.#span?.addEvent(TASK_EVENTS.inputAnswered, attributes);
  }

  cancelRequested(): void {
    if (this.#ended || this.#cancelRequested) return;
    this.#cancelRequested = true;
    this.#span?.addEvent(TASK_EVENTS.cancelRequested);
  }

  cancelDelivered(error?: unknown): void {
    if (this.#ended) return;
    if (error === undefined) this.#span?.addEvent(TASK_EVENTS.cancelAcknowledged);
    else this.#span?.addEvent(TASK_EVENTS.cancelFailed, { 'error.type': errorType(error) });
  }

  end(outcome: Settled<unknown>, task: DetailedTask): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#unregister?.();
    try {
      this.#record(outcome, task);
    } catch {
      // An SDK that throws (the API promises not to) never breaks the settling of a task.
    }
  }

  #record(outcome: Settled<unknown>, task: DetailedTask): void {
    const now = this.#start.now();
    if (this.#waitingSince !== undefined) this.#waitedMs += now - this.#waitingSince;
    const type = outcome.ok
      ? (outcome.value as { isError?: unknown } | null)?.isError === true
        ? 'tool_error'
        : undefined
      : taskErrorType(outcome.error);
    const span = this.#span;
    if (span) {
      span.setAttribute('mcp_tasks.task.status', task.status);
      span.setAttribute('mcp_tasks.task.polls', this.#polls);
      span.setAttribute('mcp_tasks.task.input_rounds', this.#rounds);
      if (this.#cancelRequested) span.setAttribute('mcp_tasks.task.cancel_requested', true);
      if (type !== undefined) {
        span.setAttribute('error.type', type);
        span.setStatus({
          code: this.#errorCode,
          ...(outcome.ok
            ? {}
            : { message: spanText(String((outcome.error as Error)?.message ?? outcome.error)) }),
        });
      }
      span.end();
    }
    const metrics = this.#metrics;
    if (!metrics) return;
    const attributes: Attributes = {
      'mcp.method.name': this.#start.method,
      'mcp_tasks.task.status': task.status,
    };
    if (this.#start.method === 'tools/call' && this.#start.name !== undefined)
      attributes['gen_ai.tool.name'] = this.#start.name;
    if (type !== undefined) attributes['error.type'] = type;
    metrics.taskDuration.record((now - this.#startedAt) / 1000, attributes);
    metrics.taskPolls.record(this.#polls, attributes);
    if (this.#rounds > 0) metrics.inputRequiredDuration.record(this.#waitedMs / 1000, attributes);
  }
}
