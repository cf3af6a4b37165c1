// vitest globalSetup for the workers project: the MCP servers the edge-execution tests call, on
// the ports vitest.config.ts chose (SERVERS in the Worker's env names them); their URLs are
// provided to the tests for the fixture's /_control routes. Also the MCP 2026-07-28 fixture, on a
// free port, which no SERVERS names: tests reach it through the session code's upstream client.
import type { TestProject } from "vitest/node";
import "./provided.d.ts";
import { startEdgeServers, startModern } from "../fixtures/edge-servers.ts";

export default async function setup(project: TestProject) {
  const ports = JSON.parse(process.env.TOOLSEARCH_EDGE_PORTS ?? "{}") as { everything?: number; fixture?: number; legacy?: number };
  const [servers, modern] = await Promise.all([startEdgeServers(ports), startModern()]);
  project.provide("edgeFixture", servers.fixtureBase);
  project.provide("edgeEverything", servers.everything);
  project.provide("edgeModern", modern.base);
  return async () => void (await Promise.all([servers.stop(), modern.stop()]));
}
