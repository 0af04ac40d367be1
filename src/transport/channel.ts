/**
 * A message channel: JSON-RPC messages both ways, with no request/response pairing of its own. The 2025-11-25 session
 * (`src/legacy/`) runs over one: the server may send requests of its own (`elicitation/create`,
 * `sampling/createMessage`) at any time, and they are answered on the same channel. The shape is the one of the
 * official SDK 1.x `Transport` (`start`, `send`, `close`, `onmessage`, `onclose`, `onerror`, `sessionId`), so an
 * embedder's SDK transport, or a test's in-memory pair, can serve as one.
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports)
 *
 * @module
 */

/** One JSON-RPC message (request, notification or response), as parsed JSON. */
export type ChannelMessage = Record<string, unknown>;

/** Per-message options a channel may honour. */
export interface ChannelSendOptions {
  /** Aborting stops the exchange that carries the message (HTTP: the POST and the reading of its reply). */
  signal?: AbortSignal;
}

/**
 * JSON-RPC messages to and from one server. `send` rejects when the message could not be delivered (or, for a
 * request on HTTP, when its reply could not be read to the response); everything the server sends, responses
 * included, comes out of `onmessage`.
 */
export interface JsonRpcChannel {
  /** Starts the channel (a stdio channel starts its process). */
  start(): Promise<void>;
  /** Sends one message. */
  send(message: ChannelMessage, options?: ChannelSendOptions): Promise<void>;
  /** Ends the channel (HTTP: the session is deleted); `onclose` follows. */
  close(): Promise<void>;
  /** Every message from the server. */
  onmessage?: (message: ChannelMessage) => void;
  /** The channel ended (closed, or the server process exited). */
  onclose?: () => void;
  /** A failure not tied to one `send` (the server process exited, a listening stream broke for good). */
  onerror?: (error: Error) => void;
  /** HTTP: the `Mcp-Session-Id` the server assigned, once it did. */
  readonly sessionId?: string;
  /** Called with the protocol version `initialize` negotiated (HTTP: sent as `MCP-Protocol-Version`). */
  setProtocolVersion?: (version: string) => void;
}
