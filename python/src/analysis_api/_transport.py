"""Sending one request: credentials on every attempt, a timeout per attempt, and retries.

Written on `http.client` rather than `urllib.request`: it gives the socket (for the body deadline and for event
streams that must not time out once open), does not follow redirects or read proxy settings from the
environment, and raises nothing for a non-2xx answer. Retries follow the TypeScript client (decisions C3, L7-L9):

- a 429 waits its `Retry-After` (plus jitter) and is sent again; 500, 502, 503, 504, network errors and
  timeouts before the response back off exponentially with equal jitter;
- at most `max_attempts` attempts within `max_elapsed` seconds: a wait that would end after the budget is not
  started, and the last answer is returned (so a daily 429 is raised at once);
- a body cut short, or a timeout while reading the body, is raised and never retried: the server did answer, and
  sending again could repeat a call that is not idempotent; a streamed request body is never retried either.

Each attempt opens its own connection and closes it when done (`Connection: close`): nothing is pooled, so a
client can be shared between threads, and a stale keep-alive connection can never be mistaken for a server error.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union
from urllib.parse import urlsplit

from ._errors import NetworkError, RequestTimeoutError
from ._rate_limit import retry_after_seconds
from ._response import Response

_CHUNK = 65536


@dataclass(frozen=True)
class Retry:
    """The retry policy. `Retry(max_attempts=1)`, or `retry=False` on the client, sends every request once."""

    max_attempts: int = 3
    """Attempts in all, the first included."""
    max_elapsed: float = 60.0
    """Seconds the whole call may take, attempts and waits included: a wait that would end after it is not started."""
    base_delay: float = 0.5
    """First backoff wait in seconds; it doubles on each retry."""
    max_delay: float = 10.0
    """Longest backoff wait (a longer `Retry-After` is still honoured, within `max_elapsed`)."""
    retry_statuses: Tuple[int, ...] = (500, 502, 503, 504)
    """Statuses retried with exponential backoff."""
    retry_rate_limited: bool = True
    """Retry a 429 after its `Retry-After`."""
    retry_network_errors: bool = True
    """Retry connection failures and timeouts that happen before the response."""

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or isinstance(self.max_attempts, bool) or self.max_attempts < 1:
            raise ValueError("Retry.max_attempts must be an integer >= 1")
        for name in ("max_elapsed", "base_delay", "max_delay"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value or value < 0:
                raise ValueError(f"Retry.{name} must be a non-negative number of seconds")

    def backoff(self, n: int, random: Callable[[], float]) -> float:
        """The wait before retry `n` (1 for the first): in [d/2, d), d = min(max_delay, base_delay * 2^(n-1))."""
        d = min(self.max_delay, self.base_delay * 2.0 ** (n - 1))
        return d / 2 + random() * (d / 2)


@dataclass
class Request:
    method: str
    url: str
    path: str
    """The URL's path, for messages and errors (never the query: it may hold a token)."""
    headers: Dict[str, str]
    body: Union[bytes, Iterable[bytes], None] = None
    streamed: bool = False
    """The body is a caller's stream: sent once, never retried."""


@dataclass
class Clock:
    """What the transport waits with; tests inject fakes."""

    sleep: Callable[[float], None]
    monotonic: Callable[[], float]
    random: Callable[[], float]


@dataclass
class _Attempt:
    conn: http.client.HTTPConnection
    raw: http.client.HTTPResponse
    sock: Optional[socket.socket]

    def close(self) -> None:
        self.raw.close()
        self.conn.close()


@dataclass
class StreamedResponse:
    """A 2xx response whose body is left on the connection, to be read as it arrives (event streams)."""

    response: Response
    _attempt: _Attempt
    _closed: bool = field(default=False)

    def chunks(self) -> Iterator[bytes]:
        """The body as it arrives, with no timeout. Raises `OSError`/`http.client.HTTPException` when it breaks."""
        while not self._closed:
            chunk = self._attempt.raw.read1(_CHUNK)
            if not chunk:
                return
            yield chunk

    def close(self) -> None:
        self._closed = True
        self._attempt.close()


def _is_timeout(e: BaseException) -> bool:
    return isinstance(e, (socket.timeout, TimeoutError))


def _retryable_failure(e: BaseException) -> bool:
    # A certificate that does not verify will not verify on the next attempt either.
    return isinstance(e, (OSError, http.client.HTTPException)) and not isinstance(e, ssl.SSLCertVerificationError)


class Transport:
    def __init__(
        self,
        *,
        timeout: Optional[float],
        retry: Optional[Retry],
        authenticate: Callable[[Dict[str, str]], None],
        on_response: Callable[[Response], None],
        clock: Clock,
        ssl_context: Optional[ssl.SSLContext],
    ) -> None:
        self.timeout = timeout
        self.retry = retry
        self._authenticate = authenticate
        self._on_response = on_response
        self._clock = clock
        self._ssl_context = ssl_context

    def _connect(self, url: str) -> Tuple[http.client.HTTPConnection, str]:
        parts = urlsplit(url)
        timeout = self.timeout if self.timeout else None
        if parts.scheme == "https":
            if self._ssl_context is None:
                self._ssl_context = ssl.create_default_context()
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=timeout, context=self._ssl_context
            )
        else:
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
        return conn, (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    def _attempt(self, request: Request) -> _Attempt:
        """Connects, sends, and waits for the response headers; each wait on the network under the timeout."""
        headers = dict(request.headers)
        self._authenticate(headers)
        conn, target = self._connect(request.url)
        try:
            conn.request(request.method, target, body=request.body, headers=headers)
            # Kept before `getresponse`, which drops `conn.sock` when the server will close the connection.
            sock = conn.sock
            return _Attempt(conn, conn.getresponse(), sock)
        except BaseException:
            conn.close()
            raise

    def _read_body(self, request: Request, attempt: _Attempt) -> bytes:
        """The whole body, which must arrive within the timeout of its headers. Never retried when it fails."""
        sock, raw = attempt.sock, attempt.raw
        deadline = self._clock.monotonic() + self.timeout if self.timeout else None
        chunks: List[bytes] = []
        try:
            while True:
                if raw.isclosed():  # http.client closes the response once it has read the declared length
                    return b"".join(chunks)
                if deadline is not None and sock is not None:
                    left = deadline - self._clock.monotonic()
                    if left <= 0:
                        raise socket.timeout()
                    sock.settimeout(left)
                chunk = raw.read1(_CHUNK)
                if not chunk:
                    # `read1` ends quietly when the connection closes before the declared Content-Length.
                    if raw.length:
                        raise http.client.IncompleteRead(b"".join(chunks), raw.length)
                    return b"".join(chunks)
                chunks.append(chunk)
        except (OSError, http.client.HTTPException) as e:
            if _is_timeout(e):
                raise RequestTimeoutError(request.method, request.path, self.timeout or 0, "whole body") from e
            raise NetworkError(request.method, request.path, f"the response body was cut short ({type(e).__name__})") from e
        finally:
            attempt.close()

    def send(self, request: Request, *, stream: bool = False) -> Union[Response, StreamedResponse]:
        """Sends with retries. Returns the final response (2xx or not) with its body read, or, for `stream` and a
        2xx, a `StreamedResponse` whose body is read by the caller. Raises `RequestTimeoutError` or
        `NetworkError` when no response came."""
        retry = None if request.streamed else self.retry
        started = self._clock.monotonic()
        n = 0
        while True:
            n += 1
            attempt: Optional[_Attempt] = None
            failure: Optional[BaseException] = None
            try:
                attempt = self._attempt(request)
            except (OSError, http.client.HTTPException) as e:
                failure = e

            wait: Optional[float] = None
            response: Optional[Response] = None
            if attempt is not None:
                raw = attempt.raw
                response = Response(request.method, request.path, raw.status, raw.reason, raw.headers)
                self._on_response(response)
                if response.ok:
                    if stream:
                        if attempt.sock is not None:
                            attempt.sock.settimeout(None)  # event streams are quiet for long by design
                        return StreamedResponse(response, attempt)
                    response.content = self._read_body(request, attempt)
                    return response
                wait = self._wait_after(retry, n, response)
            elif failure is not None and retry and n < retry.max_attempts and retry.retry_network_errors and _retryable_failure(failure):
                wait = retry.backoff(n, self._clock.random)

            if wait is not None and retry and self._clock.monotonic() - started + wait > retry.max_elapsed:
                wait = None
            if wait is None:
                if response is not None and attempt is not None:
                    response.content = self._read_body(request, attempt)
                    return response
                raise self._failure(request, failure)
            if attempt is not None:
                attempt.close()  # a response we will not hand out
            self._clock.sleep(wait)

    def _wait_after(self, retry: Optional[Retry], n: int, response: Response) -> Optional[float]:
        if not retry or n >= retry.max_attempts:
            return None
        if response.status == 429 and retry.retry_rate_limited:
            after = retry_after_seconds(response.headers)
            return retry.backoff(n, self._clock.random) if after is None else after + self._clock.random() * retry.base_delay
        if response.status in retry.retry_statuses:
            return retry.backoff(n, self._clock.random)
        return None

    def _failure(self, request: Request, failure: Optional[BaseException]) -> Exception:
        if failure is not None and _is_timeout(failure):
            error: Exception = RequestTimeoutError(request.method, request.path, self.timeout or 0)
        else:
            error = NetworkError(request.method, request.path, f"no response ({type(failure).__name__}: {failure})")
        error.__cause__ = failure
        return error
