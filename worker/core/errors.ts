// The one set of coded errors. Every failure the Worker or the CLI reports is a ToolsearchError
// with a stable `code` (machine-readable) and the HTTP `status` it maps to; the Worker's single
// error handler and the CLI's single exit path both read these two fields and nothing else.

export type ErrorCode =
  | "bad_request"
  | "invalid_config"
  | "config_invalid"
  | "server_failed"
  | "invalid_tool"
  | "catalog_invalid"
  | "catalog_missing"
  | "catalog_mismatch"
  | "version_conflict"
  | "not_found"
  | "method_not_allowed"
  | "unsupported_media_type"
  | "payload_too_large"
  | "unauthorized"
  | "conflict"
  | "upstream_error"
  | "upstream_timeout"
  | "forbidden"
  | "not_executable"
  | "unavailable"
  | "rate_limited"
  | "approval_required"
  | "internal";

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  invalid_config: 400,
  // the deployment's settings (wrangler.toml vars) are wrong: no request is served until they are fixed
  config_invalid: 503,
  server_failed: 502,
  invalid_tool: 422,
  catalog_invalid: 503,
  catalog_missing: 503,
  catalog_mismatch: 409,
  version_conflict: 409,
  not_found: 404,
  method_not_allowed: 405,
  unsupported_media_type: 415,
  payload_too_large: 413,
  unauthorized: 401,
  conflict: 409,
  upstream_error: 502,
  upstream_timeout: 504,
  forbidden: 403,
  not_executable: 409,
  unavailable: 503,
  rate_limited: 429,
  approval_required: 409,
  internal: 500,
};

export class ToolsearchError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, message: string, status?: number) {
    super(message);
    this.name = "ToolsearchError";
    this.code = code;
    this.status = status ?? STATUS[code];
  }
  toJSON(): { error: { code: ErrorCode; message: string; [k: string]: unknown } } {
    return { error: { code: this.code, message: this.message } };
  }
}

export function isToolsearchError(e: unknown): e is ToolsearchError {
  return e instanceof ToolsearchError;
}

/** A quota reached (worker/quotas.ts): a 429, and `retry-after` says in how many seconds the window ends. */
export class RateLimited extends ToolsearchError {
  readonly retryAfter: number;
  constructor(message: string, retryAfter: number) {
    super("rate_limited", message);
    this.retryAfter = Math.max(1, Math.ceil(retryAfter));
  }
}

/** A call that needs a person's yes first (POLICY.approval): a 409 whose body names the approval and its link. */
export class ApprovalRequired extends ToolsearchError {
  readonly approval: { id: string; link: string; expiresAt: string };
  constructor(message: string, approval: { id: string; link: string; expiresAt: string }) {
    super("approval_required", message);
    this.approval = approval;
  }
  override toJSON() {
    return { error: { code: this.code, message: this.message, approval: this.approval } };
  }
}
