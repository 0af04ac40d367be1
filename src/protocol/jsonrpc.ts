/**
 * JSON-RPC 2.0 envelope schemas.
 *
 * @module
 */
import { z } from 'zod';
import { jsonObject, keptAsIs } from './exact-keys.js';

/** A request id: string or integer, never null. */
export const RequestIdSchema = z.union([z.string(), z.number().int()]);
/** A JSON-RPC request id. */
export type RequestId = z.infer<typeof RequestIdSchema>;

/** The `error` member of a JSON-RPC error response: integer `code`, `message`, optional `data`. */
export const JsonRpcErrorObjectSchema = keptAsIs(
  z.looseObject({
    code: z.number().int(),
    message: z.string(),
    data: z.unknown().optional(),
  }),
);
/** A JSON-RPC error object. */
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

/** A JSON-RPC request. */
export const JsonRpcRequestSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  method: z.string(),
  params: jsonObject().optional(),
});
/** A JSON-RPC request. */
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

/** A JSON-RPC notification (no id). */
export const JsonRpcNotificationSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: jsonObject().optional(),
});
/** A JSON-RPC notification. */
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;

/** A successful JSON-RPC response. */
export const JsonRpcResultResponseSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  result: jsonObject(),
});
/** A successful JSON-RPC response. */
export type JsonRpcResultResponse = z.infer<typeof JsonRpcResultResponseSchema>;

/** A JSON-RPC error response; `id` may be absent or null when the server could not read the request's id. */
export const JsonRpcErrorResponseSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema.nullish(),
  error: JsonRpcErrorObjectSchema,
});
/** A JSON-RPC error response. */
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;

/** Either kind of JSON-RPC response. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;

/** Any message a server may send the client. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
