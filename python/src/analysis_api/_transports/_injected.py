"""A transport of the caller's own (issue 34): `Client(transport=...)` / `AsyncClient(transport=...)`.

Test doubles and tracing take over the exchange of bytes and nothing else: the client still builds the request
(URL, headers, credentials, encoded body), retries by its policy, tells its hooks, and turns the answer into a
result or a typed error. A transport is any object with

- `handle_request(request: HttpRequest) -> HttpResponse` (for `Client`), or
- `async handle_async_request(request: HttpRequest) -> HttpResponse` (for `AsyncClient`),

like httpx's `MockTransport`. An `OSError` it raises is a failed attempt (`NetworkError` / `RequestTimeoutError`
once retries are spent, `TimeoutError` being the latter), and so is an `ApiConnectionError` (what the public
default transports, `HTTPTransport` / `AsyncHTTPTransport`, raise; then raised as it is); anything else goes to the
caller as it is. An event stream's body is the answer's whole `content`, read as one piece. Timeouts are the
transport's own business (the call's `Timeout` comes with the request, as `HttpRequest.timeout`).
"""

from __future__ import annotations

import http.client
from dataclasses import dataclass, field
from typing import AsyncIterator, Awaitable, Callable, Dict, Iterator, Mapping, Optional, Protocol, Union

from .._calls._core import Clock, RetryState, logger
from .._calls._errors import ApiConnectionError, NetworkError, RequestTimeoutError
from .._http._response import Response
from .._http._transport_types import HttpRequest, HttpResponse, Request

class SyncTransport(Protocol):
    """What `Client(transport=...)` takes."""

    def handle_request(self, request: HttpRequest) -> HttpResponse: ...


class AsyncTransport(Protocol):
    """What `AsyncClient(transport=...)` takes."""

    async def handle_async_request(self, request: HttpRequest) -> HttpResponse: ...


@dataclass
class BufferedStream:
    """An event stream answered in one piece by an injected transport."""

    response: Response
    content: bytes

    def chunks(self) -> Iterator[bytes]:
        if self.content:
            yield self.content

    def close(self) -> None:
        self.content = b""


@dataclass
class AsyncBufferedStream(BufferedStream):
    async def chunks(self) -> AsyncIterator[bytes]:  # type: ignore[override]
        if self.content:
            yield self.content

    async def close(self) -> None:  # type: ignore[override]
        self.content = b""


Told = Optional[Callable[[Request, Dict[str, str]], None]]


def _http_request(request: Request, authenticate: Callable[[Dict[str, str]], None], on_request: Told) -> HttpRequest:
    headers = dict(request.headers)
    authenticate(headers)
    if on_request is not None:
        on_request(request, headers)  # event_hooks["request"], redacted for them
    payload = request.body.payload()
    content = payload if isinstance(payload, bytes) else b"".join(bytes(p) for p in payload or [])
    return HttpRequest(request.method, request.url, headers, content, request.timeout)


def _response(request: Request, answer: HttpResponse) -> Response:
    if not isinstance(answer, HttpResponse):
        raise TypeError(f"a transport answers an analysis_api.HttpResponse, not {type(answer).__name__}")
    message = http.client.HTTPMessage()
    for name, value in answer.headers.items():
        message[name] = value
    response = Response(request.method, request.path, answer.status, answer.reason or http.client.responses.get(answer.status, ""), message)
    response.content = answer.content
    return response


class _Injected:
    """The retry loop around a caller's transport; `exchange` is one attempt."""

    def __init__(self, *, authenticate: Callable[[Dict[str, str]], None], on_response: Callable[[Response], None], clock: Clock,
                 on_request: Told = None) -> None:
        self._authenticate = authenticate
        self._on_request = on_request
        self._on_response = on_response
        self._clock = clock

    def _failed(self, state: RetryState, error: Union[OSError, ApiConnectionError]) -> float:
        """The wait before the next attempt, or the error to raise. An `ApiConnectionError` (what `HTTPTransport`
        raises when no answer came) is a failed attempt too, raised as it is once retries are spent."""
        cause = error.__cause__ if isinstance(error, ApiConnectionError) else error
        wait = state.after_failure(error, sent=not isinstance(cause, ConnectionRefusedError))
        if wait is None:
            if isinstance(error, ApiConnectionError):
                raise error
            request = state.request
            if isinstance(error, TimeoutError):
                raise RequestTimeoutError(request.method, request.path, 0.0, "response (the transport's timeout)") from error
            raise NetworkError(request.method, request.path, f"no response ({type(error).__name__}: {error})") from error
        logger.info("%s %s: %s; retrying in %.2f s", state.request.method, state.request.path, type(error).__name__, wait)
        return wait

    def _answered(self, state: RetryState, response: Response, stream: bool) -> Optional[float]:
        """None when `response` is the answer, else the wait before the next attempt."""
        self._on_response(response)
        if stream and response.ok:
            return None
        return state.after_response(response)


class InjectedTransport(_Injected):
    def __init__(self, transport: SyncTransport, *, authenticate: Callable[[Dict[str, str]], None], on_response: Callable[[Response], None], clock: Clock,
                 on_request: Told = None) -> None:
        super().__init__(authenticate=authenticate, on_response=on_response, clock=clock, on_request=on_request)
        if not callable(getattr(transport, "handle_request", None)):
            raise TypeError("transport= must have a handle_request(request) method (see analysis_api.SyncTransport)")
        self._transport = transport

    def send(self, request: Request, *, stream_idle_timeout: Optional[float] = None, stream: bool = False) -> Union[Response, BufferedStream]:
        state = RetryState(request, self._clock)
        while True:
            state.begin()
            try:
                response = _response(request, self._transport.handle_request(_http_request(request, self._authenticate, self._on_request)))
            except (OSError, ApiConnectionError) as e:
                self._clock.sleep(self._failed(state, e))
                continue
            wait = self._answered(state, response, stream)
            if wait is None:
                state.done(response)
                return BufferedStream(response, response.content) if stream and response.ok else response
            self._clock.sleep(wait)

    def close(self) -> None:
        close = getattr(self._transport, "close", None)
        if callable(close):
            close()


class AsyncInjectedTransport(_Injected):
    def __init__(self, transport: AsyncTransport, *, sleep: Callable[[float], Awaitable[None]], authenticate: Callable[[Dict[str, str]], None],
                 on_response: Callable[[Response], None], clock: Clock, on_request: Told = None) -> None:
        super().__init__(authenticate=authenticate, on_response=on_response, clock=clock, on_request=on_request)
        if not callable(getattr(transport, "handle_async_request", None)):
            raise TypeError("transport= must have an async handle_async_request(request) method (see analysis_api.AsyncTransport)")
        self._transport = transport
        self._sleep = sleep

    async def send(self, request: Request, *, stream: bool = False, stream_idle_timeout: Optional[float] = None) -> Union[Response, AsyncBufferedStream]:
        state = RetryState(request, self._clock)
        while True:
            state.begin()
            try:
                response = _response(request, await self._transport.handle_async_request(_http_request(request, self._authenticate, self._on_request)))
            except (OSError, ApiConnectionError) as e:
                await self._sleep(self._failed(state, e))
                continue
            wait = self._answered(state, response, stream)
            if wait is None:
                state.done(response)
                return AsyncBufferedStream(response, response.content) if stream and response.ok else response
            await self._sleep(wait)

    async def aclose(self) -> None:
        close = getattr(self._transport, "aclose", None)
        if callable(close):
            await close()
