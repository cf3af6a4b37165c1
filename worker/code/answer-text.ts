// A run's answer as a tool result the model reads (runCode on /mcp and in the chat surfaces' hidden
// rounds): the answer's JSON, the run id included (its audit rows carry it); `isError` when the
// program did not finish, so the model can fix it and run it again.

import type { CallToolResult } from "../core/call-result.ts";
import type { RunAnswer } from "../wire/code.ts";

export function runResult(answer: RunAnswer): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(answer) }], ...(answer.error ? { isError: true } : {}) };
}
