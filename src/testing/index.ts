/**
 * `mcp-tasks-client/testing`: a real, stateless MCP 2026-07-28 server with the Tasks extension, over Streamable HTTP
 * on loopback, for integration tests, demos and the conformance suite. Node only. It uses the protocol layer of this
 * package and nothing of the client.
 *
 * @example
 * ```ts
 * import { createTaskServer } from 'mcp-tasks-client/testing';
 * const server = await createTaskServer({ inlineBudgetMs: 20, pollIntervalMs: 50, timeScale: 0.1 });
 * // call server.url with a client; then inspect server.stats.taskGetTimes(taskId)
 * await server.close();
 * ```
 *
 * @module
 */
export { createTaskServer } from './http-server.js';
export type { TaskServer, TaskServerOptions } from './http-server.js';
export type { BearerAuthOptions, BearerAuthStats, VerifiedToken } from './bearer-auth.js';
export { runStdioServer, STATS_METHOD } from './stdio-server.js';
export type { StatsSnapshot, StdioServerOptions, StdioTaskServer } from './stdio-server.js';
export { TaskServerCore } from './server-core.js';
export type { HandleOptions } from './server-core.js';
export type { CoreReply } from './core-reply.js';
export { InMemoryTransport } from './in-memory-transport.js';
export type { InMemoryTransportOptions } from './in-memory-transport.js';
export type { TaskServerCoreOptions } from './options.js';
export type { ServerStats, RecordedTaskCancel, RecordedTaskUpdate } from './stats.js';
export { JobError, sleep } from './job.js';
export type { Job, JobContext, JobProgress } from './job.js';
export { elicitForm, mergeCatalogs, numberArg, readElicitAnswer, stringArg, textResult } from './catalog.js';
export type {
  Catalog,
  PromptDefinition,
  ResourceDefinition,
  TaskSupport,
  ToolAnnotations,
  ToolDefinition,
} from './catalog.js';
export { demoCatalog, REINDEX_MS_PER_DOCUMENT } from './tools.js';
export { conformanceCatalog } from './conformance-fixtures.js';
export { benchCatalog, SLEEP_MS_MAX } from './bench-tools.js';
export type { BenchCatalog, BenchCompletion } from './bench-tools.js';
