// vitest globalSetup for the workers project: the scripted upstream model runs in Node, next to
// workerd, and the tests reach it (and its /_control endpoints) at the URL provided here; each test
// file takes its own lane of it (helpers.ts modelLane), so files running side by side never share
// records or faults.
import type { TestProject } from "vitest/node";
import "./provided.d.ts";
import { startScriptedLLM } from "../fixtures/scripted-llm.ts";

export default async function setup(project: TestProject) {
  const llm = await startScriptedLLM();
  project.provide("upstreamUrl", llm.url);
  return () => llm.close();
}
