/**
 * The docs' code blocks and the example programs they come from. A TypeScript block in the README or docs/ stands
 * under a `<!-- snippet: examples/docs/<file>.ts#<region> -->` line and shows that file's `// #region <region>`
 * (dedented). `npx tsx scripts/doc-snippets.ts` (npm run docs:snippets) writes every region into its block;
 * test/docs/snippets.test.ts checks that they agree.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One fenced code block. */
export interface Fence {
  /** Its language tag (`ts`, `json`, `sh`, …; `''` for none). */
  lang: string;
  /** The 1-based line of its opening fence. */
  line: number;
  /** Its text, without the fences. */
  body: string;
  /** `file#region` from a snippet line above it. */
  snippet?: string;
  /** The reason from a snippet-exempt line above it. */
  exempt?: string;
  /** 0-based line indexes of its first and last body lines (for rewriting). */
  from: number;
  to: number;
}

/** The Markdown files whose code blocks are checked: README.md, packages/cli/README.md and docs/*.md. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'packages/cli/README.md', ...docs];
}

/** Every fenced block of `markdown`, with the snippet or exempt line right above it (blank lines between allowed). */
export function fencesOf(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const fences: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] as string)) end++;
    let above = i - 1;
    while (above >= 0 && (lines[above] as string).trim() === '') above--;
    const marker = /^<!--\s*snippet(-exempt)?:\s*(.*?)\s*-->$/.exec((lines[above] ?? '').trim());
    fences.push({
      lang: open[1] ?? '',
      line: i + 1,
      body: lines.slice(i + 1, end).join('\n'),
      snippet: marker && !marker[1] ? marker[2] : undefined,
      exempt: marker?.[1] ? (marker[2] ?? '') : undefined,
      from: i + 1,
      to: end - 1,
    });
    i = end;
  }
  return fences;
}

/** The text between `// #region name` and `// #endregion name` in `source`, dedented; `undefined` when absent. */
export function regionOf(source: string, name: string): string | undefined {
  const lines = source.split('\n');
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  if (start === -1) return undefined;
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  if (end === -1) return undefined;
  const body = lines.slice(start + 1, end);
  const indent = Math.min(...body.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return body.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
}

/** Writes every region into the block under its snippet line; returns the files it changed. */
export function writeSnippets(root: string): string[] {
  const changed: string[] = [];
  for (const file of docFiles(root)) {
    const path = join(root, file);
    const markdown = readFileSync(path, 'utf8');
    const lines = markdown.split('\n');
    for (const fence of fencesOf(markdown).reverse()) {
      if (!fence.snippet) continue;
      const [program, region] = fence.snippet.split('#') as [string, string];
      const text = regionOf(readFileSync(join(root, program), 'utf8'), region);
      if (text === undefined) throw new Error(`${file}:${fence.line}: ${fence.snippet} has no such region`);
      lines.splice(fence.from, fence.to - fence.from + 1, ...text.split('\n'));
    }
    const next = lines.join('\n');
    if (next !== markdown) {
      writeFileSync(path, next);
      changed.push(file);
    }
  }
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const changed = writeSnippets(fileURLToPath(new URL('..', import.meta.url)));
  console.log(
    changed.length > 0 ? `docs:snippets: wrote ${changed.join(', ')}` : 'docs:snippets: every block agrees',
  );
}
