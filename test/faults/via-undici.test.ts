/**
 * The fault and limit suites again, with every transport POSTing through undici's dispatcher API (the sender the
 * Node entry point installs) instead of the global fetch: same errors, same limits, same recovery.
 */
import { setDefaultHttpSender } from '../../src/transport/http-sender.js';
import { createUndiciSender } from '../../src/transport/undici-sender.js';

setDefaultHttpSender(createUndiciSender);

await import('./limits.test.js');
await import('./http-faults.test.js');
await import('./sse-faults.test.js');
await import('./envelope-faults.test.js');
await import('./task-faults.test.js');
