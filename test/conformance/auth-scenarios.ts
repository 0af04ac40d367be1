/**
 * The 2026-07-28 `auth/*` client scenarios of the conformance suite: which `auth` option the conformance client's
 * transport gets for each, and what it does once connected (list tools, call one). Scenarios where the suite
 * expects the client to refuse (a mismatched `iss`, issuer or resource) end with an `AuthorizationError`, which the
 * client reports and exits 1 on; the suite scores what reached its servers.
 *
 * @module
 */
import type { HttpAuthOptions, TaskClient } from '../../src/index.js';
import { ConformanceOAuthProvider } from './oauth-provider.js';

/** Every 2026-07-28 `auth/*` client scenario (`conformance list`, @modelcontextprotocol/conformance@0.2.0-alpha.12). */
export const AUTH_SCENARIOS = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
];

/**
 * The client ID metadata document URL the suite expects in `auth/basic-cimd`. Only that scenario gets it: in the
 * others the suite's runner would try to fetch the document, and that host is not loopback.
 */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

/** The transport's `auth` option for one scenario. */
export function authOptionsFor(scenario: string, context: Record<string, unknown>): HttpAuthOptions {
  const preRegistered =
    scenario === 'auth/pre-registration' && typeof context.client_id === 'string'
      ? {
          client_id: context.client_id,
          client_secret: typeof context.client_secret === 'string' ? context.client_secret : undefined,
          redirect_uris: [],
        }
      : undefined;
  const provider = new ConformanceOAuthProvider({
    clientMetadataUrl: scenario === 'auth/basic-cimd' ? CIMD_URL : undefined,
    preRegistered,
  });
  return { provider, waitForAuthorizationCode: () => provider.waitForAuthorizationCode() };
}

/** What every auth scenario does once authorized: list the tools and call one (`test-tool` when listed). */
export async function runAuthScenario(client: TaskClient, log: (...parts: unknown[]) => void): Promise<void> {
  const tools = await client.listTools();
  log('tools:', tools.map((t) => t.name).join(', '));
  const tool = tools.find((t) => t.name === 'test-tool') ?? tools[0];
  if (tool) await client.callTool(tool.name, {});
}
