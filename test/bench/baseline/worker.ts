// Bench-only baseline Worker (never deployed), the floor the project's call routes are measured
// against in `npm run bench:exec`: the Worker hands a call to one Durable Object, which holds one
// MCP SDK client to the upstream server (connected once, kept) and writes one SQLite row per call.
// No API key, no catalog, no access rules, no audit outbox: only the hops every edge call needs.
//   POST /call {name, arguments}   the tool's CallToolResult
//   POST /call?ahead=1             the same, its row written before the call and completed after
//                                  (the project's write-ahead audit, session/calls-in-flight.ts)
//   GET  /ping                     no work (the assets router's cost: this route on both configs)
//   GET  /micro?op=digest|server&n=N   N SHA-256 digests of a key, or N SDK servers built and
//                                  connected to a stateless transport as /mcp does per request;
//                                  n=0 is the same request doing nothing, so the difference over N
//                                  is one op's cost inside workerd (its clock stands still within
//                                  a request, so it cannot be timed from inside)
import { DurableObject } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

interface BaselineEnv {
  BASELINE: DurableObjectNamespace<Baseline>;
  UPSTREAM: string;
}

export class Baseline extends DurableObject<BaselineEnv> {
  private client?: Promise<Client>;

  constructor(ctx: DurableObjectState, env: BaselineEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, tool TEXT NOT NULL, at INTEGER NOT NULL, ok INTEGER NOT NULL, started INTEGER)",
    );
  }

  private open(): Promise<Client> {
    const client = new Client({ name: "baseline", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    const connected = client.connect(new StreamableHTTPClientTransport(new URL(this.env.UPSTREAM))).then(() => client);
    connected.catch(() => (this.client = undefined));
    return connected;
  }

  async call(name: string, args: Record<string, unknown>): Promise<unknown> {
    const client = await (this.client ??= this.open());
    const result = await client.callTool({ name, arguments: args });
    this.ctx.storage.sql.exec("INSERT INTO calls (tool, at, ok) VALUES (?, ?, ?)", name, Date.now(), result.isError ? 0 : 1);
    return result;
  }

  async callAhead(name: string, args: Record<string, unknown>): Promise<unknown> {
    const client = await (this.client ??= this.open());
    const id = this.ctx.storage.sql
      .exec<{ id: number }>("INSERT INTO calls (tool, at, ok, started) VALUES (?, ?, 0, 1) RETURNING id", name, Date.now())
      .one().id;
    const result = await client.callTool({ name, arguments: args });
    this.ctx.storage.sql.exec("UPDATE calls SET ok = ?, started = 0 WHERE id = ?", result.isError ? 0 : 1, id);
    return result;
  }
}

/** What /mcp builds for every request (worker/routes/mcp.ts serve, worker/mcp/server.ts mcpServer), without its handlers' bodies. */
async function sdkServer(): Promise<void> {
  const server = new Server(
    { name: "toolsearch", title: "toolsearch gateway", version: "1.0.0" },
    { capabilities: { tools: { listChanged: false } }, instructions: "bench", jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }));
  await server.connect(new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined }));
}

const KEY = new TextEncoder().encode("bench-exec-key-0123456789");

export default {
  async fetch(request: Request, env: BaselineEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/ping") return new Response("ok");
    if (url.pathname === "/call" && request.method === "POST") {
      const body = (await request.json()) as { name: string; arguments?: Record<string, unknown> };
      const stub = env.BASELINE.getByName(url.searchParams.has("ahead") ? "ahead" : "one");
      const args = body.arguments ?? {};
      return Response.json(await (url.searchParams.has("ahead") ? stub.callAhead(body.name, args) : stub.call(body.name, args)));
    }
    if (url.pathname === "/micro") {
      const n = Number(url.searchParams.get("n") ?? 0);
      const op = url.searchParams.get("op");
      for (let i = 0; i < n; i++) {
        if (op === "digest") await crypto.subtle.digest("SHA-256", KEY);
        else if (op === "server") await sdkServer();
        else return new Response("op: digest or server", { status: 400 });
      }
      return new Response(String(n));
    }
    return new Response("not found", { status: 404 });
  },
};
