// What the client-SDK tests (sdk-*.test.ts) share: the demo catalog's tools as a client's own,
// under the names an MCP client library gives them (each server's own tool names), and the checks
// the issue asks of every SDK conversation, read from the scripted upstream's recorded requests:
// the upstream saw names, toolSearch and the loaded tools, never the declared schemas wholesale;
// each upstream request extends the previous one byte for byte.
import { join } from "node:path";
import { jsonSchema, tool, type ToolSet } from "ai";
import { expect } from "vitest";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { pinnedDemo } from "../bench/results.ts";
import type { Recorded } from "../fixtures/scripted-llm.ts";
import { deferredNames } from "../fixtures/scripted-model.ts";
import { expectAppendOnly, names } from "./agent-rig.ts";
import { ROOT } from "./helpers.ts";

export interface DemoTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The 191 demo tools under their servers' own names (unique in this catalog). */
export async function demoClientTools(): Promise<DemoTool[]> {
  const { catalog } = await readCatalogFile(join(ROOT, "catalogs", await pinnedDemo()));
  const tools = catalog.tools.map((t) => ({ name: t.originalName, description: t.description, parameters: t.inputSchema }));
  expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  return tools;
}

const text = (c: unknown) => (typeof c === "string" ? c : JSON.stringify(c));

/**
 * Every upstream request of the conversation: the client's tools (as the SDK declared them) are listed by name in the
 * deferred section, and the only ones in `tools` are those the model loaded and the SDK ran;
 * each request extends the previous one.
 */
export function expectDeferredConversation(reqs: Recorded[], declared: readonly { name: string }[], ran: readonly string[]) {
  expect(reqs.length).toBeGreaterThan(ran.length);
  const all = new Set(declared.map((t) => t.name));
  const schemaBytes = JSON.stringify(declared).length;
  for (const r of reqs) {
    const system = r.body.messages
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => text(m.content))
      .join("\n");
    const listed = new Set(deferredNames(system));
    expect(
      declared.every((t) => listed.has(t.name)),
      "every declared tool is listed by name",
    ).toBe(true);
    const inTools = names(r).filter((n) => all.has(n));
    expect(
      inTools.every((n) => ran.includes(n)),
      `only tools the SDK ran are loaded: ${inTools.join(", ")}`,
    ).toBe(true);
    expect(names(r)).toContain("toolSearch");
    expect(JSON.stringify(r.body.tools).length).toBeLessThan(schemaBytes / 20);
  }
  expectAppendOnly(reqs);
}

/** The declared tools as AI SDK tools whose `execute` records each run in `ran`. */
export function aiSdkTools(declared: readonly DemoTool[], ran: string[]): ToolSet {
  return Object.fromEntries(
    declared.map((t) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema(t.parameters),
        execute: async () => (ran.push(t.name), `ok from ${t.name}`),
      }),
    ]),
  );
}

/** nothing only Anthropic speaks reaches a chat upstream */
export function expectChatOnly(reqs: Recorded[]) {
  for (const r of reqs) {
    const raw = JSON.stringify(r.body);
    for (const word of ["defer_loading", "tool_reference", "DeferredToolPlaceholder", "cache_control", "server_tool_use", "input_schema"])
      expect(raw, `upstream request carries ${word}`).not.toContain(word);
  }
}
