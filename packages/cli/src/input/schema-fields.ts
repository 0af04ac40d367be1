/**
 * The fields of a form-mode elicitation (`requestedSchema`), read into a small model, with the checks both the
 * prompts and the answers file use: string `minLength`/`maxLength`/`format`, number and integer bounds, booleans,
 * single- and multi-select enums (with titles), defaults and required fields.
 *
 * @module
 */
import { safeLine } from 'mcp-tasks-client';

/** One choice of an enum field. */
export interface EnumOption {
  value: string;
  title: string;
}

/** Common to every field. */
interface FieldBase {
  name: string;
  /** The prompt label: `title`, else the name. */
  label: string;
  description?: string;
  required: boolean;
}

/** One field of a form. */
export type FormField =
  | (FieldBase & {
      kind: 'string';
      default?: string;
      minLength?: number;
      maxLength?: number;
      format?: string;
    })
  | (FieldBase & { kind: 'number'; integer: boolean; default?: number; minimum?: number; maximum?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'enum'; options: EnumOption[]; default?: string })
  | (FieldBase & {
      kind: 'multi';
      options: EnumOption[];
      default?: string[];
      minItems?: number;
      maxItems?: number;
    })
  | (FieldBase & { kind: 'unsupported'; type: string });

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function options(values: unknown, titled: unknown, legacyNames?: unknown): EnumOption[] {
  if (Array.isArray(titled)) {
    return titled
      .filter(
        (o): o is { const: string; title?: string } => typeof (o as { const?: unknown })?.const === 'string',
      )
      .map((o) => ({ value: o.const, title: safeLine(typeof o.title === 'string' ? o.title : o.const) }));
  }
  if (!Array.isArray(values)) return [];
  const names = Array.isArray(legacyNames) ? legacyNames : [];
  return values
    .filter((v): v is string => typeof v === 'string')
    .map((v, i) => ({ value: v, title: safeLine(typeof names[i] === 'string' ? (names[i] as string) : v) }));
}

/** Reads one property definition of `requestedSchema` into a {@link FormField}. */
export function readField(name: string, def: Record<string, unknown>, required: boolean): FormField {
  const description = str(def.description);
  const base: FieldBase = {
    name,
    label: safeLine(str(def.title) ?? name),
    description: description === undefined ? undefined : safeLine(description),
    required,
  };
  const type = str(def.type) ?? 'unknown';
  if (type === 'string' && (Array.isArray(def.enum) || Array.isArray(def.oneOf))) {
    return {
      ...base,
      kind: 'enum',
      options: options(def.enum, def.oneOf, def.enumNames),
      default: str(def.default),
    };
  }
  if (type === 'array') {
    const items = (def.items ?? {}) as Record<string, unknown>;
    const defaults = Array.isArray(def.default)
      ? def.default.filter((v): v is string => typeof v === 'string')
      : undefined;
    return {
      ...base,
      kind: 'multi',
      options: options(items.enum, items.anyOf),
      default: defaults,
      minItems: num(def.minItems),
      maxItems: num(def.maxItems),
    };
  }
  if (type === 'string') {
    return {
      ...base,
      kind: 'string',
      default: str(def.default),
      minLength: num(def.minLength),
      maxLength: num(def.maxLength),
      format: str(def.format),
    };
  }
  if (type === 'number' || type === 'integer') {
    return {
      ...base,
      kind: 'number',
      integer: type === 'integer',
      default: num(def.default),
      minimum: num(def.minimum),
      maximum: num(def.maximum),
    };
  }
  if (type === 'boolean')
    return { ...base, kind: 'boolean', default: typeof def.default === 'boolean' ? def.default : undefined };
  return { ...base, kind: 'unsupported', type };
}

/** Every field of a `requestedSchema`, in the order the server listed them. */
export function readFields(requestedSchema: unknown): FormField[] {
  const schema = (requestedSchema ?? {}) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: unknown;
  };
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [],
  );
  return Object.entries(schema.properties ?? {}).map(([name, def]) =>
    readField(name, def ?? {}, required.has(name)),
  );
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Why `value` does not match a string `format`, or `undefined` when it does (or the format is unknown). */
export function checkFormat(format: string | undefined, value: string): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(value) ? undefined : 'must be an email address';
    case 'uri':
      try {
        new URL(value);
        return undefined;
      } catch {
        return 'must be a URI such as https://example.com/x';
      }
    case 'date': {
      const m = DATE.exec(value);
      const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
      return d && d.getUTCDate() === Number(m?.[3]) && d.getUTCMonth() === Number(m?.[2]) - 1
        ? undefined
        : 'must be a date YYYY-MM-DD';
    }
    case 'date-time':
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be a date-time such as 2026-07-28T12:00:00Z';
    default:
      return undefined;
  }
}

/** Why `value` is not valid for `field`, or `undefined` when it is. `undefined` values are checked by {@link checkContent}. */
export function checkValue(field: FormField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      if (field.minLength !== undefined && value.length < field.minLength)
        return `must be at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength)
        return `must be at most ${field.maxLength} characters`;
      return checkFormat(field.format, value);
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.integer && !Number.isInteger(value)) return 'must be an integer';
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return typeof value === 'string' && field.options.some((o) => o.value === value)
        ? undefined
        : `must be one of ${field.options.map((o) => o.value).join(', ')}`;
    case 'multi': {
      if (!Array.isArray(value) || !value.every((v) => field.options.some((o) => o.value === v))) {
        return `must be a list of ${field.options.map((o) => o.value).join(', ')}`;
      }
      if (field.minItems !== undefined && value.length < field.minItems)
        return `choose at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `choose at most ${field.maxItems}`;
      return undefined;
    }
    case 'unsupported':
      return ['string', 'number', 'boolean'].includes(typeof value)
        ? undefined
        : `has an unsupported type (${field.type})`;
  }
}

/** Sets `content[name]` as an own field: a field named `__proto__` stays a field, never the prototype. */
export function setField(content: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(content, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Completes and checks form content: missing fields take their defaults, then every present value is checked and
 * every required field must be present.
 *
 * @returns the content, or the list of problems (`field: why`).
 */
export function checkContent(
  fields: readonly FormField[],
  given: Record<string, unknown>,
): { content: Record<string, unknown> } | { problems: string[] } {
  const content: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const value =
      (Object.hasOwn(given, field.name) ? given[field.name] : undefined) ??
      ('default' in field ? field.default : undefined);
    if (value === undefined) {
      if (field.required) problems.push(`${field.name}: required`);
      continue;
    }
    const why = checkValue(field, value);
    if (why) problems.push(`${field.name}: ${why}`);
    else setField(content, field.name, value);
  }
  return problems.length > 0 ? { problems } : { content };
}

/** A one-line description of a field, e.g. `confirm (boolean, required)`. */
export function describeField(field: FormField): string {
  const facts: string[] = [];
  if (field.kind === 'enum' || field.kind === 'multi')
    facts.push(
      `${field.kind === 'multi' ? 'any of' : 'one of'} ${field.options.map((o) => o.value).join('|')}`,
    );
  else if (field.kind === 'number') facts.push(field.integer ? 'integer' : 'number');
  else if (field.kind === 'string') facts.push(field.format ? `string, ${field.format}` : 'string');
  else facts.push(field.kind === 'unsupported' ? field.type : field.kind);
  if (field.required) facts.push('required');
  return `${field.name} (${facts.join(', ')})`;
}

/** A plausible value for a field, for the example answers file printed when a question goes unanswered. */
export function exampleValue(field: FormField): unknown {
  if ('default' in field && field.default !== undefined) return field.default;
  switch (field.kind) {
    case 'string':
      return field.format === 'email' ? 'user@example.com' : field.format === 'date' ? '2026-07-28' : '';
    case 'number':
      return field.minimum ?? 0;
    case 'boolean':
      return true;
    case 'enum':
      return field.options[0]?.value ?? '';
    case 'multi':
      return field.options.slice(0, Math.max(1, field.minItems ?? 1)).map((o) => o.value);
    case 'unsupported':
      return '';
  }
}
