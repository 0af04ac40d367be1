/**
 * The fleet engine's surface for `TaskClient` (one import there).
 *
 * @module
 * @internal
 */
export { fleetHostOf } from './client-host.js';
export type { FleetHost } from './fleet-host.js';
export { FleetRunner, type FleetOptions } from './fleet-runner.js';
export { resultOf, type ResultOfOptions } from './result-of.js';
