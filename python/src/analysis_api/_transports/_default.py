"""The client's own HTTP layer as public transports (issue 49, decision PY39): `HTTPTransport` (sync) and
`AsyncHTTPTransport` (asyncio) take an `HttpRequest` and answer an `HttpResponse`, like any transport of the
caller's own, so a wrapper can add headers, time the exchange, and forward to them:

    class Tracing:
        def __init__(self) -> None:
            self.inner = analysis_api.HTTPTransport()
        def handle_request(self, request: analysis_api.HttpRequest) -> analysis_api.HttpResponse:
            request.headers["traceparent"] = ...
            return self.inner.handle_request(request)

    Client(..., transport=Tracing())

Each call is one attempt on the same keep-alive pool (or asyncio connections) the client uses by default, under
the request's `timeout` (the call's), else the transport's own. The client keeps its retries, hooks and errors
around the wrapper: a failed attempt raises `NetworkError` / `RequestTimeoutError`, which the client retries by
its policy. As with every transport given with `transport=`, an event stream's body is read whole before it is
handed on.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, Union
from urllib.parse import urlsplit

import ssl

from .._calls._core import DEFAULT_TIMEOUT, Clock, checked_timeout
from .._http._bodies import EncodedBody
from .._http._response import Response
from .._http._transport_types import HttpRequest, HttpResponse, Proxy, Request, Timeout
from ._async_transport import AsyncTransport
from ._transport import Transport


def _unchanged(headers: Dict[str, str]) -> None:
    """The request's headers already carry the credentials (the client added them)."""


def _unobserved(response: Response) -> None:
    """The client observes the answer once it is handed back (its hooks, rate limits, log line)."""


def _request_of(request: HttpRequest, default: Optional[Timeout]) -> Request:
    if not isinstance(request, HttpRequest):
        raise TypeError(f"a transport is handed an analysis_api.HttpRequest, not {type(request).__name__}")
    parts = urlsplit(request.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"HttpRequest.url must be an absolute http(s) URL (got {request.url[:80]!r})")
    origin: Tuple[str, str, Optional[int]] = (parts.scheme, parts.hostname, parts.port)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    body = EncodedBody([request.content] if request.content else None, None)
    timeout = request.timeout if request.timeout is not None else default
    return Request(request.method, request.url, parts.path or "/", dict(request.headers), body, timeout, None, origin, target)


def _answer(response: Union[Response, object]) -> HttpResponse:
    assert isinstance(response, Response)
    return HttpResponse(response.status, {k: v for k, v in response.headers.items()}, response.content, response.reason)


class HTTPTransport:
    """The sync client's default HTTP layer, public: `handle_request(HttpRequest) -> HttpResponse`, one attempt on
    a keep-alive connection pool. `timeout` applies to requests that carry none (the client's always carry the
    call's); `ssl_context`, `proxy` and `max_idle` (idle connections kept per origin) as the client's."""

    def __init__(self, *, timeout: Union[Timeout, float, None] = DEFAULT_TIMEOUT, ssl_context: Optional[ssl.SSLContext] = None,
                 proxy: Optional[str] = None, max_idle: int = 10) -> None:
        self._timeout = checked_timeout(timeout)
        self._pool = Transport(authenticate=_unchanged, on_response=_unobserved, clock=Clock(), ssl_context=ssl_context,
                               max_idle=max_idle, proxy=Proxy.parse(proxy) if proxy is not None else None)

    def handle_request(self, request: HttpRequest) -> HttpResponse:
        """Sends `request` once and reads the whole answer. Raises `NetworkError` or `RequestTimeoutError` when no
        answer came."""
        return _answer(self._pool.send(_request_of(request, self._timeout)))

    def close(self) -> None:
        """Closes the idle connections (the client calls it when it is closed)."""
        self._pool.close()


class AsyncHTTPTransport:
    """The async client's default HTTP layer, public: `await handle_async_request(HttpRequest) -> HttpResponse`.
    Settings as `HTTPTransport`'s, and `max_connections`: requests in flight at once (None: no cap)."""

    def __init__(self, *, timeout: Union[Timeout, float, None] = DEFAULT_TIMEOUT, ssl_context: Optional[ssl.SSLContext] = None,
                 proxy: Optional[str] = None, max_idle: int = 10, max_connections: Optional[int] = None) -> None:
        self._timeout = checked_timeout(timeout)
        self._pool = AsyncTransport(authenticate=_unchanged, on_response=_unobserved, clock=Clock(), sleep=_no_wait,
                                    ssl_context=ssl_context, max_idle=max_idle, max_connections=max_connections,
                                    proxy=Proxy.parse(proxy) if proxy is not None else None)

    async def handle_async_request(self, request: HttpRequest) -> HttpResponse:
        """As `HTTPTransport.handle_request`, awaited."""
        return _answer(await self._pool.send(_request_of(request, self._timeout)))

    async def aclose(self) -> None:
        """Closes the idle connections (the client awaits it when it is closed)."""
        await self._pool.aclose()


async def _no_wait(seconds: float) -> None:
    """Never called: one attempt per request, the client waits between them."""
