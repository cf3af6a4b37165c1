// Tools as TypeScript declarations, for code mode: what a code-mode session's toolSearch shows the
// model instead of JSON schemas, and what `catalog stats` and GET /v1/catalog count. Found tools
// are one `declare const tools: { <server>: { <tool>(args: {...}): Promise<...> } }` block: the
// description as a doc comment, each property's description as its own, required fields without
// `?`, enums as unions of literals. A tool with an output schema resolves to that type; one
// without resolves to its text (runCode's description says so). Deterministic: the same tools
// give the same bytes. Schemas nest at most MAX_DEPTH levels here; deeper ones are `unknown`.

import type { CatalogTool } from "./catalog.ts";

type Schema = Record<string, unknown>;

const MAX_DEPTH = 6;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const key = (name: string) => (IDENT.test(name) ? name : JSON.stringify(name));

/** A doc comment's text on one line, with nothing that could end the comment. */
export function docText(text: string, max = 400): string {
  const one = text.replace(/\s+/g, " ").trim().replace(/\*\//g, "*\\/");
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

const literal = (v: unknown) =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v === null ? JSON.stringify(v) : "unknown";

/** The TypeScript type of a JSON schema, indented for `pad`. */
export function schemaType(schema: unknown, pad = "", depth = 0): string {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return schema === false ? "never" : "unknown";
  const s = schema as Schema;
  if (depth > MAX_DEPTH) return "unknown";
  if ("const" in s) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(literal).join(" | ") || "never";
  for (const k of ["anyOf", "oneOf"] as const)
    if (Array.isArray(s[k])) return union((s[k] as unknown[]).map((x) => schemaType(x, pad, depth + 1)));
  if (Array.isArray(s.allOf)) return (s.allOf as unknown[]).map((x) => schemaType(x, pad, depth + 1)).join(" & ") || "unknown";
  if (Array.isArray(s.type)) return union((s.type as unknown[]).map((t) => schemaType({ ...s, type: t }, pad, depth)));
  switch (s.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      if (Array.isArray(s.items)) return `[${(s.items as unknown[]).map((x) => schemaType(x, pad, depth + 1)).join(", ")}]`;
      const item = schemaType(s.items ?? {}, pad, depth + 1);
      return /^[\w.$"]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case "object":
      return objectType(s, pad, depth);
    default:
      return s.properties ? objectType(s, pad, depth) : "unknown";
  }
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.includes("unknown") ? "unknown" : unique.join(" | ") || "never";
}

function objectType(s: Schema, pad: string, depth: number): string {
  const props = s.properties && typeof s.properties === "object" ? Object.entries(s.properties as Schema) : [];
  const required = new Set(Array.isArray(s.required) ? (s.required as unknown[]).map(String) : []);
  const extra = s.additionalProperties;
  if (!props.length)
    return extra && typeof extra === "object" ? `Record<string, ${schemaType(extra, pad, depth + 1)}>` : "Record<string, unknown>";
  const inner = `${pad}  `;
  const lines = props.map(([name, p]) => {
    const desc =
      p && typeof p === "object" && typeof (p as Schema).description === "string" ? docText(String((p as Schema).description), 200) : "";
    const doc = desc ? `${inner}/** ${desc} */\n` : "";
    return `${doc}${inner}${key(name)}${required.has(name) ? "" : "?"}: ${schemaType(p, inner, depth + 1)};`;
  });
  if (extra && typeof extra === "object") lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join("\n")}\n${pad}}`;
}

/** One tool as a method of its server's object: doc comment, `name(args): Promise<...>`. */
export function toolDeclaration(
  t: Pick<CatalogTool, "originalName" | "description" | "inputSchema" | "outputSchema" | "name">,
  pad = "    ",
): string {
  const doc = docText(t.description || t.name);
  const args = schemaType(t.inputSchema, pad);
  const out = t.outputSchema ? schemaType(t.outputSchema, pad) : "string";
  const optional = !Array.isArray(t.inputSchema.required) || t.inputSchema.required.length === 0;
  return `${pad}/** ${doc} (${t.name}) */\n${pad}${key(t.originalName)}(args${optional ? "?" : ""}: ${args}): Promise<${out}>;`;
}

/** The found tools as one declaration of `tools`, grouped by server, in the order given. */
export function toolsDeclaration(tools: readonly CatalogTool[]): string {
  const servers = new Map<string, CatalogTool[]>();
  for (const t of tools) servers.set(t.server, [...(servers.get(t.server) ?? []), t]);
  const blocks = [...servers].map(([server, list]) => `  ${key(server)}: {\n${list.map((t) => toolDeclaration(t)).join("\n")}\n  };`);
  return `declare const tools: {\n${blocks.join("\n")}\n};`;
}
