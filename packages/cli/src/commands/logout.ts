/**
 * `mcp-tasks logout <server>`: forget the stored authorization (tokens, client registration) for a server.
 *
 * @module
 */
import { parseServerUrl } from '../arguments.js';
import { AuthFile } from '../auth/token-file.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { Output } from '../output.js';
import { runReporting } from '../session.js';

/** Runs `logout`; resolves with the exit code (0 whether or not anything was stored). */
export function logoutCommand(server: string, options: { json?: boolean }): Promise<ExitCodeValue> {
  const output = new Output({ json: options.json });
  return runReporting(output, async () => {
    const file = new AuthFile(parseServerUrl(server));
    const removed = await file.remove();
    const message = removed
      ? `Signed out of ${file.server}: its tokens and client registration are forgotten.`
      : `No stored authorization for ${file.server}.`;
    if (output.json) output.emit({ event: 'hint', message });
    else output.text(message);
    return ExitCode.Completed;
  });
}
