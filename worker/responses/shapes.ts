// The Responses shapes the Worker answers with (a subset of OpenAI's: what a client reads), and the
// ids: a response id carries its session's id, so previous_response_id, GET and DELETE reach the
// session's Durable Object by name, in the caller's tenant, with no lookup. Types only besides the
// id helpers, so the session object can store these shapes without importing the surface.

import type { JsonValue } from "../core/chat.ts";

export interface OutputMessage {
  type: "message";
  id: string;
  status: "completed" | "in_progress";
  role: "assistant";
  content: Array<{ type: "output_text"; text: string; annotations: JsonValue[]; logprobs: JsonValue[] }>;
}

export interface OutputFunctionCall {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  namespace?: string;
  arguments: string;
  status: "completed" | "in_progress";
}

/** OpenAI's hosted tool search, as the client sees it: what the Worker's search loaded of its tools. */
export interface OutputToolSearchCall {
  type: "tool_search_call";
  id: string;
  call_id: string;
  execution: "server";
  status: "completed";
  arguments: { query: string };
}

export interface OutputToolSearchOutput {
  type: "tool_search_output";
  id: string;
  call_id: string;
  execution: "server";
  status: "completed";
  /** the client's own definitions of the tools loaded (a namespace's with their namespace) */
  tools: JsonValue[];
}

/** An edge call that waits for a person's yes (POLICY.approval): answered by an mcp_approval_response input item. */
export interface OutputApprovalRequest {
  type: "mcp_approval_request";
  /** the approval's id: the answer's approval_request_id */
  id: string;
  name: string;
  server_label: string;
  arguments: string;
}

export type OutputItem = OutputMessage | OutputFunctionCall | OutputToolSearchCall | OutputToolSearchOutput | OutputApprovalRequest;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  status: "completed" | "incomplete" | "in_progress" | "failed";
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  model: string;
  output: OutputItem[];
  usage: ResponsesUsage | null;
  instructions: string | null;
  metadata: Record<string, string>;
  previous_response_id: string | null;
  store: boolean;
  parallel_tool_calls: boolean;
  tool_choice: JsonValue;
  tools: JsonValue[];
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  text: JsonValue;
  reasoning: JsonValue;
  truncation: "disabled";
  background: false;
}

const ID_RE = /^resp_([A-Za-z0-9_-]{32})([A-Za-z0-9_-]{16})$/;

/** A new response id in session `sessionId` (ses_ + 32 characters). */
export function newResponseId(sessionId: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const tail = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
  return `resp_${sessionId.slice(4)}${tail}`;
}

/** The session a response id names, or null when it is not one of ours. */
export function sessionOfResponse(id: string): string | null {
  const m = ID_RE.exec(id);
  return m ? `ses_${m[1]}` : null;
}
