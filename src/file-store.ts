/**
 * Node-only entry point `mcp-tasks-client/file-store`: the durable, file-backed task store.
 *
 * @module
 */
export { FileTaskStore } from './store/file-store.js';
export type { FileTaskStoreOptions } from './store/file-store.js';
export type { QueuedAnswer, QueuedAnswers } from './store/queued-answers.js';
