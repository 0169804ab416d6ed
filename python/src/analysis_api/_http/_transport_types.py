"""What the core and both transports share: the retry policy and a prepared request."""

from __future__ import annotations

from dataclasses import dataclass, field
from time import monotonic as _monotonic
from typing import TYPE_CHECKING, Callable, Dict, Mapping, Optional, Tuple

if TYPE_CHECKING:
    from ._bodies import EncodedBody


@dataclass(frozen=True)
class Retry:
    """The retry policy. `Retry(max_attempts=1)`, or `retry=False`, sends every request once."""

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
    """Retry connection failures and timeouts that happen before the response (a write without an
    `Idempotency-Key` only when its request was not sent)."""

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


@dataclass(frozen=True)
class Timeout:
    """Deadlines of one attempt (issue 34), in seconds; None waits forever.

    - `connect`: to open the connection (TCP, proxy tunnel, TLS).
    - `read`: the longest wait for the next bytes from the service, headers and body alike (and for the socket to
      take the next bytes of the request).
    - `total`: the whole attempt, from connecting to the last byte of the answer; a retry starts a new one.

    `timeout=10` is `Timeout(connect=10, read=10, total=10)`. An event stream's body is bounded by
    `stream_idle_timeout` instead of `read` and `total`."""

    connect: Optional[float] = None
    read: Optional[float] = None
    total: Optional[float] = None

    def __post_init__(self) -> None:
        for name in ("connect", "read", "total"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool) or value != value or value <= 0):
                raise ValueError(f"Timeout.{name} must be a positive number of seconds, or None to wait forever (got {value!r})")


class Timing:
    """The deadlines of one attempt as it runs: each wait on the network is `wait()` seconds, the smaller of the
    read timeout and what is left of the total. On the real clock (`time.monotonic`), as the sockets wait. Called
    before every `recv`, so kept to a subtraction and a comparison."""

    __slots__ = ("read", "connect", "deadline", "total", "under")

    def __init__(self, timeout: Optional[Timeout]) -> None:
        self.read = self.connect = self.total = self.deadline = None
        if timeout is not None:
            self.read, self.connect, self.total = timeout.read, timeout.connect, timeout.total
            if self.total is not None:
                self.deadline = _monotonic() + self.total
        self.under = "read"
        """The limit the last wait was under (for the error): `connect`, `read` or `total`."""

    @property
    def limit(self) -> Tuple[str, float]:
        """The limit the last wait was under, and its seconds."""
        return self.under, getattr(self, self.under) or 0.0

    def wait(self, connect: bool = False) -> Optional[float]:
        """Seconds the next wait may take; `TimeoutError` once the total has passed."""
        wait = self.connect if connect else self.read
        self.under = "connect" if connect else "read"
        if self.deadline is None:
            return wait
        left = self.deadline - _monotonic()
        if left <= 0:
            self.under = "total"
            raise TimeoutError("the attempt's total timeout passed")
        if wait is None or left < wait:
            self.under = "total"
            return left
        return wait

    def connect_wait(self) -> Optional[float]:
        return self.wait(True)

    def stream(self, idle: Optional[float]) -> None:
        """An event stream's body: each wait is the idle timeout, with no total."""
        self.read, self.deadline = idle, None


@dataclass
class Request:
    method: str
    url: str
    path: str
    """The URL's path, for messages and errors (never the query: it may hold a token)."""
    headers: Dict[str, str]
    body: "EncodedBody"
    timeout: Optional[Timeout] = None
    retry: Optional[Retry] = None
    origin: Tuple[str, str, Optional[int]] = ("", "", None)
    """(scheme, host, port): the connection pool's key."""
    target: str = "/"
    """The request target: path and query."""


@dataclass(frozen=True)
class Proxy:
    """An HTTP proxy (`proxy="http://user:password@proxy.internal:3128"`): plain-HTTP requests are sent to it with
    their absolute URL, HTTPS ones through a CONNECT tunnel. Never read from the environment."""

    host: str
    port: int
    headers: Dict[str, str]
    """`Proxy-Authorization` when the URL carries credentials."""

    @staticmethod
    def parse(url: str) -> "Proxy":
        import base64
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError("proxy must be an http:// URL with a host, e.g. http://proxy.internal:3128")
        headers: Dict[str, str] = {}
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode("utf-8")
            headers["Proxy-Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        return Proxy(parts.hostname, parts.port or 80, headers)

    def __repr__(self) -> str:
        return f"Proxy({self.host}:{self.port})"  # never the credentials


@dataclass
class HttpRequest:
    """One attempt as it goes on the wire: the absolute URL, every header (credentials included) and the body. What
    a transport of the caller's own is handed (`transport=`), and what `event_hooks["request"]` are told (there with
    the credentials redacted). `timeout`: the call's `Timeout`, which `HTTPTransport` applies (None: none given)."""

    method: str
    url: str
    headers: Dict[str, str]
    content: bytes = b""
    timeout: Optional[Timeout] = None


@dataclass
class HttpResponse:
    """What a transport answers: a status, headers and the whole body (as received: a `Content-Encoding` is undone
    by the client, not the transport)."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    content: bytes = b""
    reason: str = ""
