// Code mode's wire (docs/code-mode.md): the answer of POST /v1/sessions/:id/code, which /mcp's
// runCode and the chat surfaces' hidden rounds render as text. One line per call the program
// made; `error` when the program did not finish, with the line and column where there is one.

import { z } from "zod";

export const callLine = z.object({ tool: z.string(), ok: z.boolean(), ms: z.number().int().min(0), error: z.string().optional() }).strict();
export type CallLine = z.infer<typeof callLine>;

export const runFailure = z
  .object({
    kind: z.enum(["syntax", "thrown", "timeout", "cpu", "memory", "output", "cancelled"]),
    message: z.string(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
  })
  .strict();
export type RunFailure = z.infer<typeof runFailure>;

export const runAnswer = z
  .object({
    /** the run's id: its audit row and its calls' rows carry it */
    run: z.string(),
    /** the function's return value, as JSON (absent when it failed, or returned undefined) */
    value: z.unknown().optional(),
    error: runFailure.optional(),
    logs: z.array(z.string()),
    calls: z.array(callLine),
  })
  .strict();
export type RunAnswer = z.infer<typeof runAnswer>;
