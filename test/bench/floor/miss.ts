// One process, one cold tool-set miss (`npm run bench -- floor`, test/bench/floor.ts): the first
// clientToolSet() of a process for the pinned catalog's 191 tools as chat tools, the case of the
// first request of an isolate (no JIT warmth, nothing cached), then a warm miss (another set of
// the same size, one description changed). Prints {"cold": ms, "warm": ms, "coldCpu": ms, "warmCpu": ms}:
// wall time, and the process's CPU time, which a shared machine's load inflates less.
//   node test/bench/floor/miss.ts <catalog file>
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { OpenAITool } from "../../../worker/core/chat.ts";
import { clientToolSet } from "../../../worker/chat/tool-set-cache.ts";
import { clientTools } from "./requests.ts";

const { tools } = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as { tools: Parameters<typeof clientTools>[0] };
const chat = clientTools(tools).chat as OpenAITool[];
// the key the chat route gives (the raw tools member: here the same text, made before the timer)
const time = async (set: OpenAITool[]) => {
  const key = { surface: "chat", raw: JSON.stringify(set) };
  const cpu = process.cpuUsage();
  const t = performance.now();
  await clientToolSet(set, key);
  const used = process.cpuUsage(cpu);
  return [performance.now() - t, (used.user + used.system) / 1000] as const;
};
// WebCrypto's first digest in Node loads its implementation (workerd's is native): not the miss's
await crypto.subtle.digest("SHA-256", new Uint8Array(1));
const [cold, coldCpu] = await time(chat);
const other = chat.map((t, i) => (i === 0 ? { ...t, function: { ...t.function, description: `${t.function.description} (2)` } } : t));
const [warm, warmCpu] = await time(other);
console.log(JSON.stringify({ cold, warm, coldCpu, warmCpu }));
