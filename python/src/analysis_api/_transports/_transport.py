"""The sync front end's I/O: `http.client` connections kept alive in a small pool, one attempt at a time; the
retry decisions are the core's (`_core.RetryState`).

Written on `http.client` rather than `urllib.request`: it gives the socket (for the body deadline and the idle
timeout of event streams), keeps a connection open for the next request, does not follow redirects or read
proxy settings from the environment, and raises nothing for a non-2xx answer.

The pool (decision PY16) keeps at most `max_idle` idle connections per origin; a connection goes back only when
its response was read to the end and the server did not say `Connection: close`. A request on a reused
connection that fails before any byte of the answer (the server closed it while idle) is sent once more on a new
connection, when it may be resent (`_core.may_resend`).
"""

from __future__ import annotations

import http.client
import io
import select
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, cast

from .._calls._core import Clock, RetryState, logger, may_resend, timeout_error
from .._calls._errors import NetworkError
from .._http._response import Response
from .._http._transport_types import Proxy, Request, Timing
from .._http._wire import request_head, response_fields

_CHUNK = 65536
_Origin = Tuple[str, str, Optional[int]]


class _TimedSocket:
    """What a response's socket reader (`sock.makefile`'s `SocketIO`) reads through: each `recv_into` waits at
    most `Timing.wait()`, the read timeout or what is left of the attempt's total. `http.client` reads heads and
    bodies through it, so a head or a body trickled a byte at a time is bounded too (issue 34). Put in place of
    `SocketIO._sock` (a private attribute, the same in 3.9-3.13): a wrapping reader in Python cost ~20 µs a call,
    this costs one call per `recv`."""

    __slots__ = ("_sock", "timing")

    def __init__(self, sock: socket.socket, timing: Timing) -> None:
        self._sock, self.timing = sock, timing

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self._sock.settimeout(self.timing.wait())
        return self._sock.recv_into(buffer, nbytes, flags)

    def _decref_socketios(self) -> None:
        self._sock._decref_socketios()  # type: ignore[attr-defined]


class _Reader(io.BufferedReader):
    """A connection's buffered reader, kept from one response to the next. `http.client` makes one per response
    (`sock.makefile`, a few µs of every call); a response closes it when its body is read, which here leaves it
    open for the connection's next response, until the connection itself is closed (`_close`)."""

    def close(self) -> None:
        pass

    def release(self) -> None:
        super().close()


class _Kept:
    """What an `HTTPResponse` is given as its socket: it only calls `makefile`, which answers the kept reader."""

    __slots__ = ("reader", "timed")

    def __init__(self, sock: socket.socket) -> None:
        raw = sock.makefile("rb", buffering=0)
        self.timed = _TimedSocket(sock, Timing(None))
        cast(Any, raw)._sock = self.timed
        self.reader = _Reader(cast(Any, raw), io.DEFAULT_BUFFER_SIZE)

    def makefile(self, mode: str, *args: Any, **kwargs: Any) -> _Reader:
        return self.reader


class _HTTPResponse(http.client.HTTPResponse):
    """`http.client`'s response, its head's fields read by `_wire.response_fields` rather than the email parser
    (decision PY33). `begin` is the standard library's (the same in 3.9-3.13) with that one call changed: it calls
    the module's `parse_headers` directly, so there is nothing smaller to override."""

    def begin(self) -> None:
        if self.headers is not None:
            return
        while True:
            version, status, reason = self._read_status()
            if status != http.client.CONTINUE:
                break
            response_fields(self.fp)  # a 100 Continue's head, skipped
        self.code = self.status = status
        self.reason = reason.strip()
        if version in ("HTTP/1.0", "HTTP/0.9"):
            self.version = 10
        elif version.startswith("HTTP/1."):
            self.version = 11
        else:
            raise http.client.UnknownProtocol(version)
        self.headers = self.msg = response_fields(self.fp)
        self.chunked = (self.headers.get("transfer-encoding") or "").lower() == "chunked"
        if self.chunked:
            self.chunk_left = None
        self.will_close = self._check_close()
        self.length = None
        length = self.headers.get("content-length")
        if length and not self.chunked:
            try:
                self.length = int(length)
            except ValueError:
                pass
            else:
                if self.length < 0:
                    self.length = None
        if status in (http.client.NO_CONTENT, http.client.NOT_MODIFIED) or 100 <= status < 200 or self._method == "HEAD":
            self.length = 0
        if not self.will_close and not self.chunked and self.length is None:
            self.will_close = True


def _response(conn: http.client.HTTPConnection, sock: socket.socket, timing: Timing, method: str) -> http.client.HTTPResponse:
    """The response read off `conn` under `timing`, through the connection's kept reader."""
    kept: Optional[_Kept] = conn.__dict__.get("_analysis_api_kept")
    if kept is None or kept.timed._sock is not sock:
        kept = conn.__dict__["_analysis_api_kept"] = _Kept(sock)
    kept.timed.timing = timing
    return _HTTPResponse(cast(socket.socket, kept), method=method)


def _close(conn: http.client.HTTPConnection) -> None:
    """Closes a connection and its kept reader (which holds the socket open until it is closed)."""
    kept: Optional[_Kept] = conn.__dict__.pop("_analysis_api_kept", None)
    if kept is not None:
        kept.reader.release()
    conn.close()


class _Attempt:
    __slots__ = ("conn", "raw", "sock", "origin", "timing")

    def __init__(self, conn: http.client.HTTPConnection, raw: http.client.HTTPResponse, sock: socket.socket, origin: _Origin, timing: Timing) -> None:
        self.conn, self.raw, self.sock, self.origin, self.timing = conn, raw, sock, origin, timing


@dataclass
class StreamedResponse:
    """A 2xx response whose body is left on the connection, to be read as it arrives (event streams)."""

    response: Response
    _attempt: _Attempt
    idle_timeout: Optional[float] = None
    _closed: bool = field(default=False)

    def chunks(self) -> Iterator[bytes]:
        """The body as it arrives; raises `socket.timeout` after `idle_timeout` seconds without a byte."""
        self._attempt.timing.stream(self.idle_timeout)
        while not self._closed:
            chunk = self._attempt.raw.read1(_CHUNK)
            if not chunk:
                return
            yield chunk

    def close(self) -> None:
        self._closed = True
        self._attempt.raw.close()
        _close(self._attempt.conn)


def _closed_by_peer(conn: http.client.HTTPConnection) -> bool:
    """Has the server closed (or written to) this idle connection? Readable means one of the two, and neither
    leaves it fit for a request: checked without waiting before each reuse, as urllib3 does, so that a write
    without an `Idempotency-Key` is not lost on a connection the server dropped while it was idle."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def is_timeout(e: BaseException) -> bool:
    return isinstance(e, (socket.timeout, TimeoutError))


def _is_stale(e: BaseException) -> bool:
    """A reused connection the server had closed while it was idle."""
    return isinstance(e, (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, ConnectionAbortedError))


def _send(sock: socket.socket, head: bytes, payload: "bytes | Iterable[bytes] | None", chunked: bool, timing: Timing) -> None:
    """Writes a request: the head, then the body; a body sent in pieces (a file, a multipart upload, a stream) is
    written piece by piece, each `sendall` under `timing.wait()` (the read timeout or what is left of the total), so
    a server that takes the body slowly cannot stretch an attempt past its total (issue 34). The socket's timeout
    was set for the first write by the caller."""
    if payload is None:
        sock.sendall(head)
        return
    if isinstance(payload, (bytes, bytearray)):
        sock.sendall(head + payload if len(payload) <= _CHUNK else head)
        if len(payload) > _CHUNK:
            sock.settimeout(timing.wait())
            sock.sendall(payload)
        return
    sock.sendall(head)
    for piece in payload:
        if not piece:
            continue  # an empty chunk would end a chunked body
        sock.settimeout(timing.wait())
        sock.sendall(b"%X\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
    if chunked:
        sock.settimeout(timing.wait())
        sock.sendall(b"0\r\n\r\n")


class Transport:
    def __init__(self, *, authenticate: Callable[[Dict[str, str]], None], on_response: Callable[[Response], None], clock: Clock,
                 ssl_context: Optional[ssl.SSLContext], max_idle: int = 10, proxy: Optional[Proxy] = None,
                 on_request: Optional[Callable[[Request, Dict[str, str]], None]] = None) -> None:
        self._proxy = proxy
        self._on_request = on_request
        self._authenticate = authenticate
        self._on_response = on_response
        self._clock = clock
        self._ssl_context = ssl_context
        self._max_idle = max_idle
        self._idle: Dict[_Origin, List[Tuple[http.client.HTTPConnection, float]]] = {}
        self.check_idle_after = 1.0
        """Seconds idle after which a connection is checked before reuse: servers drop idle connections after
        seconds (Node: 5), and the check is a system call the hot path of back-to-back calls does without."""
        self._lock = threading.Lock()
        self.closed = False

    # ---- the pool ---------------------------------------------------------------------------------------

    def _checkout(self, origin: _Origin, timeout: Optional[float]) -> Tuple[http.client.HTTPConnection, bool]:
        """A pooled connection, or a new one not yet connected (its `timeout` the connect timeout)."""
        with self._lock:
            if self.closed:
                raise RuntimeError("this client is closed")
            idle = self._idle.get(origin)
            while idle:
                conn, since = idle.pop()
                if time.monotonic() - since >= self.check_idle_after and _closed_by_peer(conn):
                    _close(conn)
                    continue
                return conn, True
        scheme, host, port = origin
        proxy = self._proxy
        if scheme == "https":
            if self._ssl_context is None:
                self._ssl_context = ssl.create_default_context()
            if proxy is None:
                return http.client.HTTPSConnection(host, port, timeout=timeout, context=self._ssl_context), False
            # TLS to the service through the proxy's CONNECT tunnel: the proxy sees only the host name.
            tunneled = http.client.HTTPSConnection(proxy.host, proxy.port, timeout=timeout, context=self._ssl_context)
            tunneled.set_tunnel(host, port, headers=proxy.headers)
            return tunneled, False
        if proxy is not None:
            return http.client.HTTPConnection(proxy.host, proxy.port, timeout=timeout), False
        return http.client.HTTPConnection(host, port, timeout=timeout), False

    def _checkin(self, attempt: _Attempt) -> None:
        conn = attempt.conn
        if attempt.raw.will_close or conn.sock is None:
            _close(conn)
            return
        with self._lock:
            idle = self._idle.setdefault(attempt.origin, [])
            if self.closed or len(idle) >= self._max_idle:
                _close(conn)
            else:
                idle.append((conn, time.monotonic()))

    def close(self) -> None:
        """Closes the idle connections; the client sends nothing more."""
        with self._lock:
            self.closed = True
            conns = [c for idle in self._idle.values() for c, _ in idle]
            self._idle.clear()
        for conn in conns:
            _close(conn)

    # ---- one attempt ------------------------------------------------------------------------------------

    def _attempt(self, request: Request, timing: Timing) -> _Attempt:
        """Connects (or reuses), sends, and waits for the response headers; each wait under the timeout."""
        headers = dict(request.headers)
        self._authenticate(headers)
        if self._on_request is not None:
            self._on_request(request, headers)  # event_hooks["request"]: the final headers, redacted for them
        origin, target = request.origin, request.target
        if self._proxy is not None and origin[0] == "http":
            target = request.url  # a plain-HTTP proxy is sent the absolute URL
            headers.update(self._proxy.headers)
        body = request.body
        has_body = body.content is not None or body.stream is not None
        head = request_head(request.method, target, origin, headers, body.length if body.stream is None else None, has_body)
        while True:
            conn, reused = self._checkout(origin, timing.connect_wait())
            raw: Optional[http.client.HTTPResponse] = None
            try:
                if conn.sock is None:
                    conn.connect()  # under the connect timeout (and the total); TLS and a proxy tunnel included
                sock = conn.sock
                assert sock is not None
                sock.settimeout(timing.wait())
                _send(sock, head, body.payload() if has_body else None, body.length is None and has_body, timing)
                raw = _response(conn, sock, timing, request.method)
                raw.begin()
                return _Attempt(conn, raw, sock, origin, timing)
            except BaseException as e:
                if raw is not None:
                    raw.close()  # its reader holds the socket open
                _close(conn)
                if reused and _is_stale(e) and body.replayable and may_resend(request):
                    continue
                raise

    def _read_body(self, request: Request, attempt: _Attempt) -> bytes:
        """The whole body, each wait under the read timeout and all of it within the total. Never retried."""
        try:
            data = attempt.raw.read()
        except (OSError, http.client.HTTPException) as e:
            _close(attempt.conn)
            if is_timeout(e):
                raise timeout_error(request, attempt.timing, "whole body") from e
            raise NetworkError(request.method, request.path, f"the response body was cut short ({type(e).__name__})") from e
        self._checkin(attempt)
        return data

    # ---- a call -----------------------------------------------------------------------------------------

    def send(self, request: Request, *, stream_idle_timeout: Optional[float] = None, stream: bool = False) -> "Response | StreamedResponse":
        """Sends with retries. Returns the final response (2xx or not) with its body read, or, for `stream` and a
        2xx, a `StreamedResponse` whose body is read by the caller. Raises `RequestTimeoutError` or
        `NetworkError` when no response came."""
        state = RetryState(request, self._clock)
        while True:
            state.begin()
            timing = Timing(request.timeout)
            try:
                attempt = self._attempt(request, timing)
            except (OSError, http.client.HTTPException) as e:
                # A refused connection never reached the server; anything later may have.
                wait = state.after_failure(e, sent=not isinstance(e, ConnectionRefusedError))
                if wait is None:
                    raise _failure(request, timing, e) from e
                logger.info("%s %s: %s; retrying in %.2f s", request.method, request.path, type(e).__name__, wait)
                self._clock.sleep(wait)
                continue
            raw = attempt.raw
            response = Response(request.method, request.path, raw.status, raw.reason, raw.headers)
            try:
                self._on_response(response)
            except BaseException:
                raw.close()
                _close(attempt.conn)  # a hook raised (EventHookError): the answer is not read
                raise
            if stream and response.ok:
                return StreamedResponse(state.done(response), attempt, stream_idle_timeout)
            wait = state.after_response(response)
            if wait is None:
                response.content = self._read_body(request, attempt)
                return state.done(response)
            _close(attempt.conn)  # a response we will not hand out
            logger.info("%s %s: %s; retrying in %.2f s", request.method, request.path, response.status, wait)
            self._clock.sleep(wait)


def _failure(request: Request, timing: Timing, failure: BaseException) -> Exception:
    if is_timeout(failure):
        return timeout_error(request, timing)
    return NetworkError(request.method, request.path, f"no response ({type(failure).__name__}: {failure})")
