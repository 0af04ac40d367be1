/**
 * How a tool's result reads in a terminal: text content plainly, structured content pretty-printed, other content
 * summarised by type and size; `isError: true` marked as a tool error.
 *
 * @module
 */
import type { CallToolResult, ContentBlock } from 'mcp-tasks-client';
import { safeLine, toJsonText } from 'mcp-tasks-client';

/** Size of base64 data in bytes, e.g. `12.3 kB`. */
function base64Size(data: unknown): string {
  if (typeof data !== 'string') return 'unknown size';
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return humanBytes(Math.max(0, Math.floor((data.length * 3) / 4) - padding));
}

/** `532 B`, `12.3 kB`, `4.1 MB`. */
export function humanBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** One content block as text: the text itself, or a one-line summary of anything else. */
export function formatContentBlock(block: ContentBlock): string {
  const b = block as Record<string, unknown>;
  switch (block.type) {
    case 'text':
      return String(b.text ?? '');
    case 'image':
    case 'audio':
      return `[${block.type} ${safeLine(String(b.mimeType ?? 'unknown type'))}, ${base64Size(b.data)}]`;
    case 'resource_link':
      return `[resource link ${safeLine(String(b.uri ?? '?'))}${b.name ? ` (${safeLine(String(b.name))})` : ''}${b.mimeType ? `, ${safeLine(String(b.mimeType))}` : ''}]`;
    case 'resource': {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      const size =
        typeof r.text === 'string'
          ? `${r.text.length} characters of text`
          : typeof r.blob === 'string'
            ? base64Size(r.blob)
            : 'empty';
      return `[embedded resource ${safeLine(String(r.uri ?? '?'))}${r.mimeType ? `, ${safeLine(String(r.mimeType))}` : ''}, ${size}]`;
    }
    default:
      return `[${safeLine(String(block.type))} content, ${humanBytes(Buffer.byteLength(toJsonText(block)))} of JSON]`;
  }
}

/**
 * The printable form of a tool result: a `Tool error:` header when `isError` is true, each content block, then
 * `structuredContent` as indented JSON.
 */
export function formatToolResult(result: CallToolResult): string {
  const parts: string[] = [];
  if (result.isError === true) parts.push('Tool error:');
  for (const block of result.content) parts.push(formatContentBlock(block as ContentBlock));
  if (result.structuredContent !== undefined)
    parts.push(`structuredContent:\n${toJsonText(result.structuredContent, 2)}`);
  if (parts.length === 0) parts.push('(empty result)');
  return parts.join('\n');
}
