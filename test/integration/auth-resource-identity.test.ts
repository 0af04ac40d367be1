/**
 * Protected resource metadata is used only when its `resource` is the identifier its URL was built from
 * (RFC 9728 § 3.3): the server URL for the path well-known URI and for a `resource_metadata` URL from the challenge,
 * the origin for the root well-known URI. Anything else (a prefix, the origin root at the path URI, another path) is
 * refused with an AuthorizationError carrying `resourceMismatch` before any registration, authorization or token request; an accepted
 * `resource` reaches the authorization server exactly as published (no "/" added). CLIENT-REQUIREMENTS: issue 24
 * item 5.
 *
 * Real HTTP on loopback: a protected resource front (metadata where each case puts it, 401 challenges, and requests
 * with a valid token passed to the reference task server), the test authorization server, and the conformance
 * provider as the person who signs in.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { createTaskServer, type TaskServer } from '../../src/testing/index.js';
import { ConformanceOAuthProvider } from '../conformance/oauth-provider.js';
import { startTestAuthServer, type TestAuthServer } from '../helpers/oauth-server.js';

/** The MCP endpoint's path on the front. */
const MCP_PATH = '/api/mcp';
const PATH_METADATA = `/.well-known/oauth-protected-resource${MCP_PATH}`;
const ROOT_METADATA = '/.well-known/oauth-protected-resource';
const CHALLENGE_METADATA = '/meta/resource.json';

let as: TestAuthServer | undefined;
let backend: TaskServer | undefined;
let front: Server | undefined;
afterEach(async () => {
  front?.closeAllConnections();
  await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
  await backend?.close();
  await as?.close();
  front = backend = as = undefined;
});

interface Front {
  origin: string;
  /** The MCP endpoint URL. */
  url: string;
  /** The metadata paths the client asked for, in order. */
  asked: string[];
}

/**
 * Starts the authorization server, the task server and a front that publishes `{ resource: resource(origin) }` at
 * `where` (the path or root well-known URI, or a URL named in the challenge) and 404 elsewhere.
 */
async function protectedResource(
  where: 'path' | 'root' | 'challenge',
  resource: (origin: string) => string,
): Promise<Front> {
  as = await startTestAuthServer();
  const issuer = as.issuer;
  backend = await createTaskServer();
  const target = backend.url;
  const asked: string[] = [];
  let origin = '';
  const at = { path: PATH_METADATA, root: ROOT_METADATA, challenge: CHALLENGE_METADATA }[where];
  front = createServer((req, res) => {
    const path = req.url ?? '';
    if (req.method === 'GET' && (path.startsWith('/.well-known/') || path.startsWith('/meta/'))) {
      asked.push(path);
      if (path !== at) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify({ resource: resource(origin), authorization_servers: [issuer] }));
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (path !== MCP_PATH || token === undefined || !as?.verifyAccessToken(token)) {
      const named = where === 'challenge' ? ` resource_metadata="${origin}${CHALLENGE_METADATA}"` : '';
      res.writeHead(401, { 'WWW-Authenticate': `Bearer${named}` });
      return void res.end();
    }
    void pass(req, target).then(
      async (answer) => {
        const headers: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (name !== 'content-length' && name !== 'content-encoding') headers[name] = value;
        });
        res.writeHead(answer.status, headers);
        res.end(Buffer.from(await answer.arrayBuffer()));
      },
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => front?.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  return { origin, url: `${origin}${MCP_PATH}`, asked };
}

/** Sends an authorized request on to the task server (its own endpoint has no authorization). */
async function pass(req: IncomingMessage, target: string): Promise<Response> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (
      typeof value === 'string' &&
      !['host', 'authorization', 'connection', 'content-length'].includes(name)
    )
      headers.set(name, value);
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return fetch(target, { method: req.method, headers, body });
}

/** Connects (one sign-in) and returns the error, if any. */
async function connect(url: string, provider = new ConformanceOAuthProvider()): Promise<unknown> {
  const client = new TaskClient({
    transport: new StreamableHttpTransport(url, {
      auth: { provider, waitForAuthorizationCode: () => provider.waitForAuthorizationCode() },
    }),
  });
  try {
    await client.listTools();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

/** Nothing reached the authorization server beyond its metadata. */
function expectNothingSent(): void {
  expect(as?.counts).toMatchObject({ register: 0, authorize: 0, code: 0 });
  expect(as?.resources).toEqual({ authorize: [], token: [] });
}

describe('protected resource identity (RFC 9728 § 3.3)', () => {
  it('accepts path metadata naming the server URL, and sends it unchanged', async () => {
    const { url, asked } = await protectedResource('path', (origin) => `${origin}${MCP_PATH}`);
    expect(await connect(url)).toBeUndefined();
    expect(asked).toEqual([PATH_METADATA]);
    expect(as?.resources).toEqual({ authorize: [url], token: [url] });
  });

  for (const [written, resource] of [
    ['without a trailing "/"', (origin: string) => origin],
    ['with a trailing "/"', (origin: string) => `${origin}/`],
  ] as const) {
    it(`accepts root metadata naming the origin ${written}, and sends exactly that string`, async () => {
      const { url, origin, asked } = await protectedResource('root', resource);
      expect(await connect(url)).toBeUndefined();
      expect(asked).toEqual([PATH_METADATA, ROOT_METADATA]);
      expect(as?.resources).toEqual({ authorize: [resource(origin)], token: [resource(origin)] });
    });
  }

  it('accepts challenge metadata naming the requested URL', async () => {
    const { url, asked } = await protectedResource('challenge', (origin) => `${origin}${MCP_PATH}`);
    expect(await connect(url)).toBeUndefined();
    expect(asked).toEqual([CHALLENGE_METADATA]);
    expect(as?.resources).toEqual({ authorize: [url], token: [url] });
  });

  for (const [where, what, resource, expected] of [
    ['path', 'the origin root', (o: string) => o, (o: string) => `${o}${MCP_PATH}`],
    ['path', 'a prefix of the server URL', (o: string) => `${o}/api`, (o: string) => `${o}${MCP_PATH}`],
    [
      'path',
      'the server URL with a trailing "/"',
      (o: string) => `${o}${MCP_PATH}/`,
      (o: string) => `${o}${MCP_PATH}`,
    ],
    ['path', 'another path', (o: string) => `${o}/api/other`, (o: string) => `${o}${MCP_PATH}`],
    ['path', 'another host', () => `https://evil.example${MCP_PATH}`, (o: string) => `${o}${MCP_PATH}`],
    ['root', 'the server URL', (o: string) => `${o}${MCP_PATH}`, (o: string) => o],
    ['root', 'a path below the origin', (o: string) => `${o}/api`, (o: string) => o],
    ['challenge', 'the origin root', (o: string) => o, (o: string) => `${o}${MCP_PATH}`],
    ['challenge', 'a prefix of the server URL', (o: string) => `${o}/api`, (o: string) => `${o}${MCP_PATH}`],
  ] as const) {
    it(`refuses ${where} metadata naming ${what}, before any request to the authorization server`, async () => {
      const { url, origin } = await protectedResource(where, resource);
      const error = await connect(url);
      expect(error).toBeInstanceOf(AuthorizationError);
      const refused = error as AuthorizationError;
      expect(refused.code).toBe('AUTHORIZATION_FAILED');
      expect(refused.step).toBe('authorize');
      expect(refused.resourceMismatch).toEqual({
        resource: resource(origin),
        expectedResource: expected(origin),
        metadataUrl: `${origin}${{ path: PATH_METADATA, root: ROOT_METADATA, challenge: CHALLENGE_METADATA }[where]}`,
        source: where,
      });
      expect(refused.message).toContain(
        `names the resource "${resource(origin)}", not "${expected(origin)}"`,
      );
      expect(refused.message).toContain('RFC 9728 § 3.3');
      expectNothingSent();
    });
  }

  it('does not reuse remembered metadata unchecked: fetches it again and sends the newly checked resource', async () => {
    const { url, origin, asked } = await protectedResource('path', (o) => `${o}${MCP_PATH}`);
    // What a provider may have kept from a run whose check accepted a prefix (the origin)
    const provider = new ConformanceOAuthProvider();
    provider.saveDiscoveryState({
      authorizationServerUrl: as?.issuer ?? '',
      resourceMetadata: { resource: origin, authorization_servers: [as?.issuer ?? ''] },
    });
    expect(await connect(url, provider)).toBeUndefined();
    expect(asked).toEqual([PATH_METADATA]);
    expect(as?.resources).toEqual({ authorize: [url], token: [url] });
    expect(provider.discoveryState()?.resourceMetadata?.resource).toBe(url);
  });

  it('escapes control characters of a published resource in the message, and keeps the value exact', async () => {
    const { url, origin } = await protectedResource('path', (o) => `${o}/api/mcp\u001b[2J\u202e`);
    const error = (await connect(url)) as AuthorizationError;
    expect(error).toBeInstanceOf(AuthorizationError);
    expect(error.resourceMismatch?.resource).toBe(`${origin}/api/mcp\u001b[2J\u202e`);
    expect(error.message).not.toMatch(/[\u001b\u202e]/);
    expectNothingSent();
  });
});
