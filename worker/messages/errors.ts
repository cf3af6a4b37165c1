// Errors in Anthropic's shape, `{"type":"error","error":{"type","message"}}`, with the status the
// Worker's coded error carries and the error type Anthropic gives that status. The one error
// handler (worker/index.ts) calls this for the Messages routes; a stream that already opened sends
// the same object as its `error` event.

import type { ToolsearchError } from "../core/errors.ts";
import { json } from "../http.ts";

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  503: "overloaded_error",
  529: "overloaded_error",
};

export function anthropicError(err: ToolsearchError): { type: "error"; error: { type: string; message: string } } {
  const type = TYPES[err.status] ?? (err.status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message: err.message } };
}

export const anthropicErrorResponse = (err: ToolsearchError): Response => json(anthropicError(err), err.status);
