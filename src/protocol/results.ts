/**
 * Result shapes and `resultType` dispatch.
 *
 * @module
 */
import { z } from 'zod';
import { META_KEYS } from './constants.js';
import { exactRecord, isJsonObject, jsonObject, keptAsIs } from './exact-keys.js';
import { InputRequestsSchema } from './input.js';

/** The three kinds of result the client dispatches on. Absent means `complete`. */
export type ResultType = 'complete' | 'input_required' | 'task';

/** Any result: an object whose optional `resultType` is a string. Unknown fields are kept. */
export const ResultSchema = keptAsIs(
  z.looseObject({
    resultType: z.string().optional(),
    _meta: jsonObject().optional(),
  }),
);
/** Any result object. */
export type Result = z.infer<typeof ResultSchema>;

/**
 * An MRTR `input_required` result: at least one of `inputRequests` or `requestState`.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr)
 */
export const InputRequiredResultSchema = keptAsIs(
  z
    .looseObject({
      resultType: z.literal('input_required'),
      inputRequests: InputRequestsSchema.optional(),
      requestState: z.string().optional(),
    })
    .refine((r) => r.inputRequests !== undefined || r.requestState !== undefined, {
      message: 'input_required result has neither inputRequests nor requestState',
    }),
);
/** An MRTR `input_required` result. */
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;

/** A content block; only `type` is checked, everything else is kept. */
export const ContentBlockSchema = z.looseObject({ type: z.string() });
/** A content block of a tool result or prompt message. */
export type ContentBlock = z.infer<typeof ContentBlockSchema> & Record<string, unknown>;

/** `tools/call` result. `isError: true` is a tool error, returned, not thrown. */
export const CallToolResultSchema = keptAsIs(
  z.looseObject({
    resultType: z.string().optional(),
    content: z.array(ContentBlockSchema),
    structuredContent: jsonObject().optional(),
    isError: z.boolean().optional(),
  }),
);
/** The final result of `tools/call`. */
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

/** `resources/read` result. */
export const ReadResourceResultSchema = keptAsIs(
  z.looseObject({
    resultType: z.string().optional(),
    contents: z.array(z.looseObject({ uri: z.string() })),
  }),
);
/** The final result of `resources/read`. */
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;

/** `prompts/get` result. */
export const GetPromptResultSchema = keptAsIs(
  z.looseObject({
    resultType: z.string().optional(),
    description: z.string().optional(),
    messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })),
  }),
);
/** The final result of `prompts/get`. */
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;

/** Tool annotations (hints only). */
export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** A tool as listed by `tools/list`. Schemas are kept exactly as received (never dereferenced). */
export const ToolSchema = keptAsIs(
  z.looseObject({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: jsonObject(),
    outputSchema: jsonObject().optional(),
    annotations: ToolAnnotationsSchema.optional(),
  }),
);
/** A tool definition. */
export type Tool = z.infer<typeof ToolSchema>;

/** `tools/list` result. */
export const ListToolsResultSchema = keptAsIs(
  z.looseObject({
    resultType: z.string().optional(),
    tools: z.array(z.unknown()),
    nextCursor: z.string().optional(),
  }),
);

/** `{ name, version }` of the server software: self-reported, for display and logs only. */
const ServerInfoSchema = keptAsIs(z.looseObject({ name: z.string(), version: z.string() }));
/** Server name and version (unknown keys kept). */
export type ServerInfo = z.infer<typeof ServerInfoSchema>;

/**
 * `server/discover` result. Tasks support is read only from `capabilities.extensions`. `serverInfo` is taken from
 * `_meta['io.modelcontextprotocol/serverInfo']`, where the specification puts it (a top-level `serverInfo` from an
 * older draft is the fallback; a malformed one is left out, since it is for display only).
 * (https://modelcontextprotocol.io/specification/2026-07-28/server/discover)
 */
export const DiscoverResultSchema = keptAsIs(
  z.looseObject({
    resultType: z.string().optional(),
    supportedVersions: z.array(z.string()),
    capabilities: z.looseObject({
      extensions: exactRecord(jsonObject()).optional(),
    }),
    serverInfo: z.unknown().optional(),
    instructions: z.string().optional(),
    cacheScope: z.enum(['private', 'public']).optional(),
    ttlMs: z.number().optional(),
    _meta: z.unknown().optional(),
  }),
).transform(({ serverInfo: top, ...rest }): typeof rest & { serverInfo?: ServerInfo } => {
  const fromMeta = ServerInfoSchema.safeParse(
    isJsonObject(rest._meta) ? rest._meta[META_KEYS.serverInfo] : undefined,
  );
  const fallback = ServerInfoSchema.safeParse(top);
  const serverInfo = fromMeta.success ? fromMeta.data : fallback.success ? fallback.data : undefined;
  return serverInfo === undefined ? rest : { ...rest, serverInfo };
});
/** The result of `server/discover`. */
export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;

/** `notifications/progress` params. */
export const ProgressParamsSchema = z.looseObject({
  progressToken: z.union([z.string(), z.number()]),
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional(),
});
/** Progress reported for one in-flight call. */
export type Progress = z.infer<typeof ProgressParamsSchema>;
