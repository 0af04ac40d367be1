/**
 * Headless Debian Chromium through playwright-core, as every browser test launches it: no sandbox (containers), no
 * GPU, no background network (tests reach loopback only).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** The Chromium binary: `MCP_CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM = process.env.MCP_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches headless Chromium; throws with the install hint when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}. Install it (Debian: \`apt-get update && apt-get install -y chromium\`), ` +
        'set MCP_CHROMIUM_PATH to another binary, or set MCP_SKIP_BROWSER=1 to skip the browser tests.',
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
