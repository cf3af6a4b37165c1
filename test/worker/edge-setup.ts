// vitest globalSetup for the workers project: the MCP servers the edge-execution tests call, on
// the ports vitest.config.ts chose (SERVERS in the Worker's env names them); their URLs are
// provided to the tests for the fixture's /_control routes.
import type { TestProject } from "vitest/node";
import "./provided.d.ts";
import { startEdgeServers } from "../fixtures/edge-servers.ts";

export default async function setup(project: TestProject) {
  const ports = JSON.parse(process.env.TOOLSEARCH_EDGE_PORTS ?? "{}") as { everything?: number; fixture?: number; legacy?: number };
  const servers = await startEdgeServers(ports);
  project.provide("edgeFixture", servers.fixtureBase);
  project.provide("edgeEverything", servers.everything);
  return () => servers.stop();
}
