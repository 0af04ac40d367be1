/**
 * `--sampling-command <cmd>`: answers `sampling/createMessage` by running a command. The command gets the request
 * (`{"method": "sampling/createMessage", "params": {…}}`) as JSON on stdin and must print the result JSON
 * (`{"role": "assistant", "content": {"type": "text", "text": "…"}, "model": "…"}`) on stdout.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import type { CreateMessageResult } from 'mcp-tasks-client';

/** Default time a sampling command may take, ms. */
export const DEFAULT_SAMPLING_TIMEOUT_MS = 120_000;

/**
 * Runs the command through the shell and parses its answer.
 *
 * @throws Error when the command cannot start, exits non-zero, times out, or prints something that is not a
 *   sampling result.
 */
export function runSamplingCommand(
  command: string,
  request: unknown,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<CreateMessageResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, {
      shell: true,
      stdio: ['pipe', 'pipe', 'inherit'],
      signal: options.signal,
      timeout: options.timeoutMs ?? DEFAULT_SAMPLING_TIMEOUT_MS,
    });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => reject(new Error(`--sampling-command failed to run: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`--sampling-command exited with ${signal ?? `code ${code}`}`));
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(stdout);
      } catch {
        reject(new Error('--sampling-command did not print JSON'));
        return;
      }
      const r = parsed as Partial<CreateMessageResult> | null;
      if (
        !r ||
        typeof r !== 'object' ||
        typeof r.model !== 'string' ||
        (r.role !== 'assistant' && r.role !== 'user') ||
        r.content === undefined
      ) {
        reject(
          new Error('--sampling-command printed JSON that is not a sampling result (role, content, model)'),
        );
        return;
      }
      resolve(r as CreateMessageResult);
    });
    child.stdin.end(JSON.stringify(request));
  });
}
