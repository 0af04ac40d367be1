/**
 * The framework examples run as a person would run them (`npx tsx examples/<framework>.ts`): each starts the
 * reference server on loopback, drives its framework's agent loop with a mock model (no API key), and exits 0.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function runExample(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('framework examples', () => {
  it.each([
    ['examples/ai-sdk.ts', 'deployed 1.2.3 (approved in the example)'],
    ['examples/langchain.ts', 'tool  ← [success] deployed 2.0.0'],
    ['examples/openai-agents.ts', 'tool  ← deployed 3.0.0'],
  ])(
    '%s exits 0 after a question, a pending hand-off and task_result',
    async (file, deployed) => {
      const { code, stdout, stderr } = await runExample(file);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain(deployed);
      expect(stdout).toContain('"status":"pending"');
      expect(stdout).toMatch(/task_result\(\{"taskId":"[^"]+"\}\)/);
    },
    60_000,
  );
});
