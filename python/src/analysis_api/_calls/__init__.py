"""A call of an operation, sans I/O: what it is, how its request is built, when it is retried, and what its
answer becomes.

- `_types.py`: the types every layer shares: an operation (`Operation`, `Param`) and the options of one call
  (`RequestOptions`, `NOT_GIVEN`, `BinaryBody`, ...);
- `_urls.py`: the request URL of an operation, and the rule for tokens in URLs;
- `_errors.py`: the typed errors (`ApiError` and its subclasses);
- `_core.py`: the core shared by `Client` and `AsyncClient` (decision PY15): credentials and settings, preparing a
  request, retry decisions (`RetryState`), results and typed errors of responses.

Above `_http` and below `_transports`, `_results` and the clients. It may import its own modules, `.._http`, and the
generated contract modules at the top of the package (`.._constants`, `..models`, and `.._file` through them);
never `_transports`, `_results`, `_runtime`, `_operations`, `_webhooks` or the clients. Nothing is exported here.
"""
