/**
 * The only place that builds the official SDK 1.x transports (`@modelcontextprotocol/sdk`, an optional peer, loaded
 * lazily) from a transport's {@link TransportTarget}: `StreamableHTTPClientTransport` for HTTP (static headers,
 * `getHeaders()` read once, `fetch` carried over), `StdioClientTransport` for stdio (same command line and
 * environment; the modern transport's own child is released first).
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports)
 *
 * @module
 * @internal
 */
import { childEnv } from '../internal/child-env.js';
import { importSdkModule } from '../internal/optional-sdk.js';
import { checkHeaderRecord } from '../transport/header-values.js';
import type { TransportTarget } from '../transport/transport.js';

/**
 * Creates the SDK transport for `target`.
 *
 * @param release - called (not awaited) before the SDK starts its own stdio child: lets the modern transport end
 *   the process it started for the `server/discover` probe.
 */
export async function createSdkTransport(
  target: TransportTarget,
  release?: () => Promise<void>,
): Promise<unknown> {
  if (target.kind === 'custom') return target.createSdkTransport();
  if (target.kind === 'http') {
    type HttpModule = { StreamableHTTPClientTransport: new (url: URL, options: unknown) => unknown };
    const { StreamableHTTPClientTransport } = await importSdkModule<HttpModule>('client/streamableHttp.js');
    // A bad header value fails typed and is never quoted
    const headers = {
      ...checkHeaderRecord('headers', target.headers),
      ...(target.getHeaders ? checkHeaderRecord('getHeaders()', await target.getHeaders()) : {}),
    };
    return new StreamableHTTPClientTransport(target.url, { requestInit: { headers }, fetch: target.fetch });
  }
  type StdioModule = typeof import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StdioClientTransport } = await importSdkModule<StdioModule>('client/stdio.js');
  release?.().catch(() => undefined);
  const transport = new StdioClientTransport({
    command: target.command,
    args: [...(target.args ?? [])],
    env: childEnv(target),
    cwd: target.cwd,
    stderr: 'pipe',
  });
  // A PassThrough created in the constructor, so nothing the server writes early is lost.
  const stderr = transport.stderr as NodeJS.ReadableStream | null;
  const onStderr = target.onStderr;
  if (stderr) {
    stderr.setEncoding('utf8');
    stderr.on('data', (text: string | Buffer) => {
      try {
        onStderr?.(String(text));
      } catch {
        // a listener's bug is not a transport failure
      }
    });
  }
  return transport;
}
