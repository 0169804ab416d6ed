// One API request over real HTTP with a key, its JSON answer parsed (null when empty): the sandbox's tests call
// replicas with it.
export async function call(url: string, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "X-API-Key": key, ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}
