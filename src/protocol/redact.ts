/**
 * Secrets taken out of text before it reaches a message, a log or a terminal: OAuth authorization codes, access,
 * refresh and ID tokens, PKCE verifiers, client secrets and assertions (in form bodies, query strings and JSON),
 * and the values of credential headers (`Authorization: Bearer …`, `Basic …`, API keys). An error page that echoes a
 * token request, or an SDK warning that quotes one, then shows `[redacted]` instead.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#token-handling)
 *
 * @module
 */

const FIELDS =
  'code|access_token|refresh_token|id_token|code_verifier|client_secret|client_assertion|assertion|subject_token|actor_token|password|token';
const FORM = new RegExp(`(^|[?&\\s"'{,;])(${FIELDS})=([^&\\s"'<>]+)`, 'gi');
const JSON_FIELD = new RegExp(`("(?:${FIELDS})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');
const HEADER = /\b(x-api-key|api-key|cookie|set-cookie)(\s*[:=]\s*)("?)(?!<)[^\r\n"]+\3/gi;
/** An `Authorization` value without a scheme word (a bare key); scheme values are {@link SCHEME}'s. */
const AUTH_BARE =
  /\b((?:proxy-)?authorization\s*[:=]\s*"?)(?!(?:Bearer|Basic|DPoP|Digest|Negotiate)\b)(?!<)[^\s"\r\n]{6,}/gi;
const SCHEME = /\b(Bearer|Basic|DPoP)\s+[A-Za-z0-9._~+/=-]{6,}/g;

/**
 * `text` with every secret it carries replaced by `[redacted]` (see the module). `known` adds exact values to take
 * out wherever they appear (e.g. the tokens a provider holds).
 */
export function redactSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text
    .replace(FORM, (_m, lead: string, name: string) => `${lead}${name}=[redacted]`)
    .replace(JSON_FIELD, (_m, key: string) => `${key}"[redacted]"`)
    .replace(
      HEADER,
      (_m, name: string, sep: string, quote: string) => `${name}${sep}${quote}[redacted]${quote}`,
    )
    .replace(AUTH_BARE, (_m, lead: string) => `${lead}[redacted]`)
    .replace(SCHEME, (_m, scheme: string) => `${scheme} [redacted]`);
  for (const secret of known) if (secret && secret.length >= 6) out = out.split(secret).join('[redacted]');
  return out;
}
