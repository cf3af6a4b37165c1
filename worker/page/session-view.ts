// The session view, opened by id (a POST /v1/sessions id or the chat endpoint's
// x-toolsearch-session): mode, listing form and reason, execution (the frozen mode, and the calls
// the Worker actually ran, from GET /v1/sessions/:id's workerCalls), the plan for the tools a chat
// client declared, the frozen system section, the tools array exactly as the model gets it (bytes
// per tool and in all, prefixHash), then the timeline, the splices and the audit trail.

import { canonicalJson } from "../core/canonical.ts";
import { api, ApiError } from "./api.ts";
import { field, h, int, replace, utf8Bytes } from "./dom.ts";
import type { AuditPageAnswer, ClientToolsAnswer, HistoryAnswer, PromptAnswer, SessionInfo } from "../wire/answers.ts";
import { auditPanel, auditPath } from "./audit-panel.ts";
import { loadRuns } from "./runs.ts";
import { splices, timeline } from "./timeline.ts";

const toolName = (t: unknown): string =>
  (t as { function?: { name?: string }; name?: string }).function?.name ?? (t as { name?: string }).name ?? "?";

/** Why a tool is in the array: activated by a search (its number), the search tools, or core. */
function kindOf(name: string, activations: readonly string[]): string {
  const n = activations.indexOf(name);
  if (n >= 0) return `activated #${n + 1}`;
  return name === "toolSearch" || name === "callTool" ? "search" : "core";
}

function promptSection(p: PromptAnswer, activations: readonly string[], format: HTMLSelectElement): HTMLElement {
  const rows = p.tools.map((t, i) => {
    const name = toolName(t);
    const cells = [
      int(i + 1),
      h("details", {}, h("summary", {}, h("code", {}, name)), h("pre", {}, JSON.stringify(t, null, 2))),
      kindOf(name, activations),
      int(utf8Bytes(canonicalJson(t))),
    ];
    return h("tr", { "data-tool": name }, ...cells.map((c, j) => h("td", { class: j === 0 || j === 3 ? "num" : undefined }, c)));
  });
  return h(
    "section",
    { class: "prompt-section", "aria-labelledby": "prompt-heading" },
    h("h3", { id: "prompt-heading" }, "The prompt as the model sees it"),
    field("Format", format),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "prefixHash"),
      h("dd", {}, h("code", { id: "prefix-hash" }, p.prefixHash)),
      h("dt", {}, "promptCacheKey"),
      h("dd", {}, h("code", {}, p.promptCacheKey)),
      h("dt", {}, "tools array"),
      h(
        "dd",
        { id: "tools-bytes", "data-bytes": utf8Bytes(canonicalJson(p.tools)) },
        `${int(p.tools.length)} tools, ${int(utf8Bytes(canonicalJson(p.tools)))} bytes of canonical JSON`,
      ),
    ),
    h(
      "details",
      { class: "system" },
      h("summary", {}, `Frozen system section: ${int(utf8Bytes(p.system))} bytes`),
      h("pre", { id: "system-section" }, p.system || "(empty: full mode lists no deferred tools)"),
    ),
    h(
      "table",
      { class: "prompt-tools" },
      h("caption", {}, "tools, in order (they only ever grow at the end)"),
      h("thead", {}, h("tr", {}, ...["#", "Tool", "Why it is there", "Bytes"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...rows),
    ),
  );
}

function clientToolsSection(ct: ClientToolsAnswer): HTMLElement {
  const names = (list: string[]) => (list.length ? list.flatMap((n, i) => [i ? ", " : "", h("code", {}, n)]) : ["none"]);
  return h(
    "section",
    { class: "client-tools", "aria-labelledby": "client-tools-heading" },
    h("h3", { id: "client-tools-heading" }, "Tools the chat client declares"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Tool set"),
      h("dd", { "data-fact": "client-hash" }, h("code", {}, ct.hash.slice(0, 16)), h("small", {}, " (sha256 of their canonical JSON)")),
      h("dt", {}, "Kept loaded"),
      h("dd", { "data-fact": "client-kept" }, ...names(ct.kept)),
      h("dt", {}, "Deferred"),
      h("dd", { "data-fact": "client-deferred" }, `${int(ct.deferred)} (found by toolSearch, loaded on use)`),
      h("dt", {}, "x-toolsearch-core"),
      h("dd", {}, ...names(ct.core)),
      h("dt", {}, "Why"),
      h("dd", { "data-fact": "client-reason" }, ct.reason),
    ),
  );
}

const SURFACES: Record<string, string> = { rest: "REST tool calls", chat: "chat edge rounds", mcp: "the MCP gateway" };

/** What ran, not only what was asked: the audit's calls the Worker ran, whatever the execution mode. */
export function executionHint(s: Pick<SessionInfo, "execution" | "workerCalls">): string {
  const total = s.workerCalls.reduce((n, c) => n + c.calls, 0);
  const ran = `the Worker ran ${int(total)} ${total === 1 ? "call" : "calls"}: ${s.workerCalls
    .map((c) => `${int(c.calls)} from ${SURFACES[c.via] ?? c.via}`)
    .join(", ")}`;
  if (s.execution === "edge") return `the Worker runs catalog tools of servers it can reach; ${total ? ran : "no call yet"}`;
  return total ? `the chat endpoint leaves tools to the client; ${ran}` : "the client runs every tool; the Worker ran none";
}

export function sessionView(initialId: string, onError: (e: ApiError) => void): HTMLElement {
  const idInput = h("input", {
    id: "session-id",
    type: "text",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    value: initialId,
    placeholder: "ses_…",
  });
  const format = h(
    "select",
    { id: "session-format" },
    h("option", { value: "openai" }, "OpenAI (tools: function)"),
    h("option", { value: "anthropic" }, "Anthropic (input_schema)"),
  );
  const body = h("div", { class: "session-body", "aria-live": "polite" });

  async function load(): Promise<void> {
    const id = idInput.value.trim();
    if (!id) return;
    if (location.hash !== `#session=${id}`) history.replaceState(null, "", `#session=${id}`);
    replace(body, "Loading…");
    try {
      const path = `/v1/sessions/${encodeURIComponent(id)}`;
      const [s, p, hist, audit, runs] = await Promise.all([
        api<SessionInfo>(path),
        api<PromptAnswer>(`${path}/prompt?format=${format.value}`),
        api<HistoryAnswer>(`${path}/history`),
        api<AuditPageAnswer>(auditPath(id)),
        loadRuns(id),
      ]);
      const facts: Array<[string, string, string?]> = [
        ["Mode", s.mode],
        ["Listing", s.listing ?? "—", s.listing ? "the deferred section's form" : "full mode lists nothing: every tool is injected"],
        ["Reason", s.reason],
        ["Execution", s.execution, executionHint(s)],
        ["Model", s.model],
        ["Profile", s.profile],
        ["Activation", s.activation],
        ["Catalog", `${s.catalog.name}@${s.catalog.version}#${s.catalog.hash.slice(0, 12)}`],
        ["Created", s.createdAt],
      ];
      replace(
        body,
        h(
          "dl",
          { class: "facts session-facts" },
          ...facts.flatMap(([k, v, hint]) => [
            h("dt", {}, k),
            h("dd", { "data-fact": k.toLowerCase(), "data-value": v }, v, hint ? h("small", {}, ` (${hint})`) : null),
          ]),
        ),
        s.clientTools ? clientToolsSection(s.clientTools) : null,
        promptSection(p, s.activations, format),
        timeline(s.createdAt, hist, runs),
        splices(hist.splices),
        auditPanel(id, s.createdAt, audit, onError),
      );
    } catch (e) {
      replace(body);
      if (e instanceof ApiError) onError(e);
      else throw e;
    }
  }

  format.addEventListener("change", () => void load());
  const form = h(
    "form",
    { class: "session-form" },
    field("Session id", idInput, "from POST /v1/sessions, or the chat endpoint's x-toolsearch-session header"),
    h("button", { type: "submit" }, "Open"),
    h("button", { type: "button", onclick: () => void load() }, "Refresh"),
  );
  form.addEventListener("submit", (e) => (e.preventDefault(), void load()));
  if (initialId) void load();
  return h(
    "section",
    { class: "session-view", "aria-labelledby": "session-heading" },
    h("h2", { id: "session-heading" }, "Session"),
    form,
    body,
  );
}
