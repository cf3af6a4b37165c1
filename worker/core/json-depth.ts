// How deeply a parsed JSON value nests, measured without recursion. JSON.parse itself takes any
// depth, but what walks the value next (schema validation, structured clone across an RPC,
// JSON.stringify) recurses and overflows the stack: a body nested thousands deep was a 500, a
// -32603 or a 502. Every JSON the Worker reads from a client is held to MAX_JSON_DEPTH first, which
// no real request comes near (a chat request with tool schemas nests some 20 deep).

export const MAX_JSON_DEPTH = 128;

/** True when `value` has arrays or objects nested more than `max` deep. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
