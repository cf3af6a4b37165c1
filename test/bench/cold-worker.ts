// Bench-only Worker (never deployed): runs one cold-start step per request inside workerd, on a
// catalog read through the same ASSETS binding the real Worker uses. Each request redoes its work
// (no caching), so request latency minus the no-op route is the step's cost in workerd.
import { verifyCatalog } from "../../worker/core/catalog.ts";
import { buildIndex } from "../../worker/core/tool-index.ts";

interface BenchEnv {
  ASSETS: Fetcher;
}

export default {
  async fetch(request: Request, env: BenchEnv): Promise<Response> {
    const url = new URL(request.url);
    const file = url.searchParams.get("file") ?? "";
    if (url.pathname === "/noop") return new Response("ok");
    const bytes = new Uint8Array(await (await env.ASSETS.fetch(`https://assets.invalid/${encodeURIComponent(file)}`)).arrayBuffer());
    if (url.pathname === "/read") return new Response(String(bytes.length));
    if (url.pathname === "/parse")
      return new Response(String((JSON.parse(new TextDecoder().decode(bytes)) as { tools: unknown[] }).tools.length));
    if (url.pathname === "/load") return new Response(String((await verifyCatalog(bytes)).catalog.tools.length));
    if (url.pathname === "/rebuild") {
      const c = JSON.parse(new TextDecoder().decode(bytes)) as { tools: Parameters<typeof buildIndex>[0] };
      return new Response(String(buildIndex(c.tools).documents));
    }
    return new Response("not found", { status: 404 });
  },
};
