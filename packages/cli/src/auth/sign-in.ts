/**
 * How `mcp-tasks` authorizes to a server that asks (HTTP 401): every session's transport gets the `auth` option with
 * the server's stored credentials and no way to ask a person, so refreshes happen silently. When a person is needed
 * and this run has one (stdin and stdout are terminals, no `--json`) and the refusal came before anything was
 * started (no stored tokens at the start), the browser sign-in runs and the command runs once more. Otherwise the
 * command ends with exit code 8 and a message that says how to sign in.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#authorization-flow-steps)
 *
 * @module
 */
import {
  AuthorizationRequiredError,
  StreamableHttpTransport,
  TaskClient,
  VERSION,
  type HttpAuthOptions,
} from 'mcp-tasks-client';
import { AUTH_PEER, installAuthPeer } from '../missing-peer.js';
import { CliOAuthProvider } from './cli-provider.js';
import { LoopbackRedirect } from './loopback-redirect.js';
import { AuthFile, authDir, authKey } from './token-file.js';

/** How long a person has to finish the browser sign-in, in milliseconds. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** Servers whose file held tokens when this run opened its session. */
const hadTokens = new Map<string, boolean>();

/** The `auth` option of a CLI session's transport (stored credentials, no person). */
export async function sessionAuth(serverUrl: URL): Promise<HttpAuthOptions> {
  const file = new AuthFile(serverUrl);
  const stored = (await file.read()).tokens !== undefined;
  hadTokens.set(file.server, stored);
  return {
    provider: new CliOAuthProvider(file, { persist: stored }),
    // Other mcp-tasks processes share the file: one refresh at a time, each reading what the last one wrote
    ...(stored ? { exclusive: <T>(run: () => Promise<T>) => file.exclusive(run) } : {}),
  };
}

/** Runs the browser sign-in for `serverUrl`: prints the URL, waits on the loopback redirect, stores the tokens. */
export async function signIn(serverUrl: URL, show: (line: string) => void): Promise<void> {
  const redirect = await LoopbackRedirect.start();
  const file = new AuthFile(serverUrl);
  const provider = new CliOAuthProvider(file, { redirect, show });
  const client = new TaskClient({
    transport: new StreamableHttpTransport(serverUrl.href, {
      auth: {
        provider,
        waitForAuthorizationCode: (signal) => redirect.wait(signal, SIGN_IN_TIMEOUT_MS),
        exclusive: (run) => file.exclusive(run),
      },
    }),
    clientInfo: { name: 'mcp-tasks', version: VERSION },
    timeoutMs: SIGN_IN_TIMEOUT_MS + 60_000,
  });
  try {
    await client.discover();
    show(
      `Signed in to ${file.server}; tokens are kept in ${authDir()} (mcp-tasks logout ${file.server} forgets them).`,
    );
  } finally {
    await client.close().catch(() => undefined);
    redirect.close();
  }
}

/** True when the sign-in's optional peer can be loaded. */
const authPeerInstalled = (): Promise<boolean> =>
  import(AUTH_PEER).then(
    () => true,
    () => false,
  );

/**
 * What the CLI does with an error of a command: `'retry'` after a successful sign-in, or the error to report
 * (an `AuthorizationRequiredError` gets a message saying how to sign in, and what to install first when the
 * sign-in's optional peer is missing).
 *
 * @param peerInstalled whether `@modelcontextprotocol/client` can be loaded. @default tries to import it
 */
export async function afterAuthorizationError(
  error: unknown,
  interactive: boolean,
  show: (line: string) => void,
  peerInstalled: () => Promise<boolean> = authPeerInstalled,
): Promise<'retry' | unknown> {
  if (!(error instanceof AuthorizationRequiredError)) return error;
  const server = authKey(error.serverUrl);
  const firstRequest = hadTokens.get(server) === false;
  if (!(await peerInstalled())) {
    const reason = `signing in needs the optional package ${AUTH_PEER}, which is not installed. ${installAuthPeer()}`;
    return new AuthorizationRequiredError(error.serverUrl, error.method, { reason, cause: error });
  }
  if (interactive && firstRequest) {
    hadTokens.set(server, true);
    await signIn(new URL(error.serverUrl), show);
    return 'retry';
  }
  const why = interactive
    ? 'the stored authorization no longer works and was forgotten; run the command again to sign in'
    : 'signing in needs a person at a terminal and this run has none (--json, or stdin/stdout not a TTY); run any mcp-tasks command for this server in a terminal once to sign in';
  return new AuthorizationRequiredError(error.serverUrl, error.method, { reason: why, cause: error });
}
