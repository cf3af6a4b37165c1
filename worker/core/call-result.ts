// MCP CallToolResult handling, pure: the size cap (large results are cut, with a note saying so)
// and how much of an upstream answer is read before it, the tool-result text a chat model gets
// for a result, and the argument digest the audit keeps instead of the values.

import { canonicalJson, sha256Hex } from "./canonical.ts";

export interface ContentBlock {
  type: string;
  [k: string]: unknown;
}

/** MCP's CallToolResult (text, image, audio, resource and resource_link content). */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [k: string]: unknown;
}

const enc = new TextEncoder();
export const byteSize = (value: unknown): number => enc.encode(JSON.stringify(value)).length;

/** Cut a string to at most `bytes` UTF-8 bytes without splitting a character. */
function cutText(text: string, bytes: number): string {
  if (bytes <= 0) return "";
  const b = enc.encode(text);
  if (b.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (b[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(b.subarray(0, end));
}

const NOTE_ROOM = 300;

/**
 * The result within `maxBytes` (as JSON): content blocks are kept in order while they fit, the
 * first text block that does not fit is cut, the rest (and an oversized structuredContent) are
 * dropped, and a closing text block says what happened.
 */
export function capResult(result: CallToolResult, maxBytes: number): { result: CallToolResult; bytes: number; capped: boolean } {
  const bytes = byteSize(result);
  if (bytes <= maxBytes) return { result, bytes, capped: false };
  const out: CallToolResult = { ...result, content: [] };
  let room = maxBytes - NOTE_ROOM - byteSize({ ...result, content: [], structuredContent: undefined });
  if (result.structuredContent !== undefined) {
    const size = byteSize(result.structuredContent);
    if (size <= room / 2) room -= size;
    else delete out.structuredContent;
  }
  let dropped = 0;
  for (const block of result.content ?? []) {
    const size = byteSize(block);
    if (size <= room) {
      out.content.push(block);
      room -= size;
    } else if (block.type === "text" && typeof block.text === "string" && room > 64) {
      out.content.push({ ...block, text: cutText(block.text, room - 64) });
      room = 0;
      dropped++;
    } else dropped++;
  }
  const what = [
    dropped ? `${dropped} content block(s) cut or dropped` : "",
    result.structuredContent !== undefined && out.structuredContent === undefined ? "structuredContent dropped" : "",
  ]
    .filter(Boolean)
    .join(", ");
  out.content.push({
    type: "text",
    text: `[toolsearch: result capped: the server sent ${bytes} bytes, the limit is ${maxBytes}; ${what}]`,
  });
  return { result: out, bytes, capped: true };
}

/** The least an upstream answer may be read to, whatever the result cap: the cap cuts what was read whole up to here. */
const READ_MIN_BYTES = 4 * 1024 * 1024;

/**
 * How much of one upstream answer (a tool result, a resource, a prompt, a list page) is read
 * before reading stops and the request fails (M6, R2-M3): 4 x the result cap, at least 4 MiB.
 */
export const readLimit = (resultMaxBytes: number): number => Math.max(4 * resultMaxBytes, READ_MIN_BYTES);

/** At most this much of a result reaches a chat model (the hidden round is stored as a splice, rows <= 2 MB). */
export const CHAT_RESULT_MAX_CHARS = 65_536;

/** A CallToolResult as the text of a chat tool message (chat tool messages carry text only). */
export function resultText(result: CallToolResult, maxChars = CHAT_RESULT_MAX_CHARS): string {
  const parts = (result.content ?? []).map((b) => {
    if (b.type === "text") return String(b.text ?? "");
    if (b.type === "image" || b.type === "audio")
      return `[${b.type} ${String(b.mimeType ?? "")}, ${String(b.data ?? "").length} base64 characters]`;
    if (b.type === "resource") {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      return typeof r.text === "string"
        ? `[resource ${String(r.uri ?? "")}]\n${r.text}`
        : `[resource ${String(r.uri ?? "")} ${String(r.mimeType ?? "")}]`;
    }
    if (b.type === "resource_link") return `[resource link ${String(b.uri ?? "")}${b.name ? ` (${String(b.name)})` : ""}]`;
    return JSON.stringify(b);
  });
  if (!parts.length && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  let text = parts.join("\n");
  if (text.length > maxChars) text = `${text.slice(0, maxChars)}\n[toolsearch: result cut to ${maxChars} of ${text.length} characters]`;
  return result.isError ? `Error: ${text}` : text;
}

/** A CallToolResult with one text block (errors the Worker reports in the result's own form). */
export function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text }], ...(isError ? { isError: true } : {}) };
}

/** What the audit keeps of arguments: sha256 of their canonical JSON, and its size. */
export async function argsDigest(args: unknown): Promise<{ argsDigest: string; argsBytes: number; canonical: string }> {
  const canonical = canonicalJson(args ?? {});
  return { argsDigest: `sha256:${await sha256Hex(canonical)}`, argsBytes: enc.encode(canonical).length, canonical };
}
