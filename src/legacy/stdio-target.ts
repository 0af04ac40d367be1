/**
 * How a stdio transport reaches a 2025-11-25 server: through the official SDK 1.x `StdioClientTransport` (loaded
 * lazily; `@modelcontextprotocol/sdk` is an optional peer dependency), started with the same command line. The era
 * is told by a `server/discover` probe on the modern transport first (`probe: 'discover'`, see `era.ts`).
 *
 * @module
 * @internal
 */
import type { LegacyTarget } from '../transport/transport.js';
import { childEnv } from '../internal/child-env.js';
import { importSdkModule } from '../internal/optional-sdk.js';
import type { StdioTransportOptions } from '../transport/stdio.js';

/** What the SDK's stdio transport needs: the options of `StdioTransport` that start the server. */
export type StdioLegacyOptions = Pick<StdioTransportOptions, 'command' | 'args' | 'env' | 'inheritEnv' | 'cwd' | 'onStderr'>;

/**
 * The {@link LegacyTarget} of a stdio server.
 *
 * @param release - called (not awaited) before the SDK starts its own child: lets the modern transport end the
 *   process it started for the `server/discover` probe, which is not used once the era is known to be legacy.
 *
 * @example
 * // in StdioTransport:
 * get legacyTarget(): LegacyTarget { return stdioLegacyTarget(this.#options, () => this.close()); }
 */
export function stdioLegacyTarget(options: StdioLegacyOptions, release?: () => Promise<void>): LegacyTarget {
  return {
    probe: 'discover',
    createSdkTransport: async () => {
      type StdioModule = typeof import('@modelcontextprotocol/sdk/client/stdio.js');
      const { StdioClientTransport } = await importSdkModule<StdioModule>('client/stdio.js');
      release?.().catch(() => undefined);
      const transport = new StdioClientTransport({
        command: options.command,
        args: [...(options.args ?? [])],
        env: childEnv(options),
        cwd: options.cwd,
        stderr: 'pipe',
      });
      // A PassThrough created in the constructor, so nothing the server writes early is lost.
      const stderr = transport.stderr as NodeJS.ReadableStream | null;
      if (stderr) {
        stderr.setEncoding('utf8');
        stderr.on('data', (text: string | Buffer) => {
          try {
            options.onStderr?.(String(text));
          } catch {
            // a listener's bug is not a transport failure
          }
        });
      }
      return transport;
    },
  };
}
