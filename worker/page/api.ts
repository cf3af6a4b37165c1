// The page's only way to the Worker: /v1 calls with the key the user pasted, kept in
// sessionStorage (gone when the tab closes; never in localStorage, a cookie or the URL). Every
// failure becomes an ApiError whose message a person can act on.

const KEY = "toolsearch.apiKey";

export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string): void => sessionStorage.setItem(KEY, key),
  clear: (): void => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function explain(status: number, code: string, message: string): string {
  if (status === 401)
    return `The Worker refused this API key (401 ${code}): ${message}. Paste a key from the Worker's API_KEYS (for npm start: the key in .dev.vars).`;
  if (status === 404 && code === "not_found") return `Not found: ${message}.`;
  return `${message} (${status} ${code})`;
}

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const key = apiKey.get();
  if (!key) throw new ApiError(401, "unauthorized", "Paste an API key first.");
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (e) {
    throw new ApiError(0, "network", `Cannot reach the Worker (${(e as Error).message}).`);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: reported below */
  }
  if (!res.ok) {
    const err = (body as { error?: { code?: string; message?: string } } | null)?.error;
    const code = err?.code ?? "error";
    throw new ApiError(res.status, code, explain(res.status, code, err?.message ?? (text.slice(0, 200) || res.statusText)));
  }
  if (body === null && text) throw new ApiError(res.status, "bad_response", `The Worker answered ${path} with something other than JSON.`);
  return body as T;
}
