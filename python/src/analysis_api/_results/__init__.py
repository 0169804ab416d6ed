"""What a call hands back besides its parsed JSON: pages of a list, raw responses and event streams.

- `_pages.py`: `SyncPage` / `AsyncPage`, one answer of a list that fetches the next on demand;
- `_raw.py`: `RawResponse`, a call's status and headers next to its parsed result (`with_raw_response`);
- `_streaming.py`: `StreamingResponse` / `AsyncStreamingResponse`, an answer whose body is read as it arrives
  (`with_streaming_response`);
- `_sse.py`: the Server-Sent Events parser and `StreamSession`, the reconnect decisions of an event stream;
- `_streams.py`: `EventStream` / `AsyncEventStream`, the typed events of an event-stream operation.

Above `_http` and `_calls`, beside `_transports` (neither imports the other), below `_runtime`, the generated
`_operations.py` and the clients. It may import its own modules, `.._http` and `.._calls` (and the generated
contract modules at the top of the package); never `_transports`, `_runtime`, `_operations`, `_webhooks` or the
clients. Nothing is exported here.
"""
