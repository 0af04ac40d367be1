/**
 * The protocol layer: wire shapes (zod schemas and inferred types) and constants. No I/O, no time.
 *
 * @module
 */
export * from './constants.js';
export * from './exact-keys.js';
export * from './jsonrpc.js';
export * from './input.js';
export * from './results.js';
export * from './tasks.js';
