/**
 * The main entry as Node loads it (the `node` export condition of `mcp-tasks-client`): the same public surface as
 * `src/index.ts`, plus three effects: installing undici's dispatcher API as the default HTTP sender, so that every
 * {@link StreamableHttpTransport} built without `fetch` or `sender` POSTs through keep-alive pools instead of the
 * global `fetch`; and resolving the host names a server points authorization at before they are fetched (see
 * `transport/auth-targets.ts`); and loading `@opentelemetry/api` at once when it is installed. Browsers, edge runtimes and bundlers for them resolve the plain entry and never see undici.
 *
 * @example
 * import { TaskClient, StreamableHttpTransport } from 'mcp-tasks-client'; // in Node: undici underneath
 * const client = new TaskClient({ transport: new StreamableHttpTransport('http://127.0.0.1:3000/mcp') });
 *
 * @module
 */
import { lookup } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { useTelemetryApi } from './internal/telemetry.js';
import { setAuthHostResolver } from './transport/auth-targets.js';
import { setDefaultHttpSender } from './transport/http-sender.js';
import { createUndiciSender } from './transport/undici-sender.js';

setDefaultHttpSender(createUndiciSender);
// Names the server points authorization at are resolved before they are fetched (no internal addresses)
setAuthHostResolver(async (host) => (await lookup(host, { all: true })).map((a) => a.address));

// The optional peer `@opentelemetry/api`, loaded at once when installed, so that the first request of a process is
// traced too (the plain entry imports it lazily: requests sent before it arrives are not traced).
try {
  // `__filename` in the CommonJS build, `import.meta.url` in the ESM one
  const load = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
  useTelemetryApi(load(['@opentelemetry', 'api'].join('/')));
} catch {
  // not installed: nothing to trace
}

// The same surface as the plain entry, by construction: this file exists only for the effect above.
export * from './index.js';
