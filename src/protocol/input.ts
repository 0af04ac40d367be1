/**
 * Embedded server-to-client requests (`inputRequests`) and the client's answers (`inputResponses`), shared by MRTR
 * rounds and tasks. (https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2026-07-28/schema.ts § InputRequests)
 *
 * @module
 */
import { z } from 'zod';
import { exactRecord, jsonObject, keptAsIs } from './exact-keys.js';

/** A JSON Schema object of primitive fields, as used by form-mode elicitation (`requestedSchema`). */
export const RequestedSchemaSchema = z.looseObject({
  type: z.literal('object').optional(),
  properties: exactRecord(jsonObject()).optional(),
  required: z.array(z.string()).optional(),
});

/** `elicitation/create` params. No `mode` means form mode. */
export const ElicitRequestParamsSchema = z.looseObject({
  mode: z.enum(['form', 'url']).optional(),
  message: z.string(),
  requestedSchema: RequestedSchemaSchema.optional(),
  url: z.string().optional(),
  elicitationId: z.string().optional(),
});
/** Parameters of an elicitation request. */
export type ElicitRequestParams = z.infer<typeof ElicitRequestParamsSchema>;

/** An embedded `elicitation/create` request. */
export const ElicitInputRequestSchema = z.looseObject({
  method: z.literal('elicitation/create'),
  params: ElicitRequestParamsSchema,
});
/** An embedded `sampling/createMessage` request (deprecated in 2026-07-28, still answered). */
export const SamplingInputRequestSchema = z.looseObject({
  method: z.literal('sampling/createMessage'),
  params: z.looseObject({ messages: z.array(z.unknown()), maxTokens: z.number() }),
});
/** An embedded `roots/list` request (deprecated in 2026-07-28, still answered). */
export const RootsInputRequestSchema = z.looseObject({
  method: z.literal('roots/list'),
  params: jsonObject().optional(),
});

/** One embedded request, discriminated by `method`; returned as the server sent it (every key kept). */
export const InputRequestSchema = keptAsIs(
  z.discriminatedUnion('method', [
    ElicitInputRequestSchema,
    SamplingInputRequestSchema,
    RootsInputRequestSchema,
  ]),
);
/** One embedded request: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export type InputRequest = z.infer<typeof InputRequestSchema>;
/** An embedded elicitation request. */
export type ElicitInputRequest = z.infer<typeof ElicitInputRequestSchema>;
/** An embedded sampling request. */
export type SamplingInputRequest = z.infer<typeof SamplingInputRequestSchema>;
/** An embedded roots request. */
export type RootsInputRequest = z.infer<typeof RootsInputRequestSchema>;

/**
 * The most keys one `inputRequests` object may hold. A person answers questions; a reply with more than a thousand
 * is a hostile or broken server, and each key costs an event, a handler call and (for a task) a `tasks/update`.
 * Enforced where questions are offered (`TooManyInputRequestsError`); {@link InputRequestsSchema} checks no value of
 * a larger object.
 */
export const MAX_INPUT_REQUESTS_PER_REPLY = 1_000;

/**
 * `inputRequests`: server-assigned key → embedded request. Every key is kept byte-exact, `__proto__` included. An
 * object of more than {@link MAX_INPUT_REQUESTS_PER_REPLY} keys is kept as sent without checking any value: it is
 * refused by its count before any question is asked, so validating a hostile server's million entries first would
 * only cost time and memory.
 */
export const InputRequestsSchema = exactRecord(InputRequestSchema, MAX_INPUT_REQUESTS_PER_REPLY);
/** Map of server-assigned key to embedded request. */
export type InputRequests = z.infer<typeof InputRequestsSchema>;

/** The answer to an elicitation: `accept` with `content` (form mode), or `decline` / `cancel`. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  [key: string]: unknown;
}
/** The answer to a sampling request. */
export interface CreateMessageResult {
  role: 'assistant' | 'user';
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}
/** The answer to a roots request. */
export interface ListRootsResult {
  roots: Array<{ uri: string; name?: string }>;
  [key: string]: unknown;
}
/** Any answer; never carries `resultType`. */
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;
/** `inputResponses`: the same keys as the `inputRequests` they answer. */
export type InputResponses = Record<string, InputResponse>;

/** Schema of one answer, checked before it goes on the wire; returned as given (every key kept). */
export const InputResponseSchema = keptAsIs(
  z.union([
    z.looseObject({ action: z.enum(['accept', 'decline', 'cancel']), content: jsonObject().optional() }),
    z.looseObject({ role: z.enum(['assistant', 'user']), content: z.unknown(), model: z.string() }),
    z.looseObject({ roots: z.array(z.looseObject({ uri: z.string(), name: z.string().optional() })) }),
  ]),
);
