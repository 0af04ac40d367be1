/**
 * `--stdio` takes the server's whole command line as ONE argument (`--stdio "npx my-server --stdio"`). Typed without
 * quotes, the shell splits it: its first word becomes the value and the rest become this command's own arguments, a
 * second `--stdio` would silently replace the first, and an option of the server's (`-y`, `--port`) would be read as
 * one of ours. Such a command line is refused before anything starts, with the quoting to use.
 *
 * @module
 */
import type { Command, Option } from 'commander';
import { shellWords } from './server/target.js';

/**
 * How many positional arguments a command takes when `--stdio` names its server (the server positional is gone):
 * `call` takes the tool and its `key=value` pairs (any number), `tools` and `bridge` none, a task command its task id.
 */
const POSITIONALS_WITH_STDIO: Record<string, number> = {
  tools: 0,
  bridge: 0,
  watch: 1,
  status: 1,
  cancel: 1,
};

/** An option's names and whether it takes a value, as commander declared it. */
function findOption(options: readonly Option[], token: string): Option | undefined {
  const name = token.startsWith('--') ? token.split('=')[0] : token;
  return options.find((o) => o.long === name || o.short === name);
}

const isStdio = (token: string): boolean => token === '--stdio' || token.startsWith('--stdio=');

/**
 * The message for a `--stdio` whose command line was not quoted, or `undefined` when the command line is fine (or
 * has no `--stdio`). Seen as unquoted: a second `--stdio`, an option this command does not have after the `--stdio`
 * value, or more positional arguments than the command takes with `--stdio`.
 *
 * @param argv the arguments after `node` and the script.
 * @param program the program, whose commands' options say which tokens are ours.
 */
export function unquotedStdioProblem(argv: readonly string[], program: Command): string | undefined {
  const end = argv.indexOf('--');
  const tokens = end === -1 ? [...argv] : argv.slice(0, end);
  const commandAt = tokens.findIndex((t) => !t.startsWith('-'));
  const command = program.commands.find((c) => c.name() === tokens[commandAt]);
  if (command === undefined) return undefined;
  const rest = tokens.slice(commandAt + 1);
  const first = rest.findIndex(isStdio);
  if (first === -1) return undefined;
  const valueAt = rest[first] === '--stdio' ? first + 1 : first;
  const value = rest[first] === '--stdio' ? rest[valueAt] : rest[first]?.slice('--stdio='.length);
  if (value === undefined) return undefined; // commander says the value is missing
  const maxPositionals = POSITIONALS_WITH_STDIO[command.name()];
  let positionals = 0;
  let offending: { at: number; why: string } | undefined;
  for (let i = 0; i < rest.length && offending === undefined; i++) {
    if (i === first || i === valueAt) continue;
    const token = rest[i] as string;
    if (isStdio(token)) offending = { at: i, why: '--stdio was given twice' };
    else if (token.startsWith('-') && token.length > 1) {
      if (token === '-h' || token === '--help') continue;
      const option = findOption(command.options, token);
      if (option === undefined && i > valueAt)
        offending = { at: i, why: `${JSON.stringify(token)} is not an option of ${command.name()}` };
      else if (option && (option.required || option.optional) && !token.includes('=')) i++; // its value
    } else if (++positionals > (maxPositionals ?? Number.POSITIVE_INFINITY) && i > valueAt)
      offending = { at: i, why: `${JSON.stringify(token)} is one argument too many for ${command.name()}` };
  }
  // A command without a tool after the server: every further word up to our next option belongs to the command line,
  // a further `--stdio` included (ours was the first; a later one is the server's own flag, as in
  // `--stdio npx my-server --stdio`).
  if (offending && maxPositionals !== undefined)
    while (
      offending.at + 1 < rest.length &&
      (isStdio(rest[offending.at + 1] as string) ||
        findOption(command.options, rest[offending.at + 1] as string) === undefined)
    )
      offending.at++;
  if (offending === undefined) return undefined;
  const words = [value, ...rest.slice(valueAt + 1, offending.at + 1)];
  // `call`: the tool and its arguments may follow the server's options; show where the quoted part ends as unknown.
  const more =
    command.name() === 'call' &&
    offending.why.includes('not an option') &&
    rest[offending.at + 1] !== undefined &&
    !(rest[offending.at + 1] as string).startsWith('-')
      ? ' …'
      : '';
  const quoted = JSON.stringify(`${shellWords(words)}${more}`);
  return `${offending.why}: --stdio takes the server's whole command line as one argument, so quote it, e.g. --stdio ${quoted} (mcp-tasks ${command.name()} --help)`;
}
