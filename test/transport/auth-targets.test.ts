/**
 * Where a server may steer the client during authorization (SSRF): link-local and cloud metadata addresses never,
 * private and loopback ones only when the MCP server is on one, names resolved first. And, end to end over loopback,
 * a 401 whose `resource_metadata` points at the cloud metadata path is refused before anything is fetched there.
 * (MCP security best practices, "Server-Side Request Forgery"; issue 24 item 8)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationError, StreamableHttpTransport, TaskClient } from '../../src/index.js';
import { authTargetProblem, classifyAddress } from '../../src/transport/auth-targets.js';
import { ConformanceOAuthProvider } from '../conformance/oauth-provider.js';

const u = (s: string): URL => new URL(s);
const names: Record<string, string[]> = {
  'internal.corp.example': ['10.1.2.3'],
  'rebind.example': ['93.184.216.34', '169.254.169.254'],
  'as.example.com': ['93.184.216.34'],
  'mcp.example.com': ['93.184.216.35'],
  'mcp.corp.example': ['10.0.0.5'],
};
const resolve = async (host: string): Promise<string[]> => names[host] ?? [];

describe('address classes', () => {
  it.each([
    ['169.254.169.254', 'metadata'],
    ['[fd00:ec2::254]', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.10.1', 'link-local'],
    ['[fe80::1]', 'link-local'],
    ['[febf::1]', 'link-local'],
    ['[::ffff:169.254.169.254]', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['[fd12::1]', 'private'],
    ['[::ffff:10.0.0.1]', 'private'],
    ['93.184.216.34', 'public'],
    ['[2606:4700::1111]', 'public'],
    ['example.com', undefined],
  ])('%s is %s', (host, cls) => {
    expect(classifyAddress(host)).toBe(cls);
  });
});

describe('the rule', () => {
  it('never link-local or metadata, even for a server on loopback', async () => {
    const server = u('http://127.0.0.1:3000/mcp');
    for (const target of [
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[fe80::1]/token',
      'http://metadata.google.internal/computeMetadata/v1/',
      'https://rebind.example/.well-known/oauth-authorization-server',
    ])
      expect(await authTargetProblem(u(target), server, resolve), target).toMatch(/link-local|metadata/);
  });

  it('private and loopback only when the MCP server is on one', async () => {
    const publicServer = u('https://mcp.example.com/mcp');
    for (const target of [
      'http://10.0.0.8/token',
      'http://127.0.0.1:8080/',
      'https://internal.corp.example/',
    ])
      expect(await authTargetProblem(u(target), publicServer, resolve), target).toMatch(
        /private or loopback/,
      );
    expect(await authTargetProblem(u('https://as.example.com/token'), publicServer, resolve)).toBeUndefined();
    const corpServer = u('https://mcp.corp.example/mcp');
    expect(
      await authTargetProblem(u('https://internal.corp.example/token'), corpServer, resolve),
    ).toBeUndefined();
    expect(
      await authTargetProblem(u('http://127.0.0.1:9000/'), u('http://localhost:3000/mcp')),
    ).toBeUndefined();
  });
});

describe('end to end', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(401, {
        'WWW-Authenticate':
          'Bearer resource_metadata="http://169.254.169.254/latest/meta-data/iam/security-credentials/"',
      });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a 401 pointing resource_metadata at the metadata service is refused, nothing fetched there', async () => {
    const provider = new ConformanceOAuthProvider();
    const client = new TaskClient({
      transport: new StreamableHttpTransport(url, { auth: { provider } }),
      timeoutMs: 3_000,
    });
    const error = await client.discover().then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as Error).message).toContain('refused to fetch http://169.254.169.254');
    expect((error as Error).message).toContain('metadata');
  });
});
