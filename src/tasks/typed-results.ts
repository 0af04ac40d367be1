/**
 * Typed tool results: `structuredContent` checked against the tool's declared `outputSchema` (known from
 * `tools/list`, kept per client, that is per server) and against a Standard Schema validator given to the call
 * (zod, valibot, arktype...). JSON Schema is checked with `@cfworker/json-schema`, which interprets schemas without
 * generating code (`new Function` fails on workerd and under a browser CSP).
 * (https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema ; https://standardschema.dev)
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import { OutputValidationError, type OutputIssue } from '../errors.js';
import type { CallToolResult, Tool } from '../protocol/results.js';

/**
 * The Standard Schema v1 interface, written out as its specification asks of libraries that accept it (no
 * dependency): any validator with a `~standard` property (zod ≥ 3.24, valibot ≥ 1, arktype ≥ 2).
 * (https://github.com/standard-schema/standard-schema)
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

/** The types of the Standard Schema v1 interface. */
export declare namespace StandardSchemaV1 {
  /** What a validator exposes under `~standard`. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  /** The outcome of `validate`: a value, or issues. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The value a validator accepts. */
  export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];
  /** The value a validator returns. */
  export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];
}

/**
 * A `tools/call` result whose `structuredContent` the call's `schema` checked: typed by it when the tool succeeded;
 * a tool error (`isError: true`) is not checked (its content says what went wrong).
 */
export type TypedCallToolResult<S extends StandardSchemaV1> =
  | (Omit<CallToolResult, 'structuredContent' | 'isError'> & {
      isError?: false;
      structuredContent: StandardSchemaV1.InferOutput<S>;
    })
  | (Omit<CallToolResult, 'isError'> & { isError: true });

const pointer = (path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined) =>
  (path ?? [])
    .map(
      (p) =>
        `/${String(typeof p === 'object' ? p.key : p)
          .replace(/~/g, '~0')
          .replace(/\//g, '~1')}`,
    )
    .join('');

/** The declared `outputSchema` of each tool of one server, from its last `tools/list`; validators built on first use. */
export class OutputSchemas {
  #schemas = new Map<string, Record<string, unknown>>();
  readonly #validators = new Map<string, Validator>();

  /** Replaces what is known with the tools of a complete `tools/list`. */
  set(tools: readonly Tool[]): void {
    this.#schemas = new Map();
    this.#validators.clear();
    for (const tool of tools) if (tool.outputSchema) this.#schemas.set(tool.name, tool.outputSchema);
  }

  /** The issues of `value` against `tool`'s declared schema; `undefined` when the tool declared none. */
  issues(tool: string, value: unknown): OutputIssue[] | undefined {
    const schema = this.#schemas.get(tool);
    if (schema === undefined) return undefined;
    let validator = this.#validators.get(tool);
    if (validator === undefined) {
      // `$schema` decides the draft when present; MCP's default dialect is 2020-12. All errors, not just the first.
      validator = new Validator(schema as never, '2020-12', false);
      this.#validators.set(tool, validator);
    }
    const { valid, errors } = validator.validate(value);
    if (valid) return [];
    // The leaf errors say what is wrong; the ones above them only repeat "a property failed".
    const leaves = errors.filter((e) => !/^(properties|items|allOf|\$ref|anyOf|oneOf)$/.test(e.keyword));
    return (leaves.length > 0 ? leaves : errors).map((e) => ({
      path: e.instanceLocation.replace(/^#/, ''),
      message: e.error,
    }));
  }

  /** True when `tool` declared an `outputSchema`. */
  has(tool: string): boolean {
    return this.#schemas.has(tool);
  }
}

/**
 * The check of one `tools/call` result after the method's own parsing: a successful result of a tool with a declared
 * `outputSchema` must carry `structuredContent` that matches it (unless `validate` is false); with `schema`, its
 * `structuredContent` is replaced by what the validator returns. A tool error (`isError: true`) is returned as it is.
 * Synchronous, so a task's outcome is settled once: a validator whose `validate` returns a promise is refused.
 *
 * @throws {@link OutputValidationError} (from the returned function) carrying the result and the issues.
 */
export function outputCheck(
  tool: string,
  schemas: OutputSchemas,
  validate: boolean,
  schema: StandardSchemaV1 | undefined,
): ((result: Record<string, unknown>) => Record<string, unknown>) | undefined {
  if (schema === undefined && (!validate || !schemas.has(tool))) return undefined;
  return (result) => {
    if (result.isError === true) return result;
    const content = result.structuredContent;
    if (validate) {
      const issues =
        content === undefined
          ? schemas.has(tool)
            ? [
                {
                  path: '',
                  message: 'the tool declares an outputSchema but the result has no structuredContent',
                },
              ]
            : undefined
          : schemas.issues(tool, content);
      if (issues !== undefined && issues.length > 0)
        throw new OutputValidationError(tool, result, issues, 'outputSchema');
    }
    if (schema === undefined) return result;
    const checked = schema['~standard'].validate(content);
    if (checked instanceof Promise)
      throw new TypeError(
        `tools/call ${tool}: the call's schema validates asynchronously; pass a synchronous one (e.g. without async refinements)`,
      );
    if (checked.issues !== undefined)
      throw new OutputValidationError(
        tool,
        result,
        checked.issues.map((i) => ({ path: pointer(i.path), message: i.message })),
        'schema',
      );
    return { ...result, structuredContent: checked.value };
  };
}
