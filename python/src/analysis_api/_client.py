"""The client: credentials, the operations of the contract as methods, pagination, event streams and token URLs.

A method returns the answer's JSON (typed by `analysis_api.models`) and raises a typed `ApiError` for any other
status than 2xx. The rate-limit headers of every response are in `client.last_rate_limit` (per thread) and are
told to `on_rate_limit`, retried 429s included.
"""

from __future__ import annotations

import copy
import random as _random
import re
import ssl
import threading
import time
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Union

from . import __version__
from ._bodies import encode_body
from ._errors import CredentialsError, ProtocolError, to_api_error
from ._operations import API_KEY_HEADER, Operations
from ._rate_limit import RateLimit, rate_limit_of
from ._response import Response
from ._runtime import Operation
from ._sse import iterate_events
from ._transport import Clock, Request, Retry, StreamedResponse, Transport
from ._urls import check_base_url, header_params, operation_url, with_token

AUTHORIZATION_HEADER = "Authorization"

TokenSource = Union[str, Callable[[], str]]
"""A bearer JWT, or a function giving a fresh one (called before every attempt; it may cache)."""

_HEADER_SAFE = re.compile(r"^[\x21-\x7e]+$")
_UNSET: Any = object()


def _checked(name: str, value: object) -> str:
    if not isinstance(value, str) or not _HEADER_SAFE.match(value):
        # The value itself is never part of the message.
        raise CredentialsError(f"{name} must be a non-empty string of visible ASCII characters without spaces")
    return value


class _Credentials:
    """Where the credentials go; the names are the contract's security schemes (`ApiKeyAuth`, `BearerAuth`)."""

    def __init__(self, api_key: Optional[str], token: Optional[TokenSource]) -> None:
        if api_key is not None and token is not None:
            raise CredentialsError("pass either api_key (server-to-server) or token (a user's JWT), not both")
        if api_key is None and token is None:
            raise CredentialsError(
                "no credentials: pass api_key (sent as X-API-Key) or token (a JWT, or a function returning one, "
                "sent as Authorization: Bearer)"
            )
        if api_key is not None:
            _checked("api_key", api_key)
        elif isinstance(token, str):
            _checked("token", token)
        elif not callable(token):
            raise CredentialsError("token must be a string or a function returning one")
        self._api_key = api_key
        self._token = token

    def query_token(self) -> str:
        """The credential for the `token` query parameter."""
        if self._api_key is not None:
            return self._api_key
        token = self._token
        return _checked("token", token) if isinstance(token, str) else _checked("the token function's result", token() if token else None)

    def authenticate(self, headers: Dict[str, str]) -> None:
        if self._api_key is not None:
            headers[API_KEY_HEADER] = self._api_key
        else:
            headers[AUTHORIZATION_HEADER] = f"Bearer {self.query_token()}"


class _Shared(threading.local):
    last_rate_limit: Optional[RateLimit] = None


class Client(Operations):
    """A client of the analysis API.

    `Client(base_url="https://api.example.com", api_key="pk_live_...")` for server-to-server work (sent as
    `X-API-Key`), or `token=` a JWT or a function returning a fresh one (sent as `Authorization: Bearer`).
    Missing credentials raise `CredentialsError` here, before any request.

    - `timeout`: seconds per attempt for connecting and for each wait on the response, and for the whole body
      once the headers are in (an event stream is timed only while it opens). Default 30; None or 0 waits forever.
    - `retry`: a `Retry` policy (default: 3 attempts within 60 s), or False to send every request once.
    - `on_rate_limit(rate_limit, response)`: told the `X-RateLimit-*` headers of every response that carries
      them, retried attempts included; `response`'s body is not read yet.
    - `max_stream_reconnects`: how often an event stream is reopened in a row before `StreamError`. Default 5.
    - `sleep`, `monotonic`, `random`: the clock retries wait on (tests inject fakes).
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        token: Optional[TokenSource] = None,
        timeout: Optional[float] = 30.0,
        retry: Union[Retry, bool] = True,
        on_rate_limit: Optional[Callable[[RateLimit, Response], None]] = None,
        headers: Optional[Mapping[str, str]] = None,
        max_stream_reconnects: int = 5,
        ssl_context: Optional[ssl.SSLContext] = None,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self.base_url = check_base_url(base_url)
        self._credentials = _Credentials(api_key, token)
        if on_rate_limit is not None and not callable(on_rate_limit):
            raise TypeError("on_rate_limit must be a function (rate_limit, response) -> None")
        self._on_rate_limit = on_rate_limit
        self._headers = {"User-Agent": f"analysis-api-python/{__version__}", "Connection": "close", **(headers or {})}
        self._clock = Clock(sleep, monotonic, random)
        self._shared = _Shared()
        self.max_stream_reconnects = max_stream_reconnects
        self._transport = Transport(
            timeout=_checked_timeout(timeout),
            retry=_resolve_retry(retry),
            authenticate=self._credentials.authenticate,
            on_response=self._on_response,
            clock=self._clock,
            ssl_context=ssl_context,
        )

    @property
    def last_rate_limit(self) -> Optional[RateLimit]:
        """The rate-limit headers of the last response this thread received from this client (None before any)."""
        return self._shared.last_rate_limit

    def with_options(self, *, timeout: Optional[float] = _UNSET, retry: Union[Retry, bool] = _UNSET) -> "Client":
        """A copy of this client with another timeout or retry policy, e.g. `client.with_options(retry=False)`.
        It shares the credentials, hooks and `last_rate_limit`."""
        clone = copy.copy(self)
        clone._transport = copy.copy(self._transport)
        if timeout is not _UNSET:
            clone._transport.timeout = _checked_timeout(timeout)
        if retry is not _UNSET:
            clone._transport.retry = _resolve_retry(retry)
        return clone

    def _on_response(self, response: Response) -> None:
        rate_limit = rate_limit_of(response)
        if rate_limit is None:
            return
        self._shared.last_rate_limit = rate_limit
        if self._on_rate_limit is not None:
            self._on_rate_limit(rate_limit, response)

    # ---- what the generated methods call ----------------------------------------------------------------

    def _request(self, op: Operation, args: Dict[str, Any], body: Any = None, accept: Optional[str] = None) -> Request:
        url = operation_url(self.base_url, op, args)
        headers = {**self._headers, **header_params(op, args)}
        if accept:
            headers["Accept"] = accept
        encoded = encode_body(op.body, body) if op.body else None
        if encoded is not None and encoded.content_type:
            headers["Content-Type"] = encoded.content_type
        path = url[len(self.base_url) :].split("?", 1)[0]
        return Request(
            op.method,
            url,
            path,
            headers,
            encoded.content if encoded else None,
            streamed=encoded.streamed if encoded else False,
        )

    def _call(self, op: Operation, args: Dict[str, Any], body: Any = None) -> Any:
        response = self._transport.send(self._request(op, args, body))
        assert isinstance(response, Response)
        if not response.ok:
            raise to_api_error(response)
        if not response.content:
            return None
        if "json" in response.content_type.lower():
            try:
                return response.json()
            except ValueError:
                raise ProtocolError(f"{response.method} {response.path} answered {response.status} with a body that is not JSON") from None
        return response.text()

    def _paginate(self, op: Operation, args: Dict[str, Any]) -> Iterator[Any]:
        cursor = args.get("cursor")
        while True:
            page = self._call(op, {**args, "cursor": cursor})
            if not (isinstance(page, dict) and isinstance(page.get("data"), list) and isinstance(page.get("has_more"), bool)):
                raise ProtocolError(f"{op.method} {op.path} did not answer a list page ({{data, next_cursor, has_more}})")
            yield from page["data"]
            if not page["has_more"]:
                return
            following = page.get("next_cursor")
            if not isinstance(following, str) or following == cursor:
                raise ProtocolError(f"{op.method} {op.path} answered has_more without a new next_cursor; stopping instead of looping")
            cursor = following

    def _events(self, op: Operation, args: Dict[str, Any]) -> Iterator[Any]:
        def open_stream(last_event_id: Optional[str]) -> StreamedResponse:
            request = self._request(op, args, accept="text/event-stream")
            if last_event_id is not None:
                request.headers["Last-Event-ID"] = last_event_id
            response = self._transport.send(request, stream=True)
            if isinstance(response, Response):
                raise to_api_error(response)
            return response

        retry = self._transport.retry or Retry()

        def wait(failures: int, server_retry_ms: Optional[int]) -> None:
            seconds = server_retry_ms / 1000 if server_retry_ms is not None else retry.backoff(failures, self._clock.random)
            self._clock.sleep(seconds)

        # The standard SSE resume header; the contract declares it as a header parameter of the operation.
        resume = next((p.arg for p in op.params if p.location == "header" and p.name.lower() == "last-event-id"), None)
        what = f"the event stream {op.method} {operation_url('', op, args).split('?', 1)[0]}"
        return iterate_events(open_stream, op.events, args.get(resume) if resume else None, self.max_stream_reconnects, wait, what)

    def _token_url(self, op: Operation, args: Dict[str, Any]) -> str:
        return with_token(operation_url(self.base_url, op, args), self._credentials.query_token(), op.kind == "websocket")


def _checked_timeout(timeout: Optional[float]) -> Optional[float]:
    if timeout is None or timeout == 0:
        return None
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout != timeout or timeout < 0:
        raise ValueError("timeout must be a non-negative number of seconds, or None")
    return float(timeout)


def _resolve_retry(retry: Union[Retry, bool]) -> Optional[Retry]:
    if retry is True:
        return Retry()
    if retry is False:
        return None
    if not isinstance(retry, Retry):
        raise TypeError("retry must be a Retry policy, True (the default policy) or False (send once)")
    return None if retry.max_attempts == 1 else retry
