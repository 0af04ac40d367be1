/**
 * `mcp-tasks logout <server>`: revoke the stored tokens at the authorization server when it offers revocation
 * (RFC 7009: `revocation_endpoint` in its metadata), then forget the stored authorization (tokens, client
 * registration) here, and say which of the two happened.
 *
 * @module
 */
import { parseServerUrl } from '../arguments.js';
import { AuthFile, type AuthFileData } from '../auth/token-file.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { Output } from '../output.js';
import { runReporting } from '../session.js';

/** How long one revocation request may take, in milliseconds. */
const REVOKE_TIMEOUT_MS = 10_000;

/**
 * Revokes the refresh token, then the access token (RFC 7009 § 2.1), as the registered client.
 *
 * @returns `'revoked'`, `'unsupported'` (no `revocation_endpoint`, or nothing to revoke) or why it failed.
 */
async function revoke(data: AuthFileData): Promise<'revoked' | 'unsupported' | { failed: string }> {
  const endpoint = (
    data.discovery?.authorizationServerMetadata as { revocation_endpoint?: unknown } | undefined
  )?.revocation_endpoint;
  const tokens = data.tokens;
  if (typeof endpoint !== 'string' || !tokens) return 'unsupported';
  const client = data.client as { client_id?: string; client_secret?: string } | undefined;
  const pairs: Array<[string, string]> = [];
  if (tokens.refresh_token) pairs.push([tokens.refresh_token, 'refresh_token']);
  if (tokens.access_token) pairs.push([tokens.access_token, 'access_token']);
  for (const [token, hint] of pairs) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    if (client?.client_id) body.set('client_id', client.client_id);
    if (client?.client_secret) body.set('client_secret', client.client_secret);
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
      });
      await res.body?.cancel().catch(() => undefined);
      if (!res.ok) return { failed: `the revocation endpoint answered HTTP ${res.status}` };
    } catch (error) {
      return { failed: `the revocation endpoint could not be reached (${(error as Error).name})` };
    }
  }
  return 'revoked';
}

/** Runs `logout`; resolves with the exit code (0 whether or not anything was stored or revoked). */
export function logoutCommand(server: string, options: { json?: boolean }): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  return runReporting(output, async () => {
    const file = new AuthFile(parseServerUrl(server));
    const revoked = await file.exclusive(async () => revoke(await file.read()));
    const removed = await file.remove();
    const where =
      revoked === 'revoked'
        ? 'its tokens were revoked at the authorization server and'
        : revoked === 'unsupported'
          ? 'its authorization server offers no revocation, so its tokens stay valid there until they expire;'
          : `its tokens could not be revoked (${revoked.failed}) and stay valid there until they expire;`;
    const message = removed
      ? `Signed out of ${file.server}: ${where} the tokens and client registration here are forgotten.`
      : `No stored authorization for ${file.server}.`;
    if (output.json) output.emit({ event: 'hint', message });
    else output.text(message);
    return ExitCode.Completed;
  });
}
