/**
 * The small part of the official SDK 1.x client (`@modelcontextprotocol/sdk`) that the legacy era uses, loaded
 * lazily, and the mapping of its errors onto ours. The SDK is an optional peer dependency: nothing here is imported
 * unless a 2025-11-25 server was detected.
 *
 * @module
 * @internal
 */
import {
  HttpError,
  McpClientError,
  McpError,
  NetworkError,
  UnsupportedProtocolVersionError,
} from '../errors.js';
import { importSdkModule } from '../internal/optional-sdk.js';
import { LEGACY_PROTOCOL_VERSION, PROTOCOL_VERSION } from '../protocol/constants.js';

/** Options the SDK's `request` takes. */
export interface SdkRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  task?: { ttl?: number };
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** The SDK client methods used here (typed locally so this package's types never depend on the SDK). */
export interface SdkClient {
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
  request(
    request: { method: string; params?: Record<string, unknown> },
    schema: unknown,
    options?: SdkRequestOptions,
  ): Promise<Record<string, unknown>>;
  setRequestHandler(
    schema: unknown,
    handler: (
      request: { params?: Record<string, unknown> },
      extra: { signal?: AbortSignal },
    ) => Promise<unknown>,
  ): void;
  getServerCapabilities(): Record<string, unknown> | undefined;
  getServerVersion(): { name: string; version: string } | undefined;
  getInstructions(): string | undefined;
  experimental: {
    tasks: {
      getTask(taskId: string, options?: SdkRequestOptions): Promise<Record<string, unknown>>;
      getTaskResult(
        taskId: string,
        schema?: unknown,
        options?: SdkRequestOptions,
      ): Promise<Record<string, unknown>>;
      cancelTask(taskId: string, options?: SdkRequestOptions): Promise<unknown>;
    };
  };
}

/** The SDK schemas used here. */
export interface SdkSchemas {
  ResultSchema: unknown;
  CreateTaskResultSchema: unknown;
  CallToolResultSchema: unknown;
  ListToolsResultSchema: unknown;
  ReadResourceResultSchema: unknown;
  GetPromptResultSchema: unknown;
  ElicitRequestSchema: unknown;
  CreateMessageRequestSchema: unknown;
  ListRootsRequestSchema: unknown;
}

/** The loaded SDK: a client constructor and the schemas. */
export interface Sdk {
  createClient(info: { name: string; version: string }, capabilities: Record<string, unknown>): SdkClient;
  schemas: SdkSchemas;
}

/**
 * Loads the SDK.
 *
 * @throws {@link UnsupportedProtocolVersionError} when `@modelcontextprotocol/sdk` is not installed (the server
 *   speaks only 2025-11-25, which needs it).
 */
export async function loadSdk(): Promise<Sdk> {
  try {
    type ClientModule = { Client: new (info: unknown, options: unknown) => unknown };
    const [{ Client }, types] = await Promise.all([
      importSdkModule<ClientModule>('client/index.js'),
      importSdkModule('types.js'),
    ]);
    return {
      createClient: (info, capabilities) => new Client(info, { capabilities }) as SdkClient,
      schemas: types as unknown as SdkSchemas,
    };
  } catch (error) {
    const cause = new Error(
      'the server speaks MCP 2025-11-25; install the optional peer dependency @modelcontextprotocol/sdk (1.x) to reach it',
      { cause: error },
    );
    throw new UnsupportedProtocolVersionError(PROTOCOL_VERSION, [LEGACY_PROTOCOL_VERSION], { cause });
  }
}

/** Maps an error thrown by the SDK onto this package's classes, keeping it as `cause`. */
export function fromSdkError(method: string, error: unknown): unknown {
  if (!(error instanceof Error)) return new NetworkError(method, { cause: error });
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (error.name === 'AbortError') return error;
  if (error instanceof McpClientError) return error; // our own abort reason (an abort or close()), kept as it is
  if (error.constructor.name === 'StreamableHTTPError' && typeof code === 'number') {
    return new HttpError(method, code, error.message, undefined, { cause: error });
  }
  if (typeof code === 'number' && Number.isInteger(code)) {
    const message = error.message.replace(/^MCP error -?\d+: /, '');
    return new McpError(method, { code, message, data }, { cause: error });
  }
  return new NetworkError(method, { cause: error });
}
