/**
 * Sorting what a server sent into responses, notifications and (dropped) requests, and turning a response into a
 * result or an error.
 *
 * @module
 * @internal
 */
import { InvalidResponseError, McpError } from '../errors.js';
import { fastResultResponse } from '../protocol/fast-shapes.js';
import {
  JsonRpcErrorResponseSchema,
  JsonRpcNotificationSchema,
  JsonRpcResultResponseSchema,
  type JsonRpcNotification,
  type RequestId,
} from '../protocol/jsonrpc.js';
import { excerpt, textBeforeBreak } from './read-body.js';

/** One message from a server, classified. */
export type IncomingMessage =
  | { kind: 'result'; id: RequestId; result: Record<string, unknown> }
  | {
      kind: 'error';
      id: RequestId | null | undefined;
      error: { code: number; message: string; data?: unknown };
    }
  | { kind: 'notification'; notification: JsonRpcNotification }
  | { kind: 'request'; method: string }
  | { kind: 'invalid'; detail: string };

/** Classifies one parsed JSON value. */
export function classifyMessage(value: unknown): IncomingMessage {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      kind: 'invalid',
      detail: `expected a JSON-RPC object, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    };
  }
  const record = value as Record<string, unknown>;
  // A well-formed result response (nearly every reply) skips zod; any other shape goes through the schemas below.
  const fast = fastResultResponse(record);
  if (fast) return { kind: 'result', id: fast.id, result: fast.result };
  if ('method' in record) {
    if ('id' in record && record.id !== undefined) return { kind: 'request', method: String(record.method) };
    const n = JsonRpcNotificationSchema.safeParse(record);
    return n.success
      ? { kind: 'notification', notification: n.data }
      : { kind: 'invalid', detail: 'malformed notification' };
  }
  if ('error' in record) {
    const e = JsonRpcErrorResponseSchema.safeParse(record);
    return e.success
      ? { kind: 'error', id: e.data.id, error: e.data.error }
      : { kind: 'invalid', detail: 'malformed JSON-RPC error response' };
  }
  const r = JsonRpcResultResponseSchema.safeParse(record);
  return r.success
    ? { kind: 'result', id: r.data.id, result: r.data.result }
    : { kind: 'invalid', detail: 'malformed JSON-RPC response' };
}

/** Parses JSON text, failing with `InvalidResponseError` naming the method and an excerpt. */
export function parseJson(text: string, method: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidResponseError(method, `body is not JSON: ${excerpt(text, 80) || '(empty)'}`, undefined, {
      cause: error,
      unreadableReply: true,
    });
  }
}

/** True when the response's id is the request's id (string and number ids are distinct). */
export function idMatches(responseId: RequestId | null | undefined, requestId: RequestId): boolean {
  return responseId === requestId;
}

/** The reply could not be read as the response to the request (see `InvalidResponseError.unreadableReply`). */
const UNREADABLE = { unreadableReply: true } as const;

/**
 * Turns a classified response into the result, or throws.
 *
 * @throws {@link McpError} for a JSON-RPC error (also one with a null id: the server could not read ours), with the
 *   reply's HTTP status and `Retry-After` (ms) when given.
 * @throws {@link InvalidResponseError} for anything that is not the response to `requestId`.
 */
export function settleResponse(
  message: IncomingMessage,
  requestId: RequestId,
  method: string,
  httpStatus?: number,
  retryAfterMs?: number,
): Record<string, unknown> {
  switch (message.kind) {
    case 'result':
      if (!idMatches(message.id, requestId)) {
        throw new InvalidResponseError(
          method,
          `response id ${JSON.stringify(message.id)} does not match request id ${JSON.stringify(requestId)}`,
          undefined,
          UNREADABLE,
        );
      }
      return message.result;
    case 'error':
      if (message.id !== null && message.id !== undefined && !idMatches(message.id, requestId)) {
        throw new InvalidResponseError(
          method,
          `error response id ${JSON.stringify(message.id)} does not match request id ${JSON.stringify(requestId)}`,
          undefined,
          UNREADABLE,
        );
      }
      throw new McpError(method, message.error, { httpStatus, retryAfterMs });
    case 'notification':
      throw new InvalidResponseError(
        method,
        `expected a response, got notification ${message.notification.method}`,
        undefined,
        UNREADABLE,
      );
    case 'request':
      throw new InvalidResponseError(
        method,
        `expected a response, got a server request ${message.method}`,
        undefined,
        UNREADABLE,
      );
    case 'invalid':
      throw new InvalidResponseError(method, message.detail, undefined, UNREADABLE);
  }
}

/**
 * A JSON reply whose connection broke mid-body (`error`, from `readText`): when the bytes that arrived are already one
 * whole JSON value that is the response to `requestId` (its result, or its error), that is the response: returns
 * that text, and `onViolation` reports the broken body. A JSON text cannot go on into a different valid text after
 * its closing brace (only whitespace may follow), so nothing is guessed; a body cut inside the value does not parse
 * and `error` is thrown as it is (the request is lost: its outcome is unknown). Without this, a complete
 * `CreateTaskResult` followed by a cut would leave the task it names running, unknown to the caller.
 */
export function responseBeforeBreak(
  error: unknown,
  requestId: RequestId,
  method: string,
  onViolation: ((detail: string) => void) | undefined,
): string {
  const text = textBeforeBreak(error);
  if (text === undefined) throw error;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw error;
  }
  const message = classifyMessage(value);
  if ((message.kind !== 'result' && message.kind !== 'error') || !idMatches(message.id, requestId))
    throw error;
  const cause = (error as Error).cause;
  onViolation?.(
    `${method}: the connection broke after the whole response had arrived (${excerpt(String(cause ?? error), 80)}); the response is used`,
  );
  return text;
}
