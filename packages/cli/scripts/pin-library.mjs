/**
 * In this repository the command line depends on the library at the repository root (`file:../..`, which npm
 * workspaces link). A packed `mcp-tasks` must depend on the published `mcp-tasks-client` instead: `pin` (prepack)
 * writes `^<the library's version>` into package.json, `unpin` (postpack) puts the link back.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LINK = 'file:../..';
const pkgUrl = new URL('../package.json', import.meta.url);
const pkg = JSON.parse(readFileSync(pkgUrl, 'utf8'));
const library = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
const mode = process.argv[2];
if (mode !== 'pin' && mode !== 'unpin') throw new Error('usage: pin-library.mjs pin|unpin');
pkg.dependencies['mcp-tasks-client'] = mode === 'pin' ? `^${library.version}` : LINK;
writeFileSync(pkgUrl, `${JSON.stringify(pkg, null, 2)}\n`);
