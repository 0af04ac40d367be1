/**
 * The redirect URI of the CLI's browser sign-in: a one-shot HTTP listener on 127.0.0.1 (an ephemeral port, chosen
 * when the sign-in starts), path `/callback`. It accepts the first request whose `state` matches, answers the
 * browser with a short page, and hands back `code` and `iss`. (RFC 8252 §7.3: loopback redirection for native apps)
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#authorization-code-protection)
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizationCallback } from 'mcp-tasks-client';

const PAGE_OK =
  '<!doctype html><title>mcp-tasks</title><p>Signed in. You can close this tab and return to the terminal.</p>';
const PAGE_BAD =
  '<!doctype html><title>mcp-tasks</title><p>This sign-in response was not accepted. Return to the terminal.</p>';

/** A listening loopback redirect endpoint. */
export class LoopbackRedirect {
  readonly #server: Server;
  readonly url: string;
  #expectedState: string | undefined;
  #settle: { resolve: (v: AuthorizationCallback) => void; reject: (e: unknown) => void } | undefined;
  #pending: Promise<AuthorizationCallback>;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
    this.#pending = new Promise((resolve, reject) => (this.#settle = { resolve, reject }));
    this.#pending.catch(() => undefined);
  }

  /** Starts listening on 127.0.0.1 (port 0 = any free port). */
  static async start(port = 0): Promise<LoopbackRedirect> {
    let self: LoopbackRedirect | undefined;
    const server = createServer((req, res) => self?.handle(req.url ?? '/', res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    server.unref();
    self = new LoopbackRedirect(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    );
    return self;
  }

  /** The `state` the next response must carry. */
  expectState(state: string): void {
    this.#expectedState = state;
  }

  private handle(path: string, res: import('node:http').ServerResponse): void {
    const url = new URL(path, this.url);
    const code = url.searchParams.get('code');
    const ok =
      url.pathname === '/callback' &&
      code !== null &&
      this.#expectedState !== undefined &&
      url.searchParams.get('state') === this.#expectedState;
    res
      .writeHead(ok ? 200 : 400, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .end(ok ? PAGE_OK : PAGE_BAD);
    if (!ok) {
      // An error response counts only with this sign-in's `state` (RFC 6749 § 4.1.2.1); any other page or tab
      // that hits the port cannot cancel the sign-in.
      const ours = this.#expectedState !== undefined && url.searchParams.get('state') === this.#expectedState;
      if (url.pathname === '/callback' && url.searchParams.has('error') && ours)
        this.#settle?.reject(new Error('the authorization server refused the sign-in'));
      return;
    }
    const iss = url.searchParams.get('iss');
    this.#settle?.resolve(iss === null ? { code } : { code, iss });
  }

  /** Resolves with the redirect's `code` and `iss`; rejects after `timeoutMs` or when `signal` aborts. */
  wait(signal: AbortSignal, timeoutMs: number): Promise<AuthorizationCallback> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no sign-in within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#pending.then(resolve, reject).finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      });
    });
  }

  close(): void {
    this.#server.close();
    this.#server.closeAllConnections();
  }
}
