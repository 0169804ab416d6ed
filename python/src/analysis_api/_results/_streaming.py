"""`with_streaming_response` (issue 49, decision PY40), as openai-python's: the call is sent when its `with` block
starts, the body stays on the connection until it is read, and the connection is closed when the block ends.

    with client.with_streaming_response.analyses.get(analysis_id) as response:
        print(response.status_code, response.request_id)
        for piece in response.iter_bytes(): ...        # or iter_lines(), read(), parse() (the model)

`AsyncStreamingResponse` is the asyncio twin (`async with`, `aiter_bytes()`, `aiter_lines()`, `await read()`,
`await parse()`). A status other than 2xx raises its typed `ApiError` when the block starts, after the client's
retries, as a plain call does. A `Content-Encoding: gzip` body is undone as it streams.
"""

from __future__ import annotations

import asyncio
import codecs
import http.client
import re
import zlib
from typing import Any, AsyncIterator, Awaitable, Callable, Generic, Iterator, List, Optional, Protocol, TypeVar, cast

from .._calls._errors import NetworkError, RequestTimeoutError
from .._http._response import Response
from ._raw import AnswerHead

T = TypeVar("T")

_BROKEN = (OSError, http.client.HTTPException, EOFError, asyncio.TimeoutError, ValueError)
"""What reading a body off a connection raises when it breaks (a timeout included)."""


class _SyncBody(Protocol):
    response: Response

    def chunks(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


class _AsyncBody(Protocol):
    response: Response

    def chunks(self) -> AsyncIterator[bytes]: ...

    async def close(self) -> None: ...


class _Feeder(Protocol):
    def feed(self, chunk: bytes, final: bool = False) -> List[str]: ...


class _Decoder:
    """Undoes a gzip `Content-Encoding` piece by piece (nothing for an identity body)."""

    def __init__(self, response: Response) -> None:
        gzipped = (response.lower_headers.get("content-encoding") or "").lower() == "gzip"
        self._inflate = zlib.decompressobj(wbits=31) if gzipped else None

    def feed(self, chunk: bytes) -> List[bytes]:
        piece = chunk if self._inflate is None else self._inflate.decompress(chunk)
        return [piece] if piece else []

    def end(self) -> List[bytes]:
        tail = b"" if self._inflate is None else self._inflate.flush()
        return [tail] if tail else []


class _Text:
    """UTF-8 text out of bytes as they come (a character split across pieces is kept for the next)."""

    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, chunk: bytes, final: bool = False) -> List[str]:
        text = self._text.decode(chunk, final)
        return [text] if text else []


class _Lines:
    """Text lines out of bytes as they come: UTF-8 decoded across pieces, split on `\\n`, `\\r\\n` or `\\r`, without
    their endings (as httpx's `iter_lines`)."""

    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""

    def feed(self, chunk: bytes, final: bool = False) -> List[str]:
        text = self._pending + self._text.decode(chunk, final)
        held = ""
        if not final and text.endswith("\r"):
            text, held = text[:-1], "\r"  # maybe the first half of a `\r\n`
        parts = _NEWLINE.split(text)
        if final:
            self._pending = ""
            return parts if parts[-1] else parts[:-1]
        self._pending = parts.pop() + held
        return parts


_NEWLINE = re.compile(r"\r\n|\r|\n")


def _broken(response: Response, error: BaseException, read_timeout: Optional[float]) -> Exception:
    if isinstance(error, (TimeoutError, asyncio.TimeoutError)):
        return RequestTimeoutError(response.method, response.path, read_timeout or 0.0, "next piece of the body (read timeout)")
    return NetworkError(response.method, response.path, f"the response body was cut short ({type(error).__name__})")


class _Base(AnswerHead, Generic[T]):
    """The head of a streamed answer, and what both twins keep: the body once read whole, whether it was iterated."""

    _NAME = "client.with_streaming_response"

    def __init__(self, parse: Callable[[Response], Any], read_timeout: Optional[float]) -> None:
        self._parse = parse
        self._read_timeout = read_timeout
        self._response: Optional[Response] = None
        self._content: Optional[bytes] = None
        self._consumed = False
        self._closed = False

    @property
    def response(self) -> Response:
        """The answer's `Response` (status, headers, `method`, `path`); its `content` stays empty."""
        return self._head()

    def _head(self) -> Response:
        if self._response is None:
            raise RuntimeError(f"the call is sent when its block starts: use `with {self._NAME}.<resource>.<method>(...) as response:`")
        return self._response

    @property
    def is_closed(self) -> bool:
        """Has the connection been closed (the block ended, or `close()`)?"""
        return self._closed

    def _start(self) -> Optional[_Decoder]:
        """The decoder of a first walk of the body, None to give the body `read()` kept; refuses a second walk."""
        if self._content is not None:
            return None
        if self._consumed or self._closed:
            raise RuntimeError("the body was already read or the response closed: call read() first to keep it, then parse()")
        response = self._head()  # raises outside the block
        self._consumed = True
        return _Decoder(response)

    def _parsed(self, content: bytes) -> T:
        response = self.response
        response.content, response.decoded = content, True
        return cast(T, self._parse(response))

    def __repr__(self) -> str:
        if self._response is None:
            return f"<{type(self).__name__} not sent>"
        return f"<{type(self).__name__} {self._response.status} {self._response.method} {self._response.path}>"


class StreamingResponse(_Base[T]):
    """A call's answer whose body is read as it arrives; see the module's docs."""

    def __init__(self, open: Callable[[], _SyncBody], parse: Callable[[Response], Any], read_timeout: Optional[float]) -> None:
        super().__init__(parse, read_timeout)
        self._open = open
        self._body: Optional[_SyncBody] = None

    def __enter__(self) -> "StreamingResponse[T]":
        if self._body is not None or self._closed:
            raise RuntimeError("a streaming response is used in one `with` block")
        self._body = self._open()
        self._response = self._body.response
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (the body not read is dropped)."""
        self._closed = True
        if self._body is not None:
            self._body.close()

    def iter_bytes(self) -> Iterator[bytes]:
        """The body's bytes as they arrive (gzip undone); once, unless `read()` kept them."""
        decoder = self._start()
        if decoder is None or self._body is None:
            yield cast(bytes, self._content)
            return
        try:
            for chunk in self._body.chunks():
                yield from decoder.feed(chunk)
            tail = decoder.end()
        except _BROKEN as e:
            raise _broken(self.response, e, self._read_timeout) from e
        yield from tail

    def iter_text(self) -> Iterator[str]:
        """The body as UTF-8 text, piece by piece."""
        return self._fed(_Text())

    def iter_lines(self) -> Iterator[str]:
        """The body's lines as they arrive, without their line endings."""
        return self._fed(_Lines())

    def _fed(self, into: "_Feeder") -> Iterator[str]:
        for chunk in self.iter_bytes():
            yield from into.feed(chunk)
        yield from into.feed(b"", True)

    def read(self) -> bytes:
        """The whole body (kept: a second `read()` or `parse()` gives it again)."""
        if self._content is None:
            self._content = b"".join(self.iter_bytes())
        return self._content

    def text(self) -> str:
        return self.read().decode("utf-8", errors="replace")

    def parse(self) -> T:
        """The result the plain method returns: the model of the JSON (or its text, or None)."""
        return self._parsed(self.read())


class AsyncStreamingResponse(_Base[T]):
    """The asyncio twin of `StreamingResponse`: `async with`, `aiter_bytes()`, `await parse()`."""

    _NAME = "client.with_streaming_response (async with)"

    def __init__(self, open: Callable[[], Awaitable[_AsyncBody]], parse: Callable[[Response], Any], read_timeout: Optional[float]) -> None:
        super().__init__(parse, read_timeout)
        self._open = open
        self._body: Optional[_AsyncBody] = None

    async def __aenter__(self) -> "AsyncStreamingResponse[T]":
        if self._body is not None or self._closed:
            raise RuntimeError("a streaming response is used in one `async with` block")
        self._body = await self._open()
        self._response = self._body.response
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the connection (the body not read is dropped)."""
        self._closed = True
        if self._body is not None:
            await self._body.close()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (gzip undone); once, unless `read()` kept them."""
        decoder = self._start()
        if decoder is None or self._body is None:
            yield cast(bytes, self._content)
            return
        try:
            async for chunk in self._body.chunks():
                for piece in decoder.feed(chunk):
                    yield piece
            tail = decoder.end()
        except _BROKEN as e:
            raise _broken(self.response, e, self._read_timeout) from e
        for piece in tail:
            yield piece

    def aiter_text(self) -> AsyncIterator[str]:
        """The body as UTF-8 text, piece by piece."""
        return self._fed(_Text())

    def aiter_lines(self) -> AsyncIterator[str]:
        """The body's lines as they arrive, without their line endings."""
        return self._fed(_Lines())

    async def _fed(self, into: "_Feeder") -> AsyncIterator[str]:
        async for chunk in self.aiter_bytes():
            for piece in into.feed(chunk):
                yield piece
        for piece in into.feed(b"", True):
            yield piece

    async def read(self) -> bytes:
        """The whole body (kept: a second `read()` or `parse()` gives it again)."""
        if self._content is None:
            pieces: List[bytes] = [piece async for piece in self.aiter_bytes()]
            self._content = b"".join(pieces)
        return self._content

    async def text(self) -> str:
        return (await self.read()).decode("utf-8", errors="replace")

    async def parse(self) -> T:
        """The result the plain method returns: the model of the JSON (or its text, or None)."""
        return self._parsed(await self.read())
