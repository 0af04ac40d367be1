/**
 * Asks a person for a form-mode elicitation with @inquirer/prompts: first accept / decline / cancel, then one prompt
 * per field of `requestedSchema` that fits its type, bounds, format, choices and default; required fields must be
 * filled.
 *
 * @module
 */
import { safeLine, safeText } from 'mcp-tasks-client';
import { checkbox, confirm, input, number, select } from '@inquirer/prompts';
import type { ElicitRequestParams, ElicitResult } from 'mcp-tasks-client';
import { checkValue, readFields, setField, type FormField } from './schema-fields.js';

/** Where prompts read and write, and how they are aborted. */
export interface PromptContext {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  signal?: AbortSignal;
}

const SKIP = Symbol('skip');

function label(field: FormField): string {
  const hints: string[] = [];
  if (!field.required) hints.push('optional');
  if (field.kind === 'string') {
    if (field.format) hints.push(field.format);
    if (field.minLength !== undefined || field.maxLength !== undefined)
      hints.push(`${field.minLength ?? 0}-${field.maxLength ?? '∞'} chars`);
  }
  if (field.kind === 'number' && (field.minimum !== undefined || field.maximum !== undefined))
    hints.push(`${field.minimum ?? '-∞'}..${field.maximum ?? '∞'}`);
  if (field.kind === 'multi' && (field.minItems !== undefined || field.maxItems !== undefined))
    hints.push(`choose ${field.minItems ?? 0}-${field.maxItems ?? 'all'}`);
  const text = hints.length > 0 ? `${field.label} (${hints.join(', ')})` : field.label;
  return field.description ? `${text} - ${field.description}` : text;
}

/** Asks for one field; resolves `undefined` when an optional field is left empty. */
export async function promptField(field: FormField, ctx: PromptContext): Promise<unknown> {
  const message = label(field);
  switch (field.kind) {
    case 'string':
    case 'unsupported': {
      const value = await input(
        {
          message,
          default: field.kind === 'string' ? field.default : undefined,
          required: field.required,
          validate: (v) => (v === '' && !field.required ? true : (checkValue(field, v) ?? true)),
        },
        ctx,
      );
      return value === '' && !field.required ? undefined : value;
    }
    case 'number':
      return number(
        {
          message,
          default: field.default,
          min: field.minimum,
          max: field.maximum,
          step: field.integer ? 1 : 'any',
          required: field.required,
          validate: (v) => (v === undefined ? true : (checkValue(field, v) ?? true)),
        },
        ctx,
      );
    case 'boolean':
      if (field.required || field.default !== undefined)
        return confirm({ message, default: field.default ?? false }, ctx);
      return unskip(
        await select<boolean | typeof SKIP>(
          {
            message,
            choices: [
              { name: 'Yes', value: true },
              { name: 'No', value: false },
              { name: '(leave empty)', value: SKIP },
            ],
          },
          ctx,
        ),
      );
    case 'enum': {
      const choices: Array<{ name: string; value: string | typeof SKIP }> = field.options.map((o) => ({
        name: o.title === safeLine(o.value) ? o.title : `${o.title} (${safeLine(o.value)})`,
        value: o.value,
      }));
      if (!field.required && field.default === undefined)
        choices.push({ name: '(leave empty)', value: SKIP });
      return unskip(await select({ message, choices, default: field.default }, ctx));
    }
    case 'multi': {
      const chosen = new Set(field.default ?? []);
      return checkbox(
        {
          message,
          choices: field.options.map((o) => ({
            name: o.title === safeLine(o.value) ? o.title : `${o.title} (${safeLine(o.value)})`,
            value: o.value,
            checked: chosen.has(o.value),
          })),
          validate: (items) =>
            checkValue(
              field,
              items.map((i) => i.value),
            ) ?? true,
        },
        ctx,
      );
    }
  }
}

function unskip<T>(value: T | typeof SKIP): T | undefined {
  return value === SKIP ? undefined : value;
}

/**
 * Runs the whole form. `decline` and `cancel` are offered first; `accept` then asks every field in order.
 *
 * @throws the prompt library's errors (`ExitPromptError` on Ctrl-C, `AbortPromptError` when `signal` aborts).
 */
export async function promptForm(params: ElicitRequestParams, ctx: PromptContext): Promise<ElicitResult> {
  const action = await select(
    {
      message: safeText(params.message),
      choices: [
        { name: 'Accept: fill in the form', value: 'accept' as const },
        { name: 'Decline', value: 'decline' as const },
        { name: 'Cancel (dismiss without choosing)', value: 'cancel' as const },
      ],
    },
    ctx,
  );
  if (action !== 'accept') return { action };
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const field of readFields(params.requestedSchema)) {
    const value = await promptField(field, ctx);
    if (value !== undefined) setField(content, field.name, value);
  }
  return { action: 'accept', content };
}
