/**
 * Hints after commander's own usage errors, in commander's "(Did you mean …?)" form: a tool argument written as an
 * option (`call … --documents=10`), the library's word `resume` for the CLI's `watch`, and a command's option given
 * before the command (`mcp-tasks --json call …`).
 *
 * @module
 */
import type { Command, CommanderError } from 'commander';
import { safeLine } from 'mcp-tasks-client';

/** The CLI's words for what the library calls otherwise, suggested for an unknown command. */
const SYNONYMS: Readonly<Record<string, { command: string; why: string }>> = {
  resume: { command: 'watch', why: 'it resumes following a task: mcp-tasks watch <taskId>' },
};

/** The flag commander named in `error: unknown option '<flag>'`, and whether it suggested another. */
function unknownFlag(error: CommanderError): { flag: string; suggested: boolean } | undefined {
  if (error.code !== 'commander.unknownOption') return undefined;
  const match = /^error: unknown option '([\s\S]*?)'(\n\(Did you mean [\s\S]*\))?$/.exec(error.message);
  return match ? { flag: match[1] as string, suggested: match[2] !== undefined } : undefined;
}

/**
 * The hint line for a usage error commander reported, or `undefined` when there is nothing to add.
 *
 * @param failed the command whose parsing failed (the program itself for an error before any command).
 * @param args the arguments as given to commander.
 */
export function usageHint(
  error: CommanderError,
  failed: Command,
  program: Command,
  args: readonly string[],
): string | undefined {
  if (error.code === 'commander.unknownCommand') {
    const typed = /^error: unknown command '([\s\S]*?)'/.exec(error.message)?.[1];
    const synonym = typed === undefined ? undefined : SYNONYMS[typed.toLowerCase()];
    return synonym && !error.message.includes('(Did you mean')
      ? `(Did you mean ${synonym.command}? ${synonym.why})`
      : undefined;
  }
  const unknown = unknownFlag(error);
  if (!unknown?.flag.startsWith('--')) return undefined;
  const [name = '', value] = unknown.flag.slice(2).split(/=([\s\S]*)/, 2);
  if (failed === program) return beforeCommandHint(`--${name}`, program, args);
  // `call … --documents=10`: a tool argument written as an option (unless commander found a near option name).
  if (failed.name() === 'call' && !unknown.suggested && name !== '')
    return `(Tool arguments are written key=value, without dashes: ${safeLine(name)}=${value === undefined ? '<value>' : safeLine(value)})`;
  return undefined;
}

/** `mcp-tasks --json call …`: the option belongs to a command, and goes after it. */
function beforeCommandHint(long: string, program: Command, args: readonly string[]): string | undefined {
  const optionOf = (command: Command) => command.options.find((o) => o.long === long);
  const named = args.map((a) => program.commands.find((c) => c.name() === a)).find((c) => c !== undefined);
  const option = named ? optionOf(named) : undefined;
  if (named && option)
    return `(${long} is an option of ${named.name()}: options go after the command, as in mcp-tasks ${named.name()} … ${option.flags})`;
  const owners = program.commands.filter((c) => optionOf(c) !== undefined).map((c) => c.name());
  return owners.length > 0
    ? `(${long} is an option of ${owners.join(', ')}: options go after the command, as in mcp-tasks ${owners[0]} … ${long})`
    : undefined;
}
