/**
 * The stdio shutdown order (CLIENT-REQUIREMENTS 3.4; MCP stdio transport § Shutdown): close the server's stdin, wait
 * at most one second for it to exit, SIGTERM, wait at most one second, SIGKILL. Real child processes; the waits run
 * on fake timers (only setTimeout/clearTimeout are faked: the child's pipes and exit are real I/O).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CLOSE_GRACE_MS } from '../../src/stdio.js';
import { exitOf, shutDownStdioChild } from '../../src/transport/stdio-child.js';

/** A child that says `ready` once its handlers are installed; flags make it ignore the end of stdin or SIGTERM. */
const SERVER = String.raw`
const flags = new Set(process.argv.slice(1));
if (flags.has('--ignore-term')) process.on('SIGTERM', () => {});
process.stdin.on('end', () => { if (!flags.has('--ignore-eof')) process.exit(0); });
process.stdin.resume();
setInterval(() => {}, 60_000);
process.stdout.write('ready\n');
`;

const children: ChildProcess[] = [];

async function start(...flags: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', SERVER, '--', ...flags], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  return child;
}

/** Lets real I/O (a signal delivered, the exit event) happen while the fake clock stands still. */
const realTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('shutDownStdioChild', () => {
  it('the default wait is one second', () => {
    expect(DEFAULT_CLOSE_GRACE_MS).toBe(1_000);
  });

  it('a server that exits when its stdin closes is gone at once: no signal is sent', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const child = await start();
    const step = await shutDownStdioChild(child, exitOf(child), DEFAULT_CLOSE_GRACE_MS);
    expect(step).toBe('stdin-closed');
    expect(child.signalCode).toBeNull();
    expect(child.exitCode).toBe(0);
  });

  it('a server that ignores the end of stdin gets SIGTERM after exactly one second, not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const child = await start('--ignore-eof');
    const kill = vi.spyOn(child, 'kill');
    const done = shutDownStdioChild(child, exitOf(child), DEFAULT_CLOSE_GRACE_MS);
    await vi.advanceTimersByTimeAsync(999);
    for (let i = 0; i < 20; i++) await realTurn();
    expect(kill).not.toHaveBeenCalled();
    expect(child.exitCode).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(kill).toHaveBeenCalledWith('SIGTERM');
    expect(await done).toBe('SIGTERM');
    expect(child.signalCode).toBe('SIGTERM');
  });

  it('a server that ignores SIGTERM too gets SIGKILL one second later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const child = await start('--ignore-eof', '--ignore-term');
    const kill = vi.spyOn(child, 'kill');
    const done = shutDownStdioChild(child, exitOf(child), DEFAULT_CLOSE_GRACE_MS);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(kill.mock.calls).toEqual([['SIGTERM']]);
    await vi.advanceTimersByTimeAsync(999);
    for (let i = 0; i < 20; i++) await realTurn();
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(kill.mock.calls).toEqual([['SIGTERM'], ['SIGKILL']]);
    expect(await done).toBe('SIGKILL');
    expect(child.signalCode).toBe('SIGKILL');
  });
});
