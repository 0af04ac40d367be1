/**
 * `npm run conformance`: the official `@modelcontextprotocol/conformance` suite (0.2.0-alpha.12, on Node 22 via
 * `npx -p node@22`, `--spec-version 2026-07-28`, and 2025-11-25 for the legacy client scenarios) against this SDK:
 *
 * - client scenarios: the runner starts its mock server and runs `test/conformance/client.ts` (public API only) with
 *   the server URL as the last argument;
 * - server scenarios: against the reference task server (see scripts/conformance-server.ts);
 * - the 2025-11-25 client scenarios (`--spec-version 2025-11-25`, when no scenario is named): the same client in its
 *   legacy era (initialize, sessions, `Last-Event-ID` resumption of a closed SSE stream, elicitation defaults).
 *
 * Prints one line per scenario, `name: N passed, M failed`, and exits non-zero on any failed check, a scenario with
 * no checks, or a runner exit code other than 0. There is no expected-failures file.
 *
 * Usage: `tsx scripts/conformance.ts [--client-only | --server-only] [scenario …]`
 */
import { AUTH_SCENARIOS } from '../test/conformance/auth-scenarios.js';
import {
  PACKAGE,
  report,
  runServerScenarios,
  runSuite,
  SERVER_SCENARIOS,
  SPEC_VERSION,
} from './conformance-server.js';

/** The 2026-07-28 client scenarios: every one the suite lists for that revision, the 25 `auth/*` ones included. */
export const CLIENT_SCENARIOS = [
  'tools_call',
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
  ...AUTH_SCENARIOS,
];

/** The 2025-11-25 client scenarios, run with `--spec-version 2025-11-25` (the client's legacy era: its own session). */
export const LEGACY_CLIENT_SCENARIOS = [
  'initialize',
  'tools_call',
  'sse-retry',
  'elicitation-sep1034-client-defaults',
];
const LEGACY_SPEC_VERSION = '2025-11-25';

/**
 * How the runner starts our client. It splits this string on spaces and runs it through a shell from this directory
 * (the repository root), with `node` being the Node 22 that `npx -p node@22` put first on PATH. `node --import tsx`
 * starts in well under a second (no npx resolution, no build step).
 */
/** The runner's per-client timeout for `auth/*` scenarios, in milliseconds. */
const AUTH_TIMEOUT_MS = 120_000;

const CLIENT_COMMAND = 'node --import tsx test/conformance/client.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const clientOnly = args.includes('--client-only');
  const serverOnly = args.includes('--server-only');
  const named = args.filter((a) => !a.startsWith('--'));
  const clientScenarios = serverOnly
    ? []
    : named.length > 0
      ? CLIENT_SCENARIOS.filter((s) => named.includes(s))
      : CLIENT_SCENARIOS;
  const serverScenarios = clientOnly
    ? []
    : named.length > 0
      ? SERVER_SCENARIOS.filter((s) => named.includes(s))
      : SERVER_SCENARIOS;
  const unknown = named.filter((s) => !CLIENT_SCENARIOS.includes(s) && !SERVER_SCENARIOS.includes(s));
  if (unknown.length > 0) {
    console.error(`unknown scenario(s): ${unknown.join(', ')}`);
    process.exitCode = 2;
    return;
  }

  const started = Date.now();
  console.log(`${PACKAGE} on Node 22, --spec-version ${SPEC_VERSION}`);
  // One suite after the other: both at once would put 8 runner processes on this 2-core machine.
  const legacyScenarios = serverOnly || named.length > 0 ? [] : LEGACY_CLIENT_SCENARIOS;
  /** One client scenario at `specVersion`, shown as `label`. */
  const clientJob = (scenario: string, specVersion: string, label = scenario) => ({
    scenario: label,
    args: (outDir: string) => [
      'client',
      '--command',
      CLIENT_COMMAND,
      '--scenario',
      scenario,
      '--spec-version',
      specVersion,
      '-o',
      outDir,
      // An auth scenario is 6–10 round trips plus loading the SDK's OAuth client: on a loaded 2-core machine the
      // runner's default 30 s per client was seen to run out after every check had passed.
      ...(scenario.startsWith('auth/') ? ['--timeout', String(AUTH_TIMEOUT_MS)] : []),
    ],
  });
  const clientOutcomes = await runSuite([
    ...clientScenarios.map((scenario) => clientJob(scenario, SPEC_VERSION)),
    ...legacyScenarios.map((scenario) =>
      clientJob(scenario, LEGACY_SPEC_VERSION, `${LEGACY_SPEC_VERSION} ${scenario}`),
    ),
  ]);
  const serverOutcomes = serverScenarios.length > 0 ? await runServerScenarios(serverScenarios) : [];

  let ok = true;
  if (clientOutcomes.length > 0) {
    console.log(`client scenarios (${CLIENT_COMMAND}):`);
    ok = report(clientOutcomes, '  ') && ok;
  }
  if (serverOutcomes.length > 0) {
    console.log('server scenarios (reference task server):');
    ok = report(serverOutcomes, '  ') && ok;
  }
  const all = [...clientOutcomes, ...serverOutcomes];
  const passed = all.reduce((n, o) => n + o.checks.filter((c) => c.status === 'SUCCESS').length, 0);
  const failed = all.reduce((n, o) => n + o.checks.filter((c) => c.status === 'FAILURE').length, 0);
  console.log(
    `${ok ? 'PASSED' : 'FAILED'}: ${all.length} scenarios, ${passed} checks passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  console.log(`conformance: ${passed} passed, ${failed} failed`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
