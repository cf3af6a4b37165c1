// One cold load of a catalog file, as a Worker's new isolate does it: a fresh process (cold JIT,
// fresh heap) runs verifyCatalog (hash over the bytes, JSON.parse, shape checks, index restore)
// once and prints its milliseconds. search-text-cost.ts runs it many times, interleaved.
import { readFile } from "node:fs/promises";
import { verifyCatalog } from "../../worker/core/catalog.ts";

const bytes = new Uint8Array(await readFile(process.argv[2]!));
(globalThis as { gc?: () => void }).gc?.();
const started = performance.now();
await verifyCatalog(bytes);
console.log(performance.now() - started);
