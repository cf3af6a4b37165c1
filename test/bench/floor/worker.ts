// Bench-only floor Worker (never deployed; `npm run bench -- floor` starts it next to the
// project's Worker): what any Worker that defers a client's tools must do per agent request, and
// nothing more, the reference the agent surfaces are measured against (test/bench/floor.ts).
//   POST /v1/chat/completions   forwarded as Chat Completions
//   POST /v1/messages           forwarded as Anthropic Messages (no translation)
//   POST /v1/responses          forwarded as Chat Completions, answered as Responses (floor/responses.ts)
// Per request: request.json(); one RPC to the session's SQLite Durable Object (named by the sha256
// of the first user message), which writes one row and answers {turn, at}; the tools replaced by
// toolSearch plus the client's first 2; JSON.stringify; fetch to UPSTREAM; the answer returned as
// it comes (an SSE stream passes through unread).
import { DurableObject } from "cloudflare:workers";
import { chatBody, responsesAnswer, type ResponsesBody } from "./responses.ts";

interface FloorEnv {
  UPSTREAM: string;
  FLOOR: DurableObjectNamespace<FloorSession>;
}
interface Body {
  messages?: Array<{ role: string; content: unknown }>;
  tools?: unknown[];
  [k: string]: unknown;
}

/** One session: a row per turn. */
export class FloorSession extends DurableObject<FloorEnv> {
  constructor(ctx: DurableObjectState, env: FloorEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS turns (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, messages INTEGER NOT NULL, tools INTEGER NOT NULL)",
    );
  }

  turn(messages: number, tools: number): { turn: number; at: number } {
    const at = Date.now();
    const row = this.ctx.storage.sql
      .exec<{ seq: number }>("INSERT INTO turns (at, messages, tools) VALUES (?, ?, ?) RETURNING seq", at, messages, tools)
      .one();
    return { turn: row.seq, at };
  }
}

const DESCRIPTION = "Load the full schemas of deferred tools: a query of keywords, or select:<name>[,<name>...].";
const SCHEMA = { type: "object", properties: { query: { type: "string" } }, required: ["query"], additionalProperties: false };
const toolSearch = (chat: boolean) =>
  chat
    ? { type: "function", function: { name: "toolSearch", description: DESCRIPTION, parameters: SCHEMA } }
    : { name: "toolSearch", description: DESCRIPTION, input_schema: SCHEMA };

async function sessionName(messages: Array<{ role?: string; content?: unknown }>): Promise<string> {
  const first = messages.find((m) => m.role === "user");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(first?.content ?? null)));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const refuse = (status: number, message: string) => Response.json({ error: { message } }, { status });

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const { pathname } = new URL(request.url);
    const responses = pathname === "/v1/responses";
    const chat = pathname === "/v1/chat/completions" || responses;
    if (request.method !== "POST" || (!chat && pathname !== "/v1/messages")) return refuse(404, "no such route");
    let body: Body;
    try {
      body = await request.json();
    } catch {
      return refuse(400, "body is not JSON");
    }
    const messages = responses ? (body as ResponsesBody).input : body.messages;
    if (!Array.isArray(messages)) return refuse(400, `${responses ? "input" : "messages"}: required`);
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const session = await env.FLOOR.getByName(await sessionName(messages)).turn(messages.length, tools.length);
    // Responses function tools are flat ({type, name, ...}); chatBody makes them chat tools
    const search = responses ? { type: "function", ...toolSearch(true).function } : toolSearch(chat);
    const sent = [search, ...tools.slice(0, 2)];
    const upstreamBody = responses ? chatBody(body as ResponsesBody, sent) : { ...body, tools: sent };
    const headers: Record<string, string> = { "content-type": "application/json" };
    for (const h of ["authorization", "x-api-key", "anthropic-version"]) {
      const v = request.headers.get(h);
      if (v) headers[h] = v;
    }
    const path = responses ? "/v1/chat/completions" : pathname;
    const res = await fetch(`${env.UPSTREAM}${path}`, { method: "POST", headers, body: JSON.stringify(upstreamBody) });
    if (responses) return responsesAnswer(body as ResponsesBody, res);
    const out = new Headers(res.headers);
    out.set("x-floor-turn", String(session.turn));
    return new Response(res.body, { status: res.status, headers: out });
  },
} satisfies ExportedHandler<FloorEnv>;
