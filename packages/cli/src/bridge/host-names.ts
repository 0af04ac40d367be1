/**
 * The upstream's tools as the host may see them. A hostile upstream can put control characters, terminal escape
 * sequences (ESC `[31m`…) or bidi overrides (U+202A–U+202E, U+2066–U+2069) in a tool's name, title or description,
 * which would reach the host's model and its UI as they are. Here every `title` and `description` is escaped the way
 * the library's printable helpers write server text (`\x1b`, `\u202e`: visible, never acted on), and a name that is
 * not a valid MCP tool name (1–128 of `A-Z a-z 0-9 _ - .`) is replaced by a valid, unique one. The call still goes
 * upstream under the tool's original name: each adapted tool keeps its own `run`.
 *
 * Tool names: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names
 *
 * @module
 */
import { safeLine, safeText } from 'mcp-tasks-client';
import type { AdaptedTool } from 'mcp-tasks-client/tool-runtime';

/** A valid MCP tool name (2025-11-25): 1 to 128 ASCII letters, digits, `_`, `-` and `.`. */
const VALID_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** Room left for a `_2`-style suffix when a replacement name is made unique. */
const BASE_MAX = 120;

/** Keys whose values are data the schema compares with, not text for people: left exactly as the upstream sent them. */
const DATA_KEYS = new Set(['default', 'const', 'enum', 'examples']);

/**
 * A copy of `value` with every string under a `title` or `description` key escaped (at any depth, outside the data
 * keys `default`, `const`, `enum` and `examples`). Descriptions keep their line breaks and tabs; titles are one line.
 */
export function printableTexts<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => printableTexts(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' && key === 'description') out[key] = safeText(v);
    else if (typeof v === 'string' && key === 'title') out[key] = safeLine(v);
    else if (key === 'properties' && v !== null && typeof v === 'object' && !Array.isArray(v))
      out[key] = printableProperties(v as Record<string, unknown>);
    else out[key] = DATA_KEYS.has(key) ? v : printableTexts(v);
  }
  return out as T;
}

/**
 * A schema's `properties`, texts escaped. The KEYS stay exactly as the upstream sent them (they are the names its
 * arguments and answers must carry), but a host shows a property without `title` by its key: a key with
 * characters that are not printable gets a `title` that is its escaped form, so the host's UI shows that.
 */
function printableProperties(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(properties)) {
    const schema = printableTexts(v);
    const shown = safeLine(key);
    out[key] =
      shown !== key &&
      schema !== null &&
      typeof schema === 'object' &&
      !Array.isArray(schema) &&
      !('title' in schema)
        ? { ...schema, title: shown }
        : schema;
  }
  return out;
}

/**
 * An upstream's `elicitation/create` params as the host may see them: the `message` escaped (line breaks kept),
 * the form's titles and descriptions escaped (see {@link printableTexts}); `default`, `const`, `enum` and the field
 * keys exactly as sent, since the answer goes back to the upstream. A URL-mode question's `url` is kept (it is
 * opened, not shown as text, and the host shows it as a link).
 */
export function printableQuestion(params: Record<string, unknown>): Record<string, unknown> {
  const out = { ...params };
  if (typeof out.message === 'string') out.message = safeText(out.message);
  if (out.requestedSchema !== undefined) out.requestedSchema = printableTexts(out.requestedSchema);
  return out;
}

/** `name` with each character a tool name may not have as `_`, cut to leave room for a suffix. */
function validBase(name: string): string {
  const base = Array.from(name, (c) => (/[A-Za-z0-9_.-]/.test(c) ? c : '_'))
    .join('')
    .slice(0, BASE_MAX);
  return base === '' ? 'tool' : base;
}

/**
 * The tools as the host sees them: valid names kept, others replaced by a valid name no other tool has (`_` for each
 * character not allowed, then `_2`, `_3`… when taken), and every title and description escaped. A renamed tool's
 * description says its upstream name (escaped).
 *
 * @param reserved names the host sees that are not in `tools` (the bridge's own `task_answer`).
 */
export function hostFacingTools(tools: readonly AdaptedTool[], reserved: readonly string[]): AdaptedTool[] {
  const taken = new Set([...reserved, ...tools.filter((t) => VALID_NAME.test(t.name)).map((t) => t.name)]);
  return tools.map((tool) => {
    const serverTool = tool.serverTool ? printableTexts(tool.serverTool) : undefined;
    let name = tool.name;
    let description = safeText(tool.description);
    if (!VALID_NAME.test(name)) {
      const base = validBase(name);
      name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
      taken.add(name);
      const note = `(The server names this tool "${safeLine(tool.sourceName)}"; renamed here to a valid MCP tool name.)`;
      description += `\n\n${note}`;
      if (serverTool)
        serverTool.description = serverTool.description ? `${serverTool.description}\n\n${note}` : note;
    }
    return {
      ...tool,
      name,
      description,
      inputSchema: printableTexts(tool.inputSchema),
      ...(serverTool ? { serverTool } : {}),
    };
  });
}
