/**
 * The fleet engine's surface for `TaskClient` (one import there).
 *
 * @module
 * @internal
 */
export { fleetStoreOf, type FleetClient } from './fleet-client.js';
export { FleetRunner, type FleetOptions } from './fleet-runner.js';
export { resultOf, type ResultOfOptions } from './result-of.js';
