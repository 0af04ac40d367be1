/**
 * The CLI's words for a missing optional peer: signing in to a server (MCP authorization) needs
 * `@modelcontextprotocol/client`, which neither `npm install mcp-tasks-client` nor `npx mcp-tasks` installs. The
 * message says exactly what to run: for `npx`, the same command with the peer added (`npx -p … -p …`); otherwise the
 * install line. Authorization: https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 *
 * @module
 */
import { shellWords } from './server/target.js';

/** The optional peer the CLI's sign-in needs. */
export const AUTH_PEER = '@modelcontextprotocol/client';

/** How the CLI was started, as far as the advice depends on it. */
export interface Invocation {
  /** The CLI's arguments (after `mcp-tasks`). */
  args: readonly string[];
  /** True when run through `npx` / `npm exec` (npm sets `npm_command=exec`; the package sits in npm's `_npx` cache). */
  npx: boolean;
}

/** This process's invocation. */
export function currentInvocation(): Invocation {
  const script = process.argv[1] ?? '';
  return {
    args: process.argv.slice(2),
    npx: process.env.npm_command === 'exec' || /[\\/]_npx[\\/]/.test(script),
  };
}

/** True when `error` (or a cause) says the auth peer could not be loaded. */
export function isMissingAuthPeer(errors: readonly unknown[]): boolean {
  return errors.some(
    (e) => e instanceof TypeError && e.message.includes(AUTH_PEER) && e.message.includes('optional peer'),
  );
}

/**
 * The arguments with the values of `--header` and `--env` left as placeholders (`Authorization: <value>`,
 * `TOKEN=<value>`): advice that repeats a command line never repeats a credential.
 */
export function withoutValues(args: readonly string[]): string[] {
  const out: string[] = [];
  let hidden: '--header' | '--env' | undefined;
  for (const arg of args) {
    const inline = /^(--header|--env)=(.*)$/s.exec(arg);
    if (hidden === '--header' || inline?.[1] === '--header') {
      const value = inline ? inline[2]! : arg;
      const name = value.slice(0, Math.max(value.indexOf(':'), 0)).trim() || 'Name';
      out.push(inline ? `--header=${name}: <value>` : `${name}: <value>`);
    } else if (hidden === '--env' || inline?.[1] === '--env') {
      const value = inline ? inline[2]! : arg;
      const name = value.slice(0, Math.max(value.indexOf('='), 0)) || 'KEY';
      out.push(inline ? `--env=${name}=<value>` : `${name}=<value>`);
    } else out.push(arg);
    hidden = !inline && (arg === '--header' || arg === '--env') ? arg : undefined;
  }
  return out;
}

/** The message for a sign-in that could not load the peer; nothing was started on the server. */
export function missingAuthPeerMessage(invocation: Invocation = currentInvocation()): string {
  return `signing in to this server needs the optional package ${AUTH_PEER}, which is not installed. ${installAuthPeer(invocation)}`;
}

/** How to get the peer: for `npx`, the same command with it added; otherwise the install line. */
export function installAuthPeer(invocation: Invocation = currentInvocation()): string {
  if (invocation.npx)
    return `Run it with the package added:\n  npx -p mcp-tasks-client -p ${AUTH_PEER} mcp-tasks ${shellWords(withoutValues(invocation.args))}`;
  return `Install it next to mcp-tasks-client:\n  npm install ${AUTH_PEER}\n(for a global mcp-tasks: npm install -g ${AUTH_PEER})`;
}
