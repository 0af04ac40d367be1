/**
 * The framework examples run as a person would run them (`npx tsx examples/<framework>.ts`): each starts the
 * reference server on loopback, drives its framework's agent loop with a mock model (no API key), and exits 0.
 */
import { describe, expect, it } from 'vitest';
import { runExample } from '../helpers/run-example.js';

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
