/**
 * The smallest honest host for `@modelcontextprotocol/ext-tasks` against a 2026-07-28 Tasks server, as its README
 * asks: a connected SDK v2 `Client` (pinned to 2026-07-28), plus `rawDispatch` (the raw JSON-RPC request path the SDK
 * Client does not expose: one POST per request with the standard headers, JSON or SSE reply) and
 * `v2RequestFraming`. Shown in docs/performance.md.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  DispatchError,
  type JsonRpcResponse,
  type TaskEnabledSession,
  type WithTasksOptions,
} from '@modelcontextprotocol/ext-tasks/client';

const PROTOCOL_VERSION = '2026-07-28';
const NAME_PARAM: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

export interface PeerHost {
  session: TaskEnabledSession;
  close(): Promise<void>;
}

/** Options of {@link createPeerHost}. */
export interface PeerHostOptions {
  /** The application's answer to a question (passed to ext-tasks as `onInputRequest`); declares `elicitation`. */
  onInputRequest?: WithTasksOptions['onInputRequest'];
}

export async function createPeerHost(url: string, options: PeerHostOptions = {}): Promise<PeerHost> {
  const clientInfo = { name: 'bench-ext-tasks', version: '1.0.0' };
  const client = new Client(clientInfo, { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));

  // ext-tasks hands over `{ method, params }`; the host frames the JSON-RPC envelope (its own id sequence).
  let nextId = 1;
  const rawDispatch = async (
    request: unknown,
    options?: { signal?: AbortSignal },
  ): Promise<JsonRpcResponse> => {
    const message = {
      jsonrpc: '2.0',
      id: nextId++,
      ...(request as { method: string; params?: Record<string, unknown> }),
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': message.method,
    };
    const nameParam = NAME_PARAM[message.method];
    const name = nameParam ? message.params?.[nameParam] : undefined;
    if (typeof name === 'string') headers['mcp-name'] = name;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        signal: options?.signal,
      });
      text = await res.text();
    } catch (error) {
      if (options?.signal?.aborted) throw error;
      // A network failure: ext-tasks' own error type, marked retryable; ext-tasks decides whether to re-send.
      throw new DispatchError(`${message.method}: ${(error as Error).message}`, true, { cause: error });
    }
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // The last `data:` line carrying a response (the reference server answers requests with one event).
      const data = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
      const response = data.find((m) => 'result' in m || 'error' in m);
      if (!response) throw new Error(`${message.method}: SSE reply without a response`);
      return response as JsonRpcResponse;
    }
    try {
      return JSON.parse(text) as JsonRpcResponse;
    } catch (error) {
      throw new Error(
        `${message.method}: HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`,
        { cause: error },
      );
    }
  };
  const capabilities: Record<string, unknown> = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  if (options.onInputRequest) capabilities.elicitation = { form: {} };

  const session = createTaskSessionFromClient(client, {
    endpointId: 'bench',
    rawDispatch,
    v2RequestFraming: { protocolVersion: PROTOCOL_VERSION, clientInfo, clientCapabilities: capabilities },
    ...(options.onInputRequest ? { onInputRequest: options.onInputRequest } : {}),
  } as never);
  return {
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}
