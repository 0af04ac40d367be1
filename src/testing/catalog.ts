/**
 * Definitions of what the reference server offers (tools, resources, prompts) and small helpers for writing their
 * jobs: argument readers that fail with -32602, text results, and form-mode elicitation requests.
 *
 * @module
 */
import { ErrorCode, type InputRequest } from '../protocol/index.js';
import { JobError, type Job } from './job.js';

/**
 * How a handler relates to tasks. `optional`: a task only if the job outlives the inline budget and the client
 * declared the extension, otherwise the server waits inline. `required`: a client that did not declare the
 * extension gets -32021 before the job starts. (ext-tasks § Capability Negotiation)
 */
export type TaskSupport = 'optional' | 'required';

/** Tool hints, as in the 2026-07-28 `ToolAnnotations`. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool of the reference server. `run` receives `arguments` as `ctx.args`. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  /** JSON Schema (2020-12) of `arguments`; `type: "object"` at the root. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the result's `structuredContent`, listed in `tools/list` (the server does not check it). */
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  /** @default 'optional' */
  taskSupport?: TaskSupport;
  /** Top-level client capabilities the tool needs (e.g. `"elicitation"`, `"sampling"`); missing ones → -32021. */
  requiredCapabilities?: readonly string[];
  run: Job;
}

/** A resource of the reference server. `run` receives `{uri}` as `ctx.args` and returns `{contents}`. */
export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** @default 'optional' */
  taskSupport?: TaskSupport;
  run: Job;
}

/** A prompt of the reference server. `run` receives `arguments` as `ctx.args` and returns `{messages}`. */
export interface PromptDefinition {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  /** @default 'optional' */
  taskSupport?: TaskSupport;
  run: Job;
}

/** Everything one server offers. */
export interface Catalog {
  tools: ToolDefinition[];
  resources: ResourceDefinition[];
  prompts: PromptDefinition[];
}

/** Concatenates catalogs; a later entry with the same tool/prompt name or resource URI replaces an earlier one. */
export function mergeCatalogs(...catalogs: Catalog[]): Catalog {
  const tools = new Map<string, ToolDefinition>();
  const resources = new Map<string, ResourceDefinition>();
  const prompts = new Map<string, PromptDefinition>();
  for (const catalog of catalogs) {
    for (const tool of catalog.tools) tools.set(tool.name, tool);
    for (const resource of catalog.resources) resources.set(resource.uri, resource);
    for (const prompt of catalog.prompts) prompts.set(prompt.name, prompt);
  }
  return { tools: [...tools.values()], resources: [...resources.values()], prompts: [...prompts.values()] };
}

/**
 * Reads a string argument.
 *
 * @throws {@link JobError} -32602 when it is missing (and no `fallback` is given) or not a string.
 */
export function stringArg(args: Record<string, unknown>, name: string, fallback?: string): string {
  const value = args[name] ?? fallback;
  if (typeof value !== 'string')
    throw new JobError(ErrorCode.InvalidParams, `Argument "${name}" must be a string`);
  return value;
}

/**
 * Reads a finite number argument within `[min, max]`.
 *
 * @throws {@link JobError} -32602 when it is missing (and no `fallback` is given), not a number or out of range.
 */
export function numberArg(
  args: Record<string, unknown>,
  name: string,
  range: { min: number; max: number; fallback?: number },
): number {
  const value = args[name] ?? range.fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < range.min || value > range.max) {
    throw new JobError(
      ErrorCode.InvalidParams,
      `Argument "${name}" must be a number from ${range.min} to ${range.max}`,
    );
  }
  return value;
}

/** A `CallToolResult` body with one text block: `{content: [{type: "text", text}], ...extra}`. */
export function textResult(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { content: [{ type: 'text', text }], ...extra };
}

/**
 * A form-mode `elicitation/create` input request (no `mode`, which means form). `properties` are primitive JSON
 * Schema definitions, e.g. `{confirm: {type: "boolean"}}`.
 */
export function elicitForm(
  message: string,
  properties: Record<string, Record<string, unknown>>,
  required: string[] = [],
): InputRequest {
  return {
    method: 'elicitation/create',
    params: { message, requestedSchema: { type: 'object', properties, required } },
  };
}

/** Reads an elicitation answer: `{action, content}`; `action` is `"missing"` when no answer object was given. */
export function readElicitAnswer(answer: unknown): { action: string; content: Record<string, unknown> } {
  if (answer === null || typeof answer !== 'object') return { action: 'missing', content: {} };
  const { action, content } = answer as { action?: unknown; content?: unknown };
  return {
    action: typeof action === 'string' ? action : 'missing',
    content: content !== null && typeof content === 'object' ? (content as Record<string, unknown>) : {},
  };
}
