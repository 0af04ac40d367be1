/**
 * Tool arguments from the command line: `key=value` pairs (JSON when the value parses as JSON, else a string) and
 * one JSON object (`--json '{…}'` or `--args '{…}'`); plus the server URL check.
 *
 * @module
 */
import { UsageError } from './exit-codes.js';
import { parseDuration } from './duration.js';

/**
 * Rewrites `--json '{…}'` (a value that starts with `{`) to `--args '{…}'`, so one spelling serves both uses the
 * command line documents: `--json '{…}'` gives the tool's arguments, a bare `--json` asks for JSON output.
 *
 * @param argv the arguments after `node` and the script.
 */
export function disambiguateJsonFlag(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (token === '--json' && next !== undefined && next.trimStart().startsWith('{')) out.push('--args');
    else if (token.startsWith('--json=') && token.slice(7).trimStart().startsWith('{'))
      out.push(`--args=${token.slice(7)}`);
    else out.push(token);
  }
  return out;
}

/** Parses one `key=value` value: JSON when it parses (`3`, `true`, `"x"`, `[1]`), else the string as typed. */
export function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** True when the tool's `inputSchema` says property `key` is a string (and nothing else). */
function isStringProperty(inputSchema: Record<string, unknown> | undefined, key: string): boolean {
  const properties = inputSchema?.properties as Record<string, { type?: unknown }> | undefined;
  const type = properties?.[key]?.type;
  return type === 'string' || (Array.isArray(type) && type.length === 1 && type[0] === 'string');
}

/**
 * Builds the tool's `arguments` from the JSON object (first) and the `key=value` pairs (which override it). A value
 * is kept exactly as typed when the tool's `inputSchema` (if known) says the property is a string, so
 * `version=3.0` stays `"3.0"`.
 *
 * @throws {@link UsageError} when a pair has no `=` or an empty key, or the JSON is not an object.
 */
export function parseToolArguments(
  pairs: readonly string[],
  json: string | undefined,
  inputSchema?: Record<string, unknown>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      throw new UsageError(`--json/--args is not valid JSON: ${(error as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new UsageError('--json/--args must be a JSON object, e.g. \'{"documents": 500}\'');
    }
    Object.assign(args, parsed);
  }
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`expected key=value, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, at);
    const raw = pair.slice(at + 1);
    args[key] = isStringProperty(inputSchema, key) ? raw : parseValue(raw);
  }
  return args;
}

/**
 * Checks a server address: an `http:` or `https:` URL.
 *
 * @throws {@link UsageError} otherwise.
 */
export function parseServerUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`server must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`server must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return url;
}

/**
 * Parses a non-negative duration option (`3s`, `500ms`, `0`; a bare number is milliseconds) into milliseconds.
 *
 * @throws {@link UsageError} naming the option.
 */
export function parseMs(name: string, raw: string): number {
  return parseDuration(name, raw, { allowZero: true });
}
