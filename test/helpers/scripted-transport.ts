/**
 * A scripted in-memory transport for unit tests: a handler decides each reply; every message is recorded with the
 * (fake) time it was sent.
 */
import { McpError } from '../../src/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import type { Transport, TransportRequestOptions } from '../../src/transport/transport.js';

export interface Sent {
  message: JsonRpcRequest;
  at: number;
}

export type Reply = Record<string, unknown> | { error: { code: number; message: string; data?: unknown } };
export type Handler = (
  method: string,
  params: Record<string, unknown>,
  message: JsonRpcRequest,
) => Reply | Promise<Reply>;

export class ScriptedTransport implements Transport {
  readonly serverKey = 'scripted://server';
  readonly sent: Sent[] = [];
  constructor(public handler: Handler) {}

  async request(
    message: JsonRpcRequest,
    options: TransportRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    this.sent.push({ message: structuredClone(message), at: Date.now() });
    if (options.signal?.aborted) throw options.signal.reason;
    const reply = await this.handler(
      message.method,
      (message.params ?? {}) as Record<string, unknown>,
      message,
    );
    // A JSON-RPC error reply is `{ error }` alone; a failed task's `tasks/get` result also has an `error` member.
    if (
      Object.keys(reply).length === 1 &&
      'error' in reply &&
      reply.error &&
      typeof reply.error === 'object' &&
      'code' in reply.error
    ) {
      throw new McpError(message.method, reply.error as { code: number; message: string; data?: unknown });
    }
    return reply as Record<string, unknown>;
  }

  async notify(_message: JsonRpcNotification): Promise<void> {}
  async close(): Promise<void> {}

  /** Messages of one method. */
  of(method: string): Sent[] {
    return this.sent.filter((s) => s.message.method === method);
  }
}
