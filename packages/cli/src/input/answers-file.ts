/**
 * `--answers <file.json>`: answers to the server's questions, for scripts. An entry is found by the input request's
 * key first, then (for forms) by field name:
 *
 * ```json
 * { "confirm": { "action": "accept", "content": { "confirm": true } } }   // by key, a full answer
 * { "confirm": { "confirm": true, "note": "hotfix" } }                     // by key, the form's content
 * { "confirm": "decline" }                                                 // by key, just the action
 * { "note": "hotfix", "confirm": true }                                    // by field name
 * { "draft": { "role": "assistant", "content": { "type": "text", "text": "…" }, "model": "example-model" } }
 *                                                                          // sampling: a CreateMessageResult, by key
 * ```
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { safeLine, type InputRequest, type InputResponse } from 'mcp-tasks-client';
import { UsageError } from '../exit-codes.js';
import { closestNames } from '../suggest.js';
import { checkContent, readFields } from './schema-fields.js';

/** How many characters of the file are quoted on each side of the place JSON.parse stopped. */
const EXCERPT_CHARS = 20;

/**
 * One line for an answers file JSON.parse refused: the file, the reason, the line and column when the parser gives a
 * position, and an escaped excerpt (JSON.parse quotes the whole text, line breaks and all, in some of its messages).
 */
export function notJsonMessage(path: string, text: string, parseMessage: string): string {
  const reason = parseMessage.split(/, "|\s+(?:in JSON )?at position \d/)[0] ?? parseMessage;
  const position = /at position (\d+)/.exec(parseMessage)?.[1];
  let where = '';
  let excerpt = text.slice(0, 2 * EXCERPT_CHARS);
  if (position !== undefined) {
    const at = Number(position);
    const before = text.slice(0, at).split('\n');
    where = ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
    excerpt = text.slice(Math.max(0, at - EXCERPT_CHARS), at + EXCERPT_CHARS);
  }
  return `--answers file ${safeLine(path)} is not valid JSON: ${safeLine(reason)}${where} (${position !== undefined ? 'near' : 'it begins'} ${safeLine(JSON.stringify(excerpt))})`;
}

/** What the answers file says about one question. */
export type AnswerLookup =
  | { kind: 'answer'; response: InputResponse }
  | { kind: 'invalid'; problems: string[] }
  | { kind: 'none' };

const ACTIONS = new Set(['accept', 'decline', 'cancel']);
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A loaded answers file. */
export class AnswersFile {
  readonly path: string;
  readonly #data: Record<string, unknown>;

  constructor(path: string, data: Record<string, unknown>) {
    this.path = path;
    this.#data = data;
  }

  /**
   * Reads and parses the file.
   *
   * @throws {@link UsageError} when it cannot be read or is not a JSON object.
   */
  static async load(path: string): Promise<AnswersFile> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read --answers file ${safeLine(path)}: ${safeLine((error as Error).message)}`,
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new UsageError(notJsonMessage(path, text, (error as Error).message));
    }
    if (!isObject(data)) throw new UsageError(`--answers file ${path} must hold a JSON object of answers`);
    return new AnswersFile(path, data);
  }

  /** The answer for the question `key`, if the file has one (by key, then by field name). */
  lookup(key: string, request: InputRequest): AnswerLookup {
    const entry = Object.hasOwn(this.#data, key) ? this.#data[key] : undefined; // never an inherited `__proto__`/`constructor`
    switch (request.method) {
      case 'elicitation/create':
        return request.params.mode === 'url'
          ? this.#url(entry)
          : this.#form(entry, request.params.requestedSchema);
      case 'sampling/createMessage':
        if (entry === undefined) return { kind: 'none' };
        return isObject(entry) &&
          typeof entry.model === 'string' &&
          typeof entry.role === 'string' &&
          'content' in entry
          ? { kind: 'answer', response: entry as InputResponse }
          : { kind: 'invalid', problems: [`${key}: a sampling answer needs role, content and model`] };
      case 'roots/list':
        if (entry === undefined) return { kind: 'none' };
        return isObject(entry) && Array.isArray(entry.roots)
          ? { kind: 'answer', response: entry as InputResponse }
          : {
              kind: 'invalid',
              problems: [`${key}: a roots answer looks like {"roots": [{"uri": "file:///path"}]}`],
            };
    }
  }

  /**
   * The file's keys that are neither the question's key nor one of its form's field names but close to one (a typo
   * such as `confrim`), each with the name it likely meant, as one phrase: `"confrim" (did you mean "confirm"?)`.
   * Empty when there is none. Names are quoted as JSON and escaped for a terminal.
   */
  nearMisses(key: string, request: InputRequest): string {
    const names =
      request.method === 'elicitation/create' && request.params.mode !== 'url'
        ? [key, ...readFields(request.params.requestedSchema).map((f) => f.name)]
        : [key];
    const quoted = (name: string): string => safeLine(JSON.stringify(name));
    return Object.keys(this.#data)
      .filter((typed) => !names.includes(typed))
      .flatMap((typed) => {
        const meant = closestNames(typed, names, 1)[0];
        return meant === undefined ? [] : [`${quoted(typed)} (did you mean ${quoted(meant)}?)`];
      })
      .join(', ');
  }

  #url(entry: unknown): AnswerLookup {
    if (typeof entry === 'string' && ACTIONS.has(entry))
      return { kind: 'answer', response: { action: entry as 'accept' } };
    if (isObject(entry) && typeof entry.action === 'string' && ACTIONS.has(entry.action))
      return { kind: 'answer', response: { action: entry.action as 'accept' } };
    return { kind: 'none' };
  }

  #form(entry: unknown, requestedSchema: unknown): AnswerLookup {
    const fields = readFields(requestedSchema);
    const accept = (given: Record<string, unknown>): AnswerLookup => {
      const checked = checkContent(fields, given);
      if ('problems' in checked) return { kind: 'invalid', problems: checked.problems };
      return {
        kind: 'answer',
        response: { action: 'accept', content: checked.content as Record<string, string> },
      };
    };
    if (typeof entry === 'string' && ACTIONS.has(entry))
      return entry === 'accept' ? accept({}) : { kind: 'answer', response: { action: entry as 'decline' } };
    if (isObject(entry)) {
      if (typeof entry.action === 'string' && ACTIONS.has(entry.action)) {
        if (entry.action !== 'accept')
          return { kind: 'answer', response: { action: entry.action as 'decline' } };
        return accept(isObject(entry.content) ? entry.content : {});
      }
      return accept(entry);
    }
    const byName = Object.fromEntries(
      fields.filter((f) => Object.hasOwn(this.#data, f.name)).map((f) => [f.name, this.#data[f.name]]),
    );
    return Object.keys(byName).length > 0 ? accept(byName) : { kind: 'none' };
  }
}
