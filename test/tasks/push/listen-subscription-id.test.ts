/**
 * A pushed notification names its subscription: "The server MUST include this key on every notification delivered
 * via a subscriptions/listen stream … The value is the JSON-RPC ID of the `subscriptions/listen` request that opened
 * the stream" (schema/2026-07-28 NotificationMetaObject, `io.modelcontextprotocol/subscriptionId`). One naming
 * another subscription is not applied; it is reported.
 */
import { describe, expect, it } from 'vitest';
import { InvalidResponseError } from '../../../src/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../../src/protocol/jsonrpc.js';
import { listenOver } from '../../../src/tasks/push/listen.js';
import type { Transport, TransportRequestOptions } from '../../../src/transport/transport.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';
const pushed = (subscription: unknown, taskId: string): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/tasks',
  params: {
    taskId,
    status: 'completed',
    result: { content: [] },
    ...(subscription === undefined ? {} : { _meta: { [SUB]: subscription } }),
  },
});

/** A transport whose listen stream delivers `notifications(id)` and then closes. */
function streamOf(notifications: (id: string | number) => JsonRpcNotification[]): Transport {
  return {
    serverKey: 'test',
    async request(message: JsonRpcRequest, options?: TransportRequestOptions) {
      for (const n of notifications(message.id)) options?.onNotification?.(n);
      return {};
    },
    async notify() {},
    async close() {},
  };
}

describe('listenOver: the subscription id of pushed notifications', () => {
  it("applies its own and those without the key; drops another subscription's (a string, a number equal as text) and reports each", async () => {
    const got: string[] = [];
    const reported: unknown[] = [];
    let listenId = '';
    const transport = streamOf((id) => {
      listenId = String(id);
      return [
        pushed(id, 'mine'),
        pushed('not-yours', 'foreign'),
        pushed(undefined, 'unnamed'),
        pushed(Number(String(id).replace(/\D/g, '')), 'numeric'),
      ];
    });
    const listen = listenOver(
      transport,
      () => ({}),
      (e) => reported.push(e),
    );
    await listen(
      ['mine'],
      (n) => got.push(String((n.params as { taskId: string }).taskId)),
      new AbortController().signal,
    );
    expect(listenId).toMatch(/^listen-\d+$/);
    expect(got).toEqual(['mine', 'unnamed']);
    expect(reported).toHaveLength(2);
    expect(reported[0]).toBeInstanceOf(InvalidResponseError);
    expect((reported[0] as Error).message).toBe(
      `subscriptions/listen failed: invalid response: notifications/tasks for subscription "not-yours" on the stream of ${listenId}; ignored`,
    );
  });
});
