// vitest globalSetup for the workers project: the scripted upstream model runs in Node, next to
// workerd, and the tests reach it (and its /_control endpoints) at the URL provided here.
import type { TestProject } from "vitest/node";
import "./provided.d.ts";
import { startScriptedLLM } from "../fixtures/scripted-llm.ts";

export default async function setup(project: TestProject) {
  const llm = await startScriptedLLM();
  project.provide("upstreamUrl", llm.url);
  return () => llm.close();
}
