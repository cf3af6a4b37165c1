// Code mode's tool as every surface offers it: `runCode`, whose input is the body of an async
// JavaScript function, and whose description says in a few lines how to write one. In a code-mode
// session a toolSearch result ends with the found tools as TypeScript declarations (declarations.ts)
// instead of JSON schemas: what the model needs to write the program.

import type { CatalogTool } from "./catalog.ts";
import { toolsDeclaration } from "./declarations.ts";
import type { ToolDefinition } from "./prompt.ts";

export const RUN_CODE_NAME = "runCode";

export const RUN_CODE_TOOL: ToolDefinition = {
  name: RUN_CODE_NAME,
  description: [
    "Run one JavaScript program that calls the tools toolSearch found, and get back only what it returns.",
    "`code` is the body of an async function. Call a tool as `await tools.<server>.<tool>(args)` (or `tools.<exact name>(args)`), typed as toolSearch's declarations say;",
    "a tool resolves to its structured content, else its text, and throws an Error when it fails or is refused.",
    "Loop, filter and combine in the program (Promise.all runs calls in parallel) and `return` a small JSON value with just what is needed; console.log lines come back too.",
    "No network, no timers, no imports; time, memory, output and the number of calls are limited.",
  ].join(" "),
  inputSchema: {
    type: "object",
    properties: {
      code: { type: "string", description: "the body of an async function, e.g. `return await tools.github.list_issues({ repo })`" },
    },
    required: ["code"],
    additionalProperties: false,
  },
};

/** What a code-mode toolSearch result adds: the found tools as declarations to call from runCode. */
export function codeGuide(byName: ReadonlyMap<string, CatalogTool>, names: readonly string[]): string {
  const tools = names.flatMap((n) => (byName.has(n) ? [byName.get(n)!] : []));
  if (!tools.length) return "";
  return `\n\nCall them from ${RUN_CODE_NAME} (its code sees these declarations):\n\`\`\`ts\n${toolsDeclaration(tools)}\n\`\`\``;
}
