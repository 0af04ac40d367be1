/**
 * Checks that the main entry runs without Node: bundles `src/index.ts` with esbuild for `platform: "browser"` and
 * fails if any `node:` module, Node built-in (`fs`, `path`, …) or Node-only package reaches the bundle, naming
 * the importer of each (a `require()` goes through the same resolver). Also flags the Node globals `Buffer`,
 * `__dirname` and `__filename` in the output.
 *
 * ```sh
 * npx tsx scripts/check-browser-bundle.ts [entry]   # exit 1 on a violation
 * ```
 */
import { builtinModules } from 'node:module';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** Packages of this project that need Node (they sit behind the Node-only entry points). */
export const NODE_ONLY_PACKAGES: readonly string[] = [
  'commander',
  '@inquirer/prompts',
  'ora',
  'env-paths',
  'write-file-atomic',
  'undici',
];

/** One import that must not reach the browser bundle. */
export interface BundleViolation {
  /** What was imported, e.g. `node:fs` or `write-file-atomic`. */
  module: string;
  /** The file that imported it, relative to the project root. */
  importer: string;
  kind: 'node-builtin' | 'node-only-package' | 'node-global';
}

/** What {@link checkBrowserBundle} found. */
export interface BrowserBundleReport {
  ok: boolean;
  entry: string;
  /** Size of the minified bundle in bytes. */
  bytes: number;
  /** Every source file in the bundle, relative to the project root. */
  inputs: string[];
  violations: BundleViolation[];
}

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0] as string]));
const NODE_GLOBALS: Array<[RegExp, string]> = [
  [/\bBuffer\.(from|alloc|isBuffer|concat|byteLength)\b/, 'Buffer'],
  [/\b__dirname\b/, '__dirname'],
  [/\b__filename\b/, '__filename'],
];

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/**
 * Bundles `entry` for the browser and reports what of Node reached it.
 *
 * @param entry the module to check. @default 'src/index.ts'
 * @param root the project root (paths in the report are relative to it). @default process.cwd()
 */
export async function checkBrowserBundle(
  entry = 'src/index.ts',
  root = process.cwd(),
): Promise<BrowserBundleReport> {
  const violations: BundleViolation[] = [];
  const guard: Plugin = {
    name: 'node-guard',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const importer = relative(root, args.importer) || args.importer;
        if (
          args.path.startsWith('node:') ||
          BUILTINS.has(args.path) ||
          BUILTINS.has(packageName(args.path))
        ) {
          if (args.path.startsWith('.') || args.path.startsWith('/')) return undefined;
          violations.push({ module: args.path, importer, kind: 'node-builtin' });
          return { path: args.path, external: true };
        }
        if (NODE_ONLY_PACKAGES.includes(packageName(args.path))) {
          violations.push({ module: args.path, importer, kind: 'node-only-package' });
          return { path: args.path, external: true };
        }
        return undefined;
      });
    },
  };
  const result = await build({
    entryPoints: [resolve(root, entry)],
    absWorkingDir: root,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [guard],
  });
  const code = result.outputFiles[0]?.text ?? '';
  for (const [pattern, name] of NODE_GLOBALS) {
    if (pattern.test(code))
      violations.push({ module: name, importer: '(bundle output)', kind: 'node-global' });
  }
  return {
    ok: violations.length === 0,
    entry,
    bytes: Buffer.byteLength(code),
    inputs: Object.keys(result.metafile.inputs).sort(),
    violations,
  };
}

/** A human-readable summary of a report. */
export function formatReport(report: BrowserBundleReport): string {
  if (report.ok)
    return `browser bundle of ${report.entry}: OK (${report.inputs.length} files, ${(report.bytes / 1024).toFixed(1)} KiB minified, no Node modules)`;
  const lines = report.violations.map((v) => `  ${v.kind}: ${v.module}  ← ${v.importer}`);
  return `browser bundle of ${report.entry}: ${report.violations.length} Node dependenc${report.violations.length === 1 ? 'y' : 'ies'} reached it:\n${lines.join('\n')}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const report = await checkBrowserBundle(process.argv[2]);
  (report.ok ? console.log : console.error)(formatReport(report));
  process.exitCode = report.ok ? 0 : 1;
}
