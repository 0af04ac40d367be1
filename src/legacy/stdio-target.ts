/**
 * How a stdio transport reaches a 2025-11-25 server: through the official SDK 1.x `StdioClientTransport` (loaded
 * lazily; `@modelcontextprotocol/sdk` is an optional peer dependency), started with the same command line. The era
 * is told by a `server/discover` probe on the modern transport first (`probe: 'discover'`, see `era.ts`). (issue 4)
 *
 * @module
 * @internal
 */
import type { LegacyTarget } from '../transport/transport.js';
import { importSdkModule } from '../internal/optional-sdk.js';

/** What the SDK's stdio transport needs: the subset of `StdioTransportOptions` that starts the server. */
export interface StdioLegacyOptions {
  command: string;
  args?: readonly string[];
  /** Laid over `process.env` (or over nothing when `inheritEnv` is false), as the modern stdio transport does. */
  env?: Record<string, string | undefined>;
  /** @default true */
  inheritEnv?: boolean;
  cwd?: string;
  /** Receives the server's stderr as text; without it stderr is read and discarded (a full pipe would block it). */
  onStderr?: (text: string) => void;
}

/** The environment of the child: `env` over `process.env` (unless `inheritEnv` is false), unset entries dropped. */
export function childEnv(options: Pick<StdioLegacyOptions, 'env' | 'inheritEnv'>): Record<string, string> {
  const merged = { ...(options.inheritEnv === false ? {} : process.env), ...options.env };
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(merged)) if (value !== undefined) env[key] = value;
  return env;
}

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
