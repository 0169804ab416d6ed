"""Moving the bytes: the transports that send a prepared request and receive its answer, one attempt at a time,
with the retry decisions taken by the core (`_calls._core.RetryState`).

- `_transport.py`: the sync client's `http.client` connections in a keep-alive pool (decision PY16);
- `_async_transport.py`: the async client's HTTP/1.1 on asyncio streams, written by hand (decision PY15);
- `_injected.py`: a transport of the caller's own (`Client(transport=...)`: `SyncTransport`, `AsyncTransport`);
- `_default.py`: the two above as public transports of that protocol (`HTTPTransport`, `AsyncHTTPTransport`),
  for a wrapper to forward to.

Above `_http` and `_calls`, below the clients. It may import its own modules, `.._http` and `.._calls` (and the
generated contract modules at the top of the package); never `_results`, `_runtime`, `_operations`, `_webhooks` or
the clients. Nothing is exported here.
"""
