"""The async front end's I/O: HTTP/1.1 on asyncio streams, with a keep-alive pool like the sync transport's.

Written by hand because the standard library has no async HTTP client (decision PY15): the request head is
written as `http.client` writes it, the response head's fields are read by `_wire.response_fields` (what
`http.client.parse_headers` makes of them), and the body is read by Content-Length, chunked transfer coding, or to
the end of the connection. The retry decisions are the core's (`_core.RetryState`), the same as the sync client's.
"""

from __future__ import annotations

import asyncio
import http.client
import io
import ssl
from dataclasses import dataclass
from typing import AsyncIterator, Awaitable, Callable, Dict, List, Optional, Tuple, TypeVar, Union

from .._calls._core import Clock, RetryState, logger, may_resend, timeout_error
from .._calls._errors import NetworkError
from .._http._response import Response
from .._http._transport_types import Proxy, Request, Timing
from .._http._wire import request_head, response_fields

_Origin = Tuple[str, str, int]
_CHUNK = 65536
_MAX_LINE = 65536
T = TypeVar("T")


@dataclass
class _Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    origin: _Origin

    async def close(self) -> None:
        transport = self.writer.transport
        if transport.get_write_buffer_size():
            transport.abort()  # a request cut short (a timed-out upload): `close` would wait to write the rest first
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except (OSError, asyncio.CancelledError):  # closing a broken connection may fail; it is closed anyway
            pass


async def _within(awaitable: Awaitable[T], timeout: Optional[float]) -> T:
    return await asyncio.wait_for(awaitable, timeout) if timeout else await awaitable


async def _read_head(reader: asyncio.StreamReader, timing: Timing) -> bytes:
    """The response head, line by line, each line under `timing.wait()` (the read timeout or what is left of the
    total): asyncio's reader gives no between-bytes wait, so a line is the unit; 64 KiB at most in all."""
    lines: List[bytes] = []
    size = 0
    while True:
        try:
            line = await _within(reader.readuntil(b"\n"), timing.wait())
        except asyncio.IncompleteReadError as e:
            # A status line cut off by the end of the connection: what `http.client` calls it (issue 49). Nothing
            # at all stays an IncompleteReadError: a kept-alive connection the server had closed (retried).
            if not lines and e.partial:
                raise http.client.BadStatusLine(e.partial.decode("latin-1")) from None
            raise
        lines.append(line)
        size += len(line)
        if size > _MAX_LINE:
            raise asyncio.LimitOverrunError("the response head is over 64 KiB", size)
        if line in (b"\r\n", b"\n") and len(lines) > 1:
            return b"".join(lines)


class _Body:
    """Reads one response body off a connection: by length, chunked, or to the end."""

    def __init__(self, conn: _Conn, method: str, status: int, headers: http.client.HTTPMessage) -> None:
        self.conn = conn
        self.chunked = "chunked" in (headers.get("Transfer-Encoding") or "").lower()
        length = headers.get("Content-Length")
        empty = method == "HEAD" or status in (204, 304) or 100 <= status < 200
        self.left: Optional[int] = 0 if empty else (int(length) if length and length.strip().isdigit() and not self.chunked else None)
        self.to_eof = not self.chunked and self.left is None
        self.keep_alive = not self.to_eof and "close" not in (headers.get("Connection") or "").lower()
        self.done = self.left == 0

    async def read(self, timeout: Optional[float]) -> bytes:
        """The next piece of the body; b"" at its end."""
        reader = self.conn.reader
        if self.done:
            return b""
        if self.chunked:
            size_line = await _within(reader.readuntil(b"\r\n"), timeout)
            size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                while (await _within(reader.readuntil(b"\r\n"), timeout)) != b"\r\n":
                    pass  # trailers
                self.done = True
                return b""
            data = await _within(reader.readexactly(size + 2), timeout)
            return data[:-2]
        if self.left is not None:
            data = await _within(reader.read(min(self.left, _CHUNK)), timeout)
            if not data:
                raise asyncio.IncompleteReadError(b"", self.left)
            self.left -= len(data)
            self.done = self.left == 0
            return data
        data = await _within(reader.read(_CHUNK), timeout)
        self.done = not data
        return data


@dataclass
class AsyncStreamedResponse:
    """A 2xx response whose body is read as it arrives (event streams)."""

    response: Response
    _body: _Body
    idle_timeout: Optional[float]
    on_close: Optional[Callable[[], None]] = None
    """Gives back the stream's place under the client's connection cap."""

    async def chunks(self) -> AsyncIterator[bytes]:
        while True:
            chunk = await self._body.read(self.idle_timeout)
            if not chunk:
                return
            yield chunk

    async def close(self) -> None:
        release, self.on_close = self.on_close, None
        if release is not None:
            release()
        await self._body.conn.close()


class AsyncTransport:
    def __init__(self, *, authenticate: Callable[[Dict[str, str]], None], on_response: Callable[[Response], None], clock: Clock,
                 sleep: Callable[[float], Awaitable[None]], ssl_context: Optional[ssl.SSLContext], max_idle: int = 10,
                 proxy: Optional[Proxy] = None, max_connections: Optional[int] = None,
                 on_request: Optional[Callable[[Request, Dict[str, str]], None]] = None) -> None:
        self._proxy = proxy
        self._on_request = on_request
        self._max_connections = max_connections
        self._slots: Optional[asyncio.Semaphore] = None
        self._authenticate = authenticate
        self._on_response = on_response
        self._clock = clock
        self._sleep = sleep
        self._ssl_context = ssl_context
        self._max_idle = max_idle
        self._idle: Dict[_Origin, List[_Conn]] = {}
        self.closed = False

    async def _checkout(self, origin: _Origin, timeout: Optional[float]) -> Tuple[_Conn, bool]:
        if self.closed:
            raise RuntimeError("this client is closed")
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if not conn.reader.at_eof():
                return conn, True
            await conn.close()
        scheme, host, port = origin
        context: Union[ssl.SSLContext, None] = None
        if scheme == "https":
            context = self._ssl_context = self._ssl_context or ssl.create_default_context()
        proxy = self._proxy
        if proxy is None:
            reader, writer = await _within(asyncio.open_connection(host, port, ssl=context, limit=_MAX_LINE), timeout)
            return _Conn(reader, writer, origin), False
        reader, writer = await _within(asyncio.open_connection(proxy.host, proxy.port, limit=_MAX_LINE), timeout)
        conn = _Conn(reader, writer, origin)
        if context is not None:
            await _within(self._tunnel(conn, host, port, context), timeout)
        return conn, False

    async def _tunnel(self, conn: _Conn, host: str, port: int, context: ssl.SSLContext) -> None:
        """CONNECT through the proxy, then TLS to the service inside the tunnel (`start_tls`: Python 3.11+)."""
        auth = self._proxy.headers if self._proxy else {}
        lines = [f"CONNECT {host}:{port} HTTP/1.1", f"Host: {host}:{port}", *(f"{k}: {v}" for k, v in auth.items())]
        conn.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        head = await conn.reader.readuntil(b"\r\n\r\n")
        status = head.split(b" ", 2)[1:2]
        if status != [b"200"]:
            await conn.close()
            first = head.split(b"\r\n", 1)[0].decode("latin-1")
            raise ConnectionRefusedError(f"the proxy refused the tunnel to {host}:{port} ({first})")
        if not hasattr(conn.writer, "start_tls"):
            await conn.close()
            raise NotImplementedError("AsyncClient reaches an https:// service through a proxy on Python 3.11+ only")
        await conn.writer.start_tls(context, server_hostname=host)

    async def _checkin(self, conn: _Conn, body: _Body) -> None:
        idle = self._idle.setdefault(conn.origin, [])
        if self.closed or not body.keep_alive or len(idle) >= self._max_idle:
            await conn.close()
        else:
            idle.append(conn)

    async def aclose(self) -> None:
        self.closed = True
        conns = [c for idle in self._idle.values() for c in idle]
        self._idle.clear()
        for conn in conns:
            await conn.close()

    async def _write(self, conn: _Conn, head: bytes, request: Request, chunked: bool, timing: Timing) -> None:
        """The head, then the body; a body in pieces is written piece by piece, each drained under `timing.wait()`,
        so a server that takes an upload slowly cannot stretch the attempt past its total."""
        conn.writer.write(head)
        payload = request.body.payload()
        if isinstance(payload, (bytes, bytearray)):
            conn.writer.write(payload)
        elif payload is not None:
            for chunk in payload:  # a file is read in 64 KiB pieces between the writes
                if not chunk:
                    continue  # an empty chunk would end a chunked body
                conn.writer.write(b"%X\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
                await _within(conn.writer.drain(), timing.wait())
            if chunked:
                conn.writer.write(b"0\r\n\r\n")
        await _within(conn.writer.drain(), timing.wait())

    def _head(self, request: Request) -> bytes:
        """The request head of an attempt (credentials added); a `ValueError` for a bad header is the caller's, and
        is raised outside the attempt, whose failures are network errors."""
        headers = dict(request.headers)
        self._authenticate(headers)
        if self._on_request is not None:
            self._on_request(request, headers)  # event_hooks["request"]: the final headers, redacted for them
        target = request.target
        if self._proxy is not None and request.origin[0] == "http":
            target = request.url  # a plain-HTTP proxy is sent the absolute URL
            headers.update(self._proxy.headers)
        body = request.body
        return request_head(request.method, target, request.origin, headers, body.length if body.stream is None else None,
                            body.content is not None or body.stream is not None)

    async def _attempt(self, request: Request, head: bytes, timing: Timing) -> Tuple[_Conn, Response, _Body]:
        scheme, host, port = request.origin
        origin: _Origin = (scheme, host, port or (443 if scheme == "https" else 80))
        body = request.body
        chunked = body.stream is not None or (body.content is not None and body.length is None)
        while True:
            conn, reused = await self._checkout(origin, timing.connect_wait())
            try:
                await self._write(conn, head, request, chunked, timing)
                head_bytes = await _read_head(conn.reader, timing)
            except BaseException as e:
                await conn.close()
                stale = isinstance(e, (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError))
                if reused and stale and body.replayable and may_resend(request):
                    continue
                raise
            status_line, _, rest = head_bytes.partition(b"\r\n")
            version, status, reason = (status_line.decode("latin-1").split(" ", 2) + ["", ""])[:3]
            if not version.startswith("HTTP/") or not status.isdigit():
                await conn.close()
                raise http.client.BadStatusLine(status_line.decode("latin-1"))
            message = response_fields(io.BytesIO(rest))
            response = Response(request.method, request.path, int(status), reason, message)
            return conn, response, _Body(conn, request.method, int(status), message)

    async def _read_body(self, request: Request, conn: _Conn, body: _Body, timing: Timing) -> bytes:
        """The whole body, each wait under the read timeout and all of it within the total. Never retried."""
        chunks: List[bytes] = []
        try:
            while True:
                chunk = await body.read(timing.wait())
                if not chunk:
                    break
                chunks.append(chunk)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, asyncio.TimeoutError) as e:
            await conn.close()
            if isinstance(e, (asyncio.TimeoutError, TimeoutError)):
                raise timeout_error(request, timing, "whole body") from e
            raise NetworkError(request.method, request.path, f"the response body was cut short ({type(e).__name__})") from e
        await self._checkin(conn, body)
        return b"".join(chunks)

    async def send(self, request: Request, *, stream: bool = False, stream_idle_timeout: Optional[float] = None) -> Union[Response, AsyncStreamedResponse]:
        """As `Transport.send`, for asyncio; at most `max_connections` calls (and open event streams) at once,
        the others waiting their turn, so 200 concurrent calls do not open 200 sockets."""
        if self._max_connections is None:
            return await self._send(request, stream, stream_idle_timeout)
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._max_connections)  # made on the loop that uses it (Python 3.9)
        slots = self._slots
        await slots.acquire()
        try:
            result = await self._send(request, stream, stream_idle_timeout)
        except BaseException:
            slots.release()
            raise
        if isinstance(result, AsyncStreamedResponse):
            result.on_close = slots.release
        else:
            slots.release()
        return result

    async def _send(self, request: Request, stream: bool, stream_idle_timeout: Optional[float]) -> Union[Response, AsyncStreamedResponse]:
        state = RetryState(request, self._clock)
        while True:
            state.begin()
            timing = Timing(request.timeout)
            head = self._head(request)
            try:
                conn, response, body = await self._attempt(request, head, timing)
            except _NO_ANSWER as e:
                wait = state.after_failure(e, sent=not isinstance(e, ConnectionRefusedError))
                if wait is None:
                    raise _failure(request, timing, e) from e
                logger.info("%s %s: %s; retrying in %.2f s", request.method, request.path, type(e).__name__, wait)
                await self._sleep(wait)
                continue
            try:
                self._on_response(response)
            except BaseException:
                await conn.close()  # a hook raised (EventHookError): the answer is not read
                raise
            if stream and response.ok:
                return AsyncStreamedResponse(state.done(response), body, stream_idle_timeout)
            wait = state.after_response(response)
            if wait is None:
                response.content = await self._read_body(request, conn, body, timing)
                return state.done(response)
            await conn.close()
            logger.info("%s %s: %s; retrying in %.2f s", request.method, request.path, response.status, wait)
            await self._sleep(wait)


_NO_ANSWER = (OSError, http.client.HTTPException, asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.LimitOverrunError, ValueError)
"""What a failed attempt raises before a response: the same `NetworkError` or `RequestTimeoutError` as the sync
client's (issue 34: a head over 64 KiB raised `LimitOverrunError`, a garbage one `ValueError`)."""


def _failure(request: Request, timing: Timing, failure: BaseException) -> Exception:
    if isinstance(failure, (asyncio.TimeoutError, TimeoutError)):
        return timeout_error(request, timing)
    return NetworkError(request.method, request.path, f"no response ({type(failure).__name__}: {failure})")
