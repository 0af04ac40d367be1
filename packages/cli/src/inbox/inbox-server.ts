/**
 * The inbox's HTTP server (node:http): the page, its script and style, the task list as JSON and as server-sent
 * events, and the actions (answer, cancel, open, a new sign-in link), all behind {@link InboxGuard}.
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html)
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostRule, InboxGuard, SECURITY_HEADERS, send, type InboxSession } from './security.js';
import type { InboxTasks } from './inbox-tasks.js';
import { pageHtml, PAGE_CSS } from './page/assets.js';
import type { InboxSnapshot } from './view.js';

/** Largest accepted request body, bytes. */
const MAX_BODY_BYTES = 64 * 1024;
/** Comment lines keep idle event streams open through proxies and tunnels, ms. */
const HEARTBEAT_MS = 15_000;

/** Options of {@link startInboxServer}. */
export interface InboxServerOptions {
  tasks: InboxTasks;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** The page script, built with the CLI (`dist/inbox-app.js`). @default read next to this module */
  script?: () => Promise<string>;
}

/** A running inbox. */
export interface InboxServer {
  /** The base URL, e.g. `http://127.0.0.1:43117`. */
  readonly url: string;
  /** A new one-time sign-in link (`<url>/login?token=…`). */
  signInLink(): string;
  close(): Promise<void>;
}

const readScript = (): Promise<string> => readFile(new URL('./inbox-app.js', import.meta.url), 'utf8');

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8');
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The host name for the printed link. */
function linkHost(host: string): string {
  if (host === 'localhost' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts the inbox's server. */
export async function startInboxServer(options: InboxServerOptions): Promise<InboxServer> {
  const host = options.host ?? '127.0.0.1';
  const tasks = options.tasks;
  const script = options.script ?? readScript;
  const streams = new Set<ServerResponse>();
  let guard: InboxGuard | undefined;
  let base = '';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const g = guard as InboxGuard;
    const refused = g.checkOrigin(req);
    if (refused) return send(res, refused.status, `refused: ${refused.reason}\n`);
    const url = new URL(req.url ?? '/', 'http://inbox.invalid');
    if (req.method === 'GET' && url.pathname === '/login') {
      const session = g.exchange(url.searchParams.get('token') ?? '');
      if (!session)
        return send(
          res,
          403,
          'This sign-in link is not valid (each link works once). Get a new one from the terminal that runs `mcp-tasks inbox`.\n',
        );
      return send(res, 303, '', 'text/plain; charset=utf-8', {
        'Set-Cookie': g.cookie(session),
        Location: '/',
      });
    }
    if (url.pathname === '/favicon.ico') return send(res, 204, '');
    const session = g.session(req);
    if (!session) return send(res, 401, 'Sign in with the link `mcp-tasks inbox` printed (it works once).\n');
    if (req.method === 'GET') return get(url.pathname, req, res, session);
    const bad = g.checkPost(req, session);
    if (bad) return send(res, bad.status, `refused: ${bad.reason}\n`);
    const body = await readJson(req);
    if (!body) return json(res, 400, { error: 'the body must be a JSON object' });
    return post(url.pathname, body, res, session);
  };

  const get = async (path: string, req: IncomingMessage, res: ServerResponse, session: InboxSession) => {
    if (path === '/') return send(res, 200, pageHtml(session.csrf), 'text/html; charset=utf-8');
    if (path === '/app.js') return send(res, 200, await script(), 'text/javascript; charset=utf-8');
    if (path === '/app.css') return send(res, 200, PAGE_CSS, 'text/css; charset=utf-8');
    if (path === '/api/tasks') return json(res, 200, { ...tasks.snapshot, now: Date.now() });
    if (path.startsWith('/api/tasks/')) {
      const details = await tasks.details(decodeURIComponent(path.slice('/api/tasks/'.length)));
      return details ? json(res, 200, details) : json(res, 404, { error: 'no such task' });
    }
    if (path === '/events') {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': 'text/event-stream; charset=utf-8',
        Connection: 'keep-alive',
      });
      const write = (snapshot: InboxSnapshot) =>
        res.write(`event: tasks\ndata: ${JSON.stringify({ ...snapshot, now: Date.now() })}\n\n`);
      write(tasks.snapshot);
      const off = tasks.onChange(write);
      const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      streams.add(res);
      req.on('close', () => {
        off();
        clearInterval(beat);
        streams.delete(res);
      });
      return;
    }
    return send(res, 404, 'not found\n');
  };

  const post = async (
    path: string,
    body: Record<string, unknown>,
    res: ServerResponse,
    session: InboxSession,
  ) => {
    const id = typeof body.id === 'string' ? body.id : '';
    if (path === '/api/answer') {
      const key = typeof body.key === 'string' ? body.key : '';
      try {
        const outcome = await tasks.answer(id, key, body.action, body.content, session.name);
        const status = { taken: 200, queued: 202, 'already-answered': 409, gone: 404, invalid: 422 }[
          outcome.result
        ];
        return json(res, status, outcome);
      } catch (error) {
        return json(res, 502, { result: 'not-delivered', error: String((error as Error).message) });
      }
    }
    if (path === '/api/cancel') {
      try {
        return json(res, 200, { requested: await tasks.cancel(id) });
      } catch (error) {
        return json(res, 502, { requested: false, error: String((error as Error).message) });
      }
    }
    if (path === '/api/collect') {
      await tasks.collect(id);
      return json(res, 200, { collected: true });
    }
    if (path === '/api/link') return json(res, 200, { link: signInLink() });
    return send(res, 404, 'not found\n');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String((error as Error).message) });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  guard = new InboxGuard(hostRule(host, port), port);
  base = `http://${linkHost(host)}:${port}`;
  const signInLink = (): string => `${base}/login?token=${(guard as InboxGuard).issueToken()}`;
  await tasks.refresh();
  return {
    url: base,
    signInLink,
    async close() {
      for (const res of streams) res.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
