"""The sync `Client`: the contract's operations as resource namespaces (`client.analyses.list()`), sent through a
keep-alive connection pool; and the settings both clients share (`BaseClient`).

A method returns the answer's JSON (typed by `analysis_api.models`) and raises a typed `ApiError` for any other
status than 2xx. The rate-limit headers of every response are in `client.last_rate_limit` (per thread) and are
told to `on_rate_limit`, retried 429s included.
"""

from __future__ import annotations

import copy
import os
import random as _random
import ssl
import threading
import time
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Sequence, TypeVar, Union, cast

from ._calls._core import (
    DEFAULT_STREAM_IDLE_TIMEOUT,
    DEFAULT_TIMEOUT,
    Clock,
    Config,
    EventHooks,
    checked_event_hooks,
    request_teller,
    Credentials,
    TokenSource,
    base_url_of,
    error_of,
    log_from_environment,
    checked_seconds,
    checked_timeout,
    observe,
    prepare,
    resolve_retry,
    model_of,
    result_of,
    token_url,
    with_stream_options,
)
from ._transports._injected import AsyncTransport, BufferedStream, InjectedTransport, SyncTransport
from ._operations import ClientWithRawResponse, ClientWithStreamingResponse, Resources
from ._results._pages import SyncPage
from ._results._raw import RawResponse
from ._results._streaming import StreamingResponse
from ._http._rate_limit import RateLimit
from ._http._response import Response
from ._runtime import SyncCaller
from ._results._sse import StreamSession
from ._results._streams import EventStream
from ._transports._transport import StreamedResponse, Transport
from ._http._transport_types import Proxy, Retry, Timeout
from ._calls._types import NOT_GIVEN, Operation, RequestOptions, RetryOption, TimeoutOption
from ._calls._urls import operation_url
from ._version import __version__
from ._webhooks import ENV_WEBHOOK_SECRET

DEFAULT_MAX_CONNECTIONS = 1000
"""`AsyncClient`'s default cap on calls in flight, as openai-python's (`httpx.Limits(max_connections=1000)`)."""

_Self = TypeVar("_Self", bound="BaseClient")


class _LastRateLimit(threading.local):
    value: Optional[RateLimit] = None


def _retry_alias(retry: Any, max_retries: Optional[int], unset: Any) -> Any:
    """`retry=`, or openai-python's `max_retries=n`: n retries after the first attempt (`Retry(max_attempts=n + 1)`;
    0 sends every request once). Both given is refused, as is anything but an integer >= 0."""
    if max_retries is None:
        return retry
    if retry is not unset:
        raise ValueError("give retry= or max_retries=, not both")
    if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
        raise ValueError(f"max_retries must be an integer >= 0 (got {max_retries!r})")
    return Retry(max_attempts=max_retries + 1) if max_retries else False


def _headers_alias(headers: Optional[Mapping[str, str]], default_headers: Optional[Mapping[str, str]]) -> Optional[Mapping[str, str]]:
    """`headers=`, or openai-python's `default_headers=`; both given is refused."""
    if default_headers is None:
        return headers
    if headers is not None:
        raise ValueError("give headers= or default_headers=, not both")
    return default_headers


class BaseClient:
    """The settings `Client` and `AsyncClient` share.

    - `base_url`: the service root; default `$ANALYSIS_API_BASE_URL`.
    - `api_key` (sent as `X-API-Key`; default `$ANALYSIS_API_KEY`) or `token`: a JWT, or a function returning a
      fresh one (sent as `Authorization: Bearer`). Missing credentials raise `CredentialsError` here.
    - `timeout`: a `Timeout(connect=, read=, total=)` per attempt, or seconds t meaning
      `Timeout(connect=t, read=t, total=t)`: connecting, each wait for bytes, and the whole attempt, headers and
      body, within t. Default 30; None waits forever; 0 is refused.
    - `retry`: a `Retry` policy (default: 3 attempts within 60 s), or False to send every request once.
    - `max_retries`: openai-python's spelling of `retry`: n retries after the first attempt (0: none).
    - `headers` (or `default_headers`, openai-python's name): sent with every request; `default_query`: query parameters sent with every call (a call's
      `extra_query` wins).
    - `on_request(method, path, headers)`: a hook told every call before it is sent (tracing: add a
      `traceparent`); it may change the headers, and never sees the credentials, added after it.
    - `on_response(response)`: a hook told every response as it arrives (each attempt's, retried ones included),
      before its body is read: status, headers, `method`, `path` (tracing, metrics).
    - `event_hooks`: `{"request": [f, ...], "response": [g, ...]}`, as httpx's (openai-python's `http_client=`):
      each request function is told every attempt's final `HttpRequest` (method, absolute URL, headers with the
      credentials shown as `***`), each response function every `Response` (status, headers, `request_id`), retried
      ones included. What a hook raises stops the call as an `EventHookError` naming it.
    - `on_rate_limit(rate_limit, response)`: told the `X-RateLimit-*` headers of every response that carries them.
    - `transport`: an object that exchanges the bytes instead of the client's sockets (a test double, a tracing
      wrapper): `handle_request(HttpRequest) -> HttpResponse` for `Client`, `async handle_async_request(...)` for
      `AsyncClient` (`analysis_api.SyncTransport` / `AsyncTransport`). Retries, hooks and errors stay the client's.
      To wrap the default, forward to `analysis_api.HTTPTransport()` / `AsyncHTTPTransport()`.
    - `stream_idle_timeout`: seconds an open event stream may stay silent before it reconnects. Default 60 (the
      contract promises a keep-alive every 15 s).
    - `max_stream_reconnects`: how often an event stream is reopened in a row before `StreamError`. Default 5.
    - `proxy`: an `http://[user:password@]host:port` proxy (HTTPS goes through a CONNECT tunnel; on `AsyncClient`,
      Python 3.11+). Never read from the environment.
    - `webhook_secret`: the `whsec_...` secret (or a list, while rotating) `client.webhooks.unwrap()` checks
      deliveries with; default `$ANALYSIS_WEBHOOK_SECRET`.
    - `max_connections`: `AsyncClient`'s cap on calls in flight (and open event streams), each on its own
      connection; the others wait their turn. Default 1000, as openai-python's; None for no cap. (A `Client` sends
      one call at a time per thread.)
    - `sleep`, `monotonic`, `random`: the clock retries wait on (tests inject fakes).
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        *,
        api_key: Optional[str] = None,
        token: Optional[TokenSource] = None,
        timeout: Union[Timeout, float, None] = DEFAULT_TIMEOUT,
        retry: Union[Retry, bool] = True,
        on_rate_limit: Optional[Callable[[RateLimit, Response], None]] = None,
        headers: Optional[Mapping[str, str]] = None,
        stream_idle_timeout: Optional[float] = DEFAULT_STREAM_IDLE_TIMEOUT,
        max_stream_reconnects: int = 5,
        ssl_context: Optional[ssl.SSLContext] = None,
        proxy: Optional[str] = None,
        max_connections: Optional[int] = DEFAULT_MAX_CONNECTIONS,
        webhook_secret: Union[str, Sequence[str], None] = None,
        default_query: Optional[Mapping[str, Any]] = None,
        on_request: Optional[Callable[[str, str, Dict[str, str]], None]] = None,
        on_response: Optional[Callable[[Response], None]] = None,
        transport: Union[SyncTransport, AsyncTransport, None] = None,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        random: Callable[[], float] = _random.random,
        max_retries: Optional[int] = None,
        default_headers: Optional[Mapping[str, str]] = None,
        event_hooks: Optional[EventHooks] = None,
    ) -> None:
        log_from_environment()
        hooks = checked_event_hooks(event_hooks)
        retry = _retry_alias(retry, max_retries, True)
        headers = _headers_alias(headers, default_headers)
        if on_request is not None and not callable(on_request):
            raise TypeError("on_request must be a function (method, path, headers) -> None")
        if on_response is not None and not callable(on_response):
            raise TypeError("on_response must be a function (response) -> None")
        if on_rate_limit is not None and not callable(on_rate_limit):
            raise TypeError("on_rate_limit must be a function (rate_limit, response) -> None")
        self._config = Config(
            base_url=base_url_of(base_url),
            credentials=Credentials(api_key, token),
            timeout=checked_timeout(timeout),
            retry=resolve_retry(retry),
            headers={"User-Agent": f"analysis-api-python/{__version__}", "Accept-Encoding": "gzip", **(headers or {})},
            stream_idle_timeout=checked_seconds(stream_idle_timeout, "stream_idle_timeout"),
            max_stream_reconnects=max_stream_reconnects,
            clock=Clock(sleep, monotonic, random),
            on_rate_limit=on_rate_limit,
            last_rate_limit=_LastRateLimit(),
            default_query=dict(default_query) if default_query else None,
            on_request=on_request,
            on_response=on_response,
            response_hooks=hooks.get("response", ()),
        )
        self._request_hooks = request_teller(hooks.get("request", ()))
        self._injected = transport
        self._ssl_context = ssl_context
        self._proxy = Proxy.parse(proxy) if proxy is not None else None
        if max_connections is not None and (not isinstance(max_connections, int) or isinstance(max_connections, bool) or max_connections < 1):
            raise ValueError(f"max_connections must be an integer >= 1, or None for no cap (got {max_connections!r})")
        self._max_connections = max_connections
        self._webhook_secret = webhook_secret
        self._setup()

    def _setup(self) -> None:
        """The front end's own set-up (its transport, its resources)."""
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def webhook_secret(self) -> Union[str, Sequence[str], None]:
        """The secret(s) `client.webhooks.unwrap()` checks deliveries with (never in the client's `repr`): the one
        given, else `$ANALYSIS_WEBHOOK_SECRET` as it is when read (issue 49: a secret set or rotated after the client
        was made is used)."""
        if self._webhook_secret is not None:
            return self._webhook_secret
        return os.environ.get(ENV_WEBHOOK_SECRET) or None

    @property
    def last_rate_limit(self) -> Optional[RateLimit]:
        """The rate-limit headers of the last response this thread received from this client (None before any)."""
        value: Optional[RateLimit] = self._config.last_rate_limit.value
        return value

    def __repr__(self) -> str:
        # Never the credentials (decision PY21).
        return f"<{type(self).__name__} base_url={self._config.base_url!r}>"

    def _with_config(
        self: _Self, timeout: TimeoutOption, retry: RetryOption, headers: Optional[Mapping[str, str]],
        max_retries: Optional[int] = None, default_headers: Optional[Mapping[str, str]] = None,
    ) -> _Self:
        retry = _retry_alias(retry, max_retries, NOT_GIVEN)
        headers = _headers_alias(headers, default_headers)
        clone = copy.copy(self)
        clone._config = self._config.with_changes(timeout, retry, headers)
        return clone

    def _stream_session(self, op: Operation, args: Dict[str, Any]) -> StreamSession:
        # The standard SSE resume header; the contract declares it as a header parameter of the operation.
        resume = next((p.arg for p in op.params if p.location == "header" and p.name.lower() == "last-event-id"), None)
        retry = self._config.retry or Retry()
        what = f"the event stream {op.method} {operation_url('', op, args).split('?', 1)[0]}"
        start = args.pop(resume, None) if resume else None
        return StreamSession(op.events, start, self._config.max_stream_reconnects, lambda n: retry.backoff(n, self._config.clock.random), what, op.convert_event)


class Client(BaseClient, Resources, SyncCaller):
    """A client of the analysis API: `Client(base_url="https://api.example.com", api_key="pk_live_...")`.

    Use it as a context manager, or call `close()`, to close its pooled connections. See `BaseClient` for the
    settings; every method also takes `timeout=`, `retry=`, `extra_headers=` and `extra_query=` for one call, and
    the writes (POST, PATCH) `idempotency_key=`.
    """

    def _setup(self) -> None:
        self._transport: Union[Transport, InjectedTransport]
        if self._injected is not None:
            self._transport = InjectedTransport(cast(SyncTransport, self._injected), authenticate=self._config.credentials.authenticate,
                                                on_response=lambda r: observe(self._config, r), clock=self._config.clock,
                                                on_request=self._request_hooks)
        else:
            self._transport = Transport(
                authenticate=self._config.credentials.authenticate,
                on_response=lambda r: observe(self._config, r),
                clock=self._config.clock,
                ssl_context=self._ssl_context,
                proxy=self._proxy,
                on_request=self._request_hooks,
            )
        self._bind_resources(self)

    def close(self) -> None:
        """Closes the pooled connections (shared with the copies `with_options` made)."""
        self._transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def with_options(
        self, *, timeout: TimeoutOption = NOT_GIVEN, retry: RetryOption = NOT_GIVEN, headers: Optional[Mapping[str, str]] = None,
        max_retries: Optional[int] = None, default_headers: Optional[Mapping[str, str]] = None,
    ) -> "Client":
        """A copy with another timeout, retry policy or extra headers, e.g. `client.with_options(retry=False)`.
        It shares the connection pool, credentials, hooks and `last_rate_limit`. `max_retries=` and
        `default_headers=` are openai-python's spellings of `retry=` and `headers=`."""
        clone = self._with_config(timeout, retry, headers, max_retries, default_headers)
        clone._bind_resources(clone)
        return clone

    copy = with_options
    """openai-python's name of `with_options`."""

    @property
    def with_raw_response(self) -> ClientWithRawResponse:
        """The same resources, whose calls return a `RawResponse` (status, headers, `parse()`)."""
        return ClientWithRawResponse(self)

    @property
    def with_streaming_response(self) -> ClientWithStreamingResponse:
        """The same resources, whose calls return a `StreamingResponse` to use in `with`: sent when the block starts,
        the body read as it arrives (`iter_bytes()`, `iter_lines()`, `read()`, `parse()`), closed when it ends."""
        return ClientWithStreamingResponse(self)

    # ---- what the generated resources call --------------------------------------------------------------

    def _send(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> Response:
        response = self._transport.send(prepare(self._config, op, args, body, options))
        assert isinstance(response, Response)
        return response

    def _call(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> Any:
        value = result_of(self._send(op, args, body, options))
        return value if op.paginated else model_of(op, value)  # a page wraps its own items

    def _call_raw(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> RawResponse[Any]:
        response = self._send(op, args, body, options)
        value = model_of(op, result_of(response))
        return RawResponse(response, lambda _: value)

    def _call_streaming(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> StreamingResponse[Any]:
        request = prepare(self._config, op, args, body, options)  # a bad argument raises here, not in the block
        read_timeout = request.timeout.read if request.timeout is not None else None

        def open_body() -> Union[StreamedResponse, BufferedStream]:
            answer = self._transport.send(request, stream=True, stream_idle_timeout=read_timeout)
            if isinstance(answer, Response):
                raise error_of(answer)  # a status other than 2xx, its body read
            return answer

        return StreamingResponse(open_body, lambda response: model_of(op, result_of(response)), read_timeout)

    def _page(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> SyncPage[Any]:
        cursor: Optional[str] = args.get("cursor")
        return SyncPage(op, self._call(op, args, None, options), cursor, lambda following: self._page(op, {**args, "cursor": following}, options))

    def _paginate(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> Iterator[Any]:
        return iter(self._page(op, args, options))

    def _events(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> EventStream[Any]:
        session = self._stream_session(op, args)

        def open_stream(last_event_id: Optional[str]) -> Union[StreamedResponse, BufferedStream, None]:
            request = prepare(self._config, op, args, None, with_stream_options(options, last_event_id), accept="text/event-stream")
            response = self._transport.send(request, stream=True, stream_idle_timeout=self._config.stream_idle_timeout)
            if isinstance(response, Response):
                raise error_of(response)
            try:
                opened = session.opened(response.response.status, response.response.content_type)
            except BaseException:
                response.close()  # not an event stream: its connection is not kept
                raise
            if not opened:
                response.close()
                return None
            return response

        return EventStream(session, open_stream, self._config.clock.sleep)

    def _token_url(self, op: Operation, args: Dict[str, Any]) -> str:
        return token_url(self._config, op, args)
