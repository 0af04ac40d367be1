/**
 * The upstream's tools as the host may see them. A hostile upstream can put control characters, terminal escape
 * sequences (ESC `[31m`…) or bidi overrides (U+202A–U+202E, U+2066–U+2069) in a tool's name, title or description,
 * which would reach the host's model and its UI as they are. Here every `title` and `description` is escaped the way
 * the library's printable helpers write server text (`\x1b`, `\u202e`: visible, never acted on; see `hostLine` in `mcp-tasks-client/tool-runtime`),
 * and a name that is not a valid MCP tool name (1–128 of `A-Z a-z 0-9 _ - .`), or that is the bridge's own
 * `task_answer`, is replaced by a valid, unique one. The call still goes upstream under the tool's original name:
 * each adapted tool keeps its own `run`. Prompts get the same treatment (a name or argument name with characters
 * that are not printable is shown escaped, and `prompts/get` maps it back), and a resource's `name` is escaped.
 *
 * Tool names: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names
 *
 * @module
 */
import type { AdaptedTool } from 'mcp-tasks-client/tool-runtime';
import { hostLine, hostQuoted, hostText } from 'mcp-tasks-client/tool-runtime';

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
    if (typeof v === 'string' && key === 'description') out[key] = hostText(v);
    else if (typeof v === 'string' && key === 'title') out[key] = hostLine(v);
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
    const shown = hostLine(key);
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
  if (typeof out.message === 'string') out.message = hostText(out.message);
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
  const keeps = (t: AdaptedTool): boolean => VALID_NAME.test(t.name) && !reserved.includes(t.name);
  const taken = new Set([...reserved, ...tools.filter(keeps).map((t) => t.name)]);
  return tools.map((tool) => {
    const serverTool = tool.serverTool ? printableTexts(tool.serverTool) : undefined;
    let name = tool.name;
    let description = hostText(tool.description);
    if (!keeps(tool)) {
      const base = validBase(name);
      name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
      taken.add(name);
      const note = VALID_NAME.test(tool.name)
        ? `(The server names this tool "${hostLine(tool.sourceName)}"; renamed here because the bridge's own tool has that name.)`
        : `(The server names this tool "${hostLine(tool.sourceName)}"; renamed here to a valid MCP tool name.)`;
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

/** What `prompts/get` must send upstream for a prompt the host knows by another name. */
interface PromptSource {
  /** The upstream's name. */
  name: string;
  /** Host-facing argument name → the upstream's. */
  args: Map<string, string>;
}

/** `shown`, or `shown_2`, `shown_3`… : the first that `taken` does not hold. */
function unique(shown: string, taken: (name: string) => boolean): string {
  let name = shown;
  for (let n = 2; taken(name); n++) name = `${shown}_${n}`;
  return name;
}

/**
 * The upstream's prompts as the host sees them, and the way back. A prompt name or argument name is a string the
 * host shows (as a slash command, a form field) and sends back in `prompts/get`; the specification sets no pattern
 * for it. One with characters that are not printable (controls, bidi, invisible characters) is shown in its escaped
 * form, made unique with `_2`, `_3`…, and the description says the upstream's own name; `prompts/get` under that
 * name reaches the upstream under the original one, with the original argument names.
 *
 * Prompts: https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
 */
export class HostPrompts {
  /** Host-facing name → the upstream's, for every renamed prompt and every prompt with a renamed argument. */
  readonly #sources = new Map<string, PromptSource>();

  /** A `prompts/list` result for the host (texts escaped, names as above). */
  list(result: Record<string, unknown>): Record<string, unknown> {
    const shown = printableTexts(result);
    const prompts = result.prompts;
    const shownPrompts = shown.prompts;
    if (!Array.isArray(prompts) || !Array.isArray(shownPrompts)) return shown;
    const page = new Set(
      prompts
        .map((p) => (p as { name?: unknown } | null)?.name)
        .filter((n): n is string => typeof n === 'string' && hostLine(n) === n),
    );
    shown.prompts = prompts.map((prompt, i) => {
      const out = shownPrompts[i] as Record<string, unknown>;
      const name = (prompt as { name?: unknown } | null)?.name;
      if (typeof name !== 'string' || out === null || typeof out !== 'object') return out;
      let hostName = name;
      let description = typeof out.description === 'string' ? out.description : undefined;
      if (hostLine(name) !== name) {
        const known = [...this.#sources].find(([, source]) => source.name === name)?.[0];
        hostName =
          known ??
          unique(
            hostLine(name),
            (n) => page.has(n) || (this.#sources.has(n) && this.#sources.get(n)?.name !== name),
          );
        const note = `(The server names this prompt ${hostQuoted(name)}; renamed here so that no control or invisible character reaches the host.)`;
        description = description ? `${description}\n\n${note}` : note;
      }
      const args = new Map<string, string>();
      const rawArgs = (prompt as { arguments?: unknown }).arguments;
      if (Array.isArray(rawArgs) && Array.isArray(out.arguments)) {
        const plain = new Set(
          rawArgs
            .map((a) => (a as { name?: unknown } | null)?.name)
            .filter((n): n is string => typeof n === 'string' && hostLine(n) === n),
        );
        out.arguments = rawArgs.map((arg, j) => {
          const shownArg = (out.arguments as unknown[])[j] as Record<string, unknown>;
          const argName = (arg as { name?: unknown } | null)?.name;
          if (typeof argName !== 'string' || hostLine(argName) === argName) return shownArg;
          const hostArg = unique(hostLine(argName), (n) => plain.has(n) || args.has(n));
          args.set(hostArg, argName);
          const note = `(The server names this argument ${hostQuoted(argName)}.)`;
          const argDescription = typeof shownArg.description === 'string' ? shownArg.description : undefined;
          return {
            ...shownArg,
            name: hostArg,
            description: argDescription ? `${argDescription} ${note}` : note,
          };
        });
      }
      if (hostName !== name || args.size > 0) this.#sources.set(hostName, { name, args });
      else this.#sources.delete(hostName);
      return {
        ...out,
        name: hostName,
        ...(description !== undefined ? { description } : {}),
      };
    });
    return shown;
  }

  /** The upstream's name and arguments for a host's `prompts/get` (as they came when nothing was renamed). */
  upstream(
    name: string,
    args: Record<string, string> | undefined,
  ): { name: string; arguments: Record<string, string> | undefined } {
    const source = this.#sources.get(name);
    if (!source) return { name, arguments: args };
    if (args === undefined) return { name: source.name, arguments: undefined };
    const mapped: Record<string, string> = {};
    for (const [key, value] of Object.entries(args)) mapped[source.args.get(key) ?? key] = value;
    return { name: source.name, arguments: mapped };
  }
}

/** A `prompts/get` result for the host: its `description` escaped; its messages are the upstream's, kept exactly. */
export function hostPrompt<T extends { description?: unknown }>(result: T): T {
  return typeof result.description === 'string'
    ? { ...result, description: hostText(result.description) }
    : result;
}

/**
 * A `resources/list` or `resources/templates/list` result for the host: texts escaped (see {@link printableTexts})
 * and each entry's `name` too, which hosts show when there is no `title` (the host reads a resource by its `uri`,
 * kept exactly).
 */
export function hostResources(result: Record<string, unknown>): Record<string, unknown> {
  const shown = printableTexts(result);
  for (const key of ['resources', 'resourceTemplates'] as const) {
    const list = shown[key];
    if (!Array.isArray(list)) continue;
    shown[key] = list.map((entry: unknown) =>
      entry !== null && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string'
        ? { ...entry, name: hostLine((entry as { name: string }).name) }
        : entry,
    );
  }
  return shown;
}
