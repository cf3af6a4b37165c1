// A body whose `tools` were sent before is parsed without them (worker/http.ts readJsonText with a
// known member, worker/core/known-member.ts, worker/chat/tool-set-cache.ts knownTools; issue 38):
// what the routes get must be what JSON.parse of the whole body gives, whatever else the body holds
// (the known text nested, or in a duplicate key), where its members lie too, and a bad body must be
// refused with the same words as when nothing is known; each surface's upstream sees the same
// request the second time as the first.
import { describe, expect, it } from "vitest";
import { clientToolSet, knownTools, parsedMember } from "../../worker/chat/tool-set-cache.ts";
import type { OpenAITool } from "../../worker/core/chat.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { readJsonText } from "../../worker/http.ts";
import { callWith, modelLane, type Json } from "./helpers.ts";

const tools: OpenAITool[] = Array.from({ length: 12 }, (_, i) => ({
  type: "function",
  function: {
    name: `known_tool_${i}`,
    description: `Tool ${i} of a set sent on every request: "quoted", \\ escaped, ]} brackets`,
    parameters: { type: "object", properties: { q: { type: "string", enum: ["a", `b${i}`] } }, required: ["q"] },
  },
}));
const RAW = JSON.stringify(tools);
const known = knownTools("chat");
const post = (text: string) =>
  new Request("https://t.test/", { method: "POST", headers: { "content-type": "application/json" }, body: text });
const read = (text: string, withKnown = true) => readJsonText(post(text), 1 << 22, withKnown ? known : undefined);
const refusal = async (text: string, withKnown: boolean) =>
  read(text, withKnown).then(
    () => "accepted",
    (e: unknown) => (e instanceof ToolsearchError ? `${e.code}: ${e.message}` : `other: ${String(e)}`),
  );

/** Seed the cache the way the chat route does: the first request's set, kept with its parsed tools. */
async function seeded(): Promise<unknown> {
  if (parsedMember("chat", RAW) !== undefined) return parsedMember("chat", RAW);
  const first = await read(`{"model":"m","tools":${RAW},"messages":[]}`);
  const value = first.value as { tools: OpenAITool[] };
  await clientToolSet(value.tools, { surface: "chat", raw: first.member("tools")!, value: value.tools });
  return parsedMember("chat", RAW);
}

describe("a body whose tools are known", () => {
  it("reads as JSON.parse reads it, its tools the one frozen value every such request shares", async () => {
    expect(parsedMember("chat", RAW)).toBeUndefined();
    const shared = await seeded();
    expect(shared).toEqual(tools);
    expect(Object.isFrozen(shared) && Object.isFrozen((shared as OpenAITool[])[3]!.function)).toBe(true);
    expect(parsedMember("responses", RAW)).toBeUndefined();
    const bodies = [
      `{"model":"m","messages":[{"role":"user","content":"hi ${crypto.randomUUID()}"}],"tools":${RAW},"stream":true}`,
      `{ "tools" : ${RAW} , "model":"m","x":{"tools":[1]},"s":"\\"tools\\":[]"}`,
      `{"tool\\u0073":${RAW},"model":"m"}`,
      `{"tools":[{"type":"function"}],"model":"m","tools":${RAW}}`,
    ];
    for (const text of bodies) {
      const { value } = await read(text);
      expect(value).toEqual(JSON.parse(text));
      expect(Object.keys(value)).toEqual(Object.keys(JSON.parse(text) as object));
      expect(value.tools).toBe(shared);
    }
    // the last of duplicate keys is what counts: here not the known tools
    const last = await read(`{"tools":${RAW},"model":"m","tools":[]}`);
    expect(last.value.tools).toEqual([]);
    // other tools, or the same tools spelled otherwise, are parsed
    const spaced = JSON.stringify(tools, null, 1);
    const other = await read(`{"model":"m","tools":${spaced}}`);
    expect(other.value.tools).toEqual(tools);
    expect(other.value.tools).not.toBe(shared);
    expect(() => ((shared as OpenAITool[])[0]!.function.name = "renamed")).toThrow(TypeError);
  });

  it("finds the known text where the top-level tools are, not where the same text sits inside something else", async () => {
    const shared = await seeded();
    const messages = `[{"role":"user","content":"after the tools ${crypto.randomUUID()}"}]`;
    const bodies = [
      `{"x":{"tools":${RAW}},"model":"m","tools":${RAW},"messages":${messages}}`,
      `{"model":"m","list":[{"tools":${RAW}}],"tools" :\n ${RAW}\t,"messages":${messages}}`,
      `{"model":"m","x":{"tools":${RAW}},"messages":${messages}}`,
    ];
    for (const text of bodies) {
      const { value, member } = await read(text);
      expect(value).toEqual(JSON.parse(text));
      expect(Object.keys(value)).toEqual(Object.keys(JSON.parse(text) as object));
      const parsed = JSON.parse(text) as Record<string, unknown>;
      for (const key of Object.keys(parsed)) expect(JSON.parse(member(key)!)).toEqual(parsed[key]);
      if ("tools" in parsed) {
        expect(value.tools).toBe(shared);
        expect(member("tools")).toBe(RAW);
      }
      // a nested copy of the text is its own parsed value, never the shared one
      const nested =
        (value.x as { tools?: unknown } | undefined)?.tools ?? (value.list as Array<{ tools: unknown }> | undefined)?.[0]?.tools;
      expect(nested).toEqual(tools);
      expect(nested).not.toBe(shared);
      expect(member("messages")).toBe(messages);
    }
  });

  it("is refused with the same words as when nothing is known: bad JSON, too deep, not an object", async () => {
    await seeded();
    const deep = `${"[".repeat(200)}${"]".repeat(200)}`;
    const bad = [
      `{"model":"m","tools":${RAW},"messages":[1,]}`,
      `{"model":"m","tools":${RAW}`,
      `{"model":"m","tools":${RAW},"messages":${deep}}`,
      `{"model":"m","tools":${RAW},"model"}`,
      `{"model":"m\\x","tools":${RAW}}`,
      `[{"tools":${RAW}}]`,
      `{"model":"m","tools":${RAW}} trailing`,
    ];
    for (const text of bad) {
      const words = await refusal(text, true);
      expect(words).toMatch(/^bad_request: body (is not valid JSON|nests deeper|must be a JSON object)/);
      expect(words).toBe(await refusal(text, false));
    }
  });
});

describe("each surface, sent the same tools twice", () => {
  const upstream = modelLane();
  const vars = { OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test", UPSTREAM_MAX_RETRIES: "0" };
  const recorded = () => fetch(`${upstream.replace(/\/v1$/, "")}/_control/requests`).then((r) => r.json() as Promise<Json[]>);
  const many = Array.from({ length: 60 }, (_, i) => tools[i % tools.length]!.function).map((f, i) => ({ ...f, name: `${f.name}_${i}` }));
  const surfaces: Array<[string, (word: string) => Record<string, unknown>]> = [
    [
      "/v1/chat/completions",
      (w) => ({ model: "gpt-4o", messages: [{ role: "user", content: w }], tools: many.map((f) => ({ type: "function", function: f })) }),
    ],
    ["/v1/responses", (w) => ({ model: "gpt-4o", input: w, tools: many.map((f) => ({ type: "function", ...f })) })],
    [
      "/v1/messages",
      (w) => ({
        model: "claude-sonnet-4-6",
        max_tokens: 100,
        messages: [{ role: "user", content: w }],
        tools: many.map((f) => ({ name: f.name, description: f.description, input_schema: f.parameters })),
      }),
    ],
  ];
  it.each(surfaces)("%s: the upstream is sent the same tools, and other tools when they change", async (path, body) => {
    const tag = crypto.randomUUID();
    const sent = async (b: Record<string, unknown>) => {
      const r = await callWith(vars, "POST", path, b);
      expect(r.status).toBe(200);
      return (await recorded()).at(-1)!.body as { tools: Json[]; messages: Json[] };
    };
    const first = await sent(body(`first ${tag}`));
    // kept for the next request (callWith runs the Worker in this isolate; it sends JSON.stringify(body))
    expect(parsedMember(path.split("/")[2]!, JSON.stringify(body(`first ${tag}`).tools))).toBeDefined();
    const second = await sent(body(`first ${tag}`.replace("first", "again")));
    expect(second.tools).toEqual(first.tools);
    expect(JSON.stringify(second.messages)).toContain(`again ${tag}`);
    // a renamed tool: the listing or the tools the upstream is sent name it
    const changed = body(`changed ${tag}`);
    const renamed = changed.tools as Array<Record<string, unknown> & { function?: Record<string, unknown> }>;
    (renamed[5]!.function ?? renamed[5]!).name = `renamed_${tag.slice(0, 8)}`;
    expect(JSON.stringify(first)).not.toContain(`renamed_${tag.slice(0, 8)}`);
    expect(JSON.stringify(await sent(changed))).toContain(`renamed_${tag.slice(0, 8)}`);
  });
});
