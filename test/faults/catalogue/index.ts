/**
 * The fault catalogue: a loopback server that is the reference task server until told to misbehave, per tool call
 * or per task, and the faults it can inject. Used by `test/faults/` and described in `docs/reliability.md`.
 *
 * @example
 * ```ts
 * import { createFaultServer, taskFaults } from './catalogue/index.js';
 * const server = await createFaultServer({ core: { pollIntervalMs: 20 } });
 * server.inject(taskFaults.completedWithoutResult(), { tool: 'reindex_corpus' });
 * ```
 *
 * @module
 */
export { createFaultServer } from './fault-server.js';
export type { FaultLogEntry, FaultServer, FaultServerOptions, FaultTarget } from './fault-server.js';
export {
  chain,
  isTaskResult,
  resultOf,
  rewriteResult,
  rewriteTask,
  rpcErrorReply,
  rpcResultReply,
} from './fault.js';
export type { Fault, FaultRequest, NextReply } from './fault.js';
export { jsonReply, sseFrame, sseReply, writeWireReply } from './wire-reply.js';
export type { JsonWireReply, RawWireReply, StreamWireReply, WireReply } from './wire-reply.js';
export * as taskFaults from './task-faults.js';
export * as envelopeFaults from './envelope-faults.js';
export * as sseFaults from './sse-faults.js';
export * as httpFaults from './http-faults.js';
export * as volumeFaults from './volume-faults.js';
