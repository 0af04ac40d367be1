/**
 * A sign-in without the optional peer `@modelcontextprotocol/client`: the CLI's message says exactly what to run,
 * for an `npx` user the same command with the peer added.
 */
import { describe, expect, it } from 'vitest';
import { AuthorizationError } from '../../../src/index.js';
import { explainError } from '../src/explain-error.js';
import { missingAuthPeerMessage } from '../src/missing-peer.js';

const peerMissing = (): Error => {
  const notFound = Object.assign(new Error("Cannot find package '@modelcontextprotocol/client'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
  const load = new TypeError(
    'the auth option needs the optional peer dependency @modelcontextprotocol/client (npm install @modelcontextprotocol/client)',
    { cause: notFound },
  );
  return new AuthorizationError('https://mcp.example.com/mcp', 'authorize', load.message, { cause: load });
};

describe('sign-in without @modelcontextprotocol/client', () => {
  it('an npx user is told the npx command with the peer added, their arguments quoted', () => {
    const text = missingAuthPeerMessage({
      npx: true,
      args: ['call', 'https://mcp.example.com/mcp', 'echo', 'text=hello world'],
    });
    expect(text).toContain(
      "npx -p mcp-tasks-client -p @modelcontextprotocol/client mcp-tasks call https://mcp.example.com/mcp echo 'text=hello world'",
    );
  });

  it('an installed CLI is told the install line', () => {
    const text = missingAuthPeerMessage({ npx: false, args: ['call', 'x', 'y'] });
    expect(text).toContain('npm install @modelcontextprotocol/client');
    expect(text).not.toContain('npx');
  });

  it('explainError finds the missing peer in the cause chain of the authorization error', () => {
    expect(explainError(peerMissing())).toMatch(
      /^signing in to this server needs the optional package @modelcontextprotocol\/client/,
    );
  });

  it('never repeats a header or --env value (issue 24 item 4)', () => {
    const message = missingAuthPeerMessage({
      args: [
        'call',
        'https://mcp.example.com/mcp',
        'echo',
        '--header',
        'Authorization: Bearer sekret-123',
        '--env=TOKEN=abc-secret',
        '--header=X-Api-Key: key-456',
      ],
      npx: true,
    });
    expect(message).not.toMatch(/sekret-123|abc-secret|key-456/);
    expect(message).toContain("--header 'Authorization: <value>'");
    expect(message).toContain("'--env=TOKEN=<value>'");
    expect(message).toContain("'--header=X-Api-Key: <value>'");
  });
});
