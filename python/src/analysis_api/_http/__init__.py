"""HTTP messages as values and bytes, with no socket, no retry decision and no client error.

- `_transport_types.py`: the retry and timeout policies (`Retry`, `Timeout`), a prepared `Request`, its `Timing`
  (deadlines), a `Proxy`, and one attempt as values (`HttpRequest`, `HttpResponse`);
- `_bodies.py`: request bodies encoded by media type (JSON, form, streamed multipart, raw bytes);
- `_wire.py`: the bytes of a request head, and the fields of a response head;
- `_response.py`: a `Response` as received (status, headers, body) and header lookup;
- `_rate_limit.py`: the rate-limit headers of a response (`RateLimit`).

The lowest layer of the package. It may import only its own modules and the generated contract modules at the
top of the package that import nothing of the runtime (`.._constants`, `.._file`); never `_calls`, `_transports`,
`_results` or the clients. Nothing is exported here: the package's `__init__.py` re-exports the public names, and
the other modules import the modules of this folder directly.
"""
