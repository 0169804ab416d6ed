"""Request bodies, encoded by the media type the contract gives the operation: JSON, form fields, multipart
form data, or raw bytes.

Uploads are streamed (decision PY18): a multipart body is a list of segments (the parts' headers as bytes, the
caller's bytes as they are, files read 64 KiB at a time), its Content-Length computed from the segments, so
memory stays flat whatever the file size. A file part is `bytes`, a binary file object, a `pathlib.Path`, or a
`(file name, any of those[, content type])` tuple or a `File`; anything else in a file field raises `TypeError`.

Multipart is encoded by hand: the standard library has no multipart/form-data encoder (`email.mime` writes MIME
messages with line folding and headers a form does not use, and builds the whole message in memory).
"""

from __future__ import annotations

import io
import json
import mimetypes
import os
import uuid
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import IO, Any, Iterable, Iterator, List, Mapping, Optional, Tuple, Union, cast
from urllib.parse import urlencode

from .._file import File

_CHUNK = 65536


class _FileSegment:
    """A file sent as it is read: from its position when the call began, or reopened from its path."""

    def __init__(self, source: Union[IO[bytes], PurePath], where: str) -> None:
        self.path: Optional[PurePath] = source if isinstance(source, PurePath) else None
        self.file: Optional[IO[bytes]] = None if isinstance(source, PurePath) else source
        self.start = 0
        self.length: Optional[int] = None
        if self.path is not None:
            self.length = os.stat(self.path).st_size
            return
        file = cast(IO[bytes], source)
        if isinstance(file, io.TextIOBase) or "b" not in getattr(file, "mode", "b"):
            raise TypeError(f"{where}: a file must be opened in binary mode ('rb'), not text mode")
        try:
            if file.seekable():
                self.start = file.tell()
                self.length = file.seek(0, io.SEEK_END) - self.start
                file.seek(self.start)
        except (OSError, AttributeError, ValueError):
            self.length = None

    @property
    def replayable(self) -> bool:
        return self.path is not None or self.length is not None

    def chunks(self) -> Iterator[bytes]:
        if self.path is not None:
            with open(self.path, "rb") as f:
                yield from _read_all(f)
            return
        assert self.file is not None
        if self.length is not None:
            self.file.seek(self.start)
        yield from _read_all(self.file)


def _read_all(file: IO[bytes]) -> Iterator[bytes]:
    while True:
        chunk = file.read(_CHUNK)
        if not chunk:
            return
        if not isinstance(chunk, (bytes, bytearray)):
            raise TypeError("a file must be opened in binary mode ('rb'): its read() returned text")
        yield bytes(chunk)


Segment = Union[bytes, memoryview, _FileSegment]


@dataclass
class EncodedBody:
    content: Optional[List[Segment]]
    content_type: Optional[str]
    stream: Optional[Iterable[bytes]] = None
    """A caller's iterable of chunks of unknown length: sent once, chunked, never retried."""
    length: Optional[int] = field(default=None)

    def __post_init__(self) -> None:
        if self.content is not None and self.stream is None:
            lengths = [s.length if isinstance(s, _FileSegment) else len(s) for s in self.content]
            self.length = None if any(n is None for n in lengths) else sum(cast(List[int], lengths))

    @property
    def replayable(self) -> bool:
        """Can this body be sent again (on a retry)?"""
        if self.stream is not None:
            return False
        return all(s.replayable for s in self.content or [] if isinstance(s, _FileSegment))

    def payload(self) -> Union[bytes, Iterable[bytes], None]:
        """What to send: bytes when the body is small and in memory, else an iterator over its segments."""
        if self.stream is not None:
            return self.stream
        if self.content is None:
            return None
        if all(isinstance(s, (bytes, memoryview)) for s in self.content) and (self.length or 0) <= 1 << 20:
            return b"".join(cast(List[bytes], self.content))
        return self._iterate()

    def _iterate(self) -> Iterator[bytes]:
        for segment in self.content or []:
            if isinstance(segment, _FileSegment):
                yield from segment.chunks()
            else:
                yield cast(bytes, segment)  # a memoryview of the caller's bytes: no copy


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _quoted(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def _is_file_like(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray, memoryview, PurePath, File)) or hasattr(value, "read")


_MIME: Optional[mimetypes.MimeTypes] = None
_MEDIA_TYPES = {".wav": "audio/wav", ".flac": "audio/flac", ".aac": "audio/aac", ".m4a": "audio/mp4", ".ogg": "audio/ogg",
                ".oga": "audio/ogg", ".opus": "audio/opus", ".mkv": "video/x-matroska", ".webm": "video/webm"}
"""The contract's upload formats (`AnalysisUpload.file`) that Python's table lacks or names differently across
3.9-3.13 (`.flac`, `.m4a`, `.ogg`, `.mkv` are missing from it, `.wav` is `audio/x-wav`)."""


def guess_content_type(filename: str) -> str:
    """The content type of a file name (issue 34): the contract's formats first, then Python's own table
    (`mimetypes.MimeTypes()` leaves out the machine's /etc/mime.types, so a name gives the same type everywhere),
    else `application/octet-stream`."""
    global _MIME
    if _MIME is None:
        _MIME = mimetypes.MimeTypes()
    known = _MEDIA_TYPES.get(os.path.splitext(filename)[1].lower())
    return known or _MIME.guess_type(filename, strict=False)[0] or "application/octet-stream"


def _file_part(name: str, value: Any, content_type: Optional[str] = None) -> Tuple[str, Segment, str]:
    """(file name, content, content type) of a file field; `TypeError` for anything that is not a file."""
    filename: Optional[str] = None
    if isinstance(value, File):
        filename, content_type, value = value.filename, value.content_type or content_type, value.content
    elif isinstance(value, tuple) and len(value) == 2:
        filename, value = str(value[0]), value[1]
    if isinstance(value, tuple) or not _is_file_like(value):
        raise TypeError(
            f"multipart field {name!r}: a file is bytes, a binary file object, a pathlib.Path, a "
            f"(file name, file[, content type]) tuple or a File, not {type(value).__name__}"
        )
    segment: Segment
    if isinstance(value, (bytes, bytearray, memoryview)):
        filename, segment = filename or name, memoryview(value)
    elif isinstance(value, PurePath):
        filename, segment = filename or value.name, _FileSegment(value, f"multipart field {name!r}")
    else:
        default = os.path.basename(str(getattr(value, "name", name)))
        filename, segment = filename or default, _FileSegment(value, f"multipart field {name!r}")
    return filename, segment, content_type or guess_content_type(filename)


def _file_value(name: str, value: Any) -> Tuple[str, Segment, str]:
    if isinstance(value, tuple) and len(value) == 3:
        return _file_part(name, (value[0], value[1]), str(value[2]))
    return _file_part(name, value)


def encode_multipart(fields: Mapping[str, Any], files: Tuple[str, ...] = ()) -> EncodedBody:
    """`files`: the fields the contract types as binary; others may still carry a file (bytes, a file, a path)."""
    boundary = f"----analysis-api-{uuid.uuid4().hex}"
    out: List[Segment] = []

    def part(name: str, data: Segment, content_type: Optional[str], filename: Optional[str] = None) -> None:
        disposition = f'form-data; name="{_quoted(name)}"' + (f'; filename="{_quoted(filename)}"' if filename is not None else "")
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
        out.append((head + (f"Content-Type: {content_type}\r\n" if content_type else "") + "\r\n").encode("utf-8"))
        out.append(data)
        out.append(b"\r\n")

    if not isinstance(fields, Mapping):
        raise TypeError(f"a multipart body is a dict of fields, not {type(fields).__name__}")
    for name, value in fields.items():
        if value is None:
            continue
        if name in files or _is_file_like(value) or (isinstance(value, tuple) and len(value) in (2, 3) and _is_file_like(value[1])):
            filename, segment, content_type = _file_value(name, value)
            part(name, segment, content_type, filename)
        elif isinstance(value, (list, tuple)):
            for item in value:
                part(name, _json(item) if isinstance(item, (dict, list)) else _text(item).encode("utf-8"), None)
        elif isinstance(value, dict):
            part(name, _json(value), "application/json")
        elif isinstance(value, (str, int, float, bool)):
            part(name, _text(value).encode("utf-8"), None)
        else:
            raise TypeError(f"multipart field {name!r}: {type(value).__name__} is neither a file nor a form value")
    out.append(f"--{boundary}--\r\n".encode("utf-8"))
    return EncodedBody(out, f"multipart/form-data; boundary={boundary}")


def encode_form(fields: Mapping[str, Any]) -> EncodedBody:
    pairs: List[Tuple[str, str]] = []
    for name, value in fields.items():
        if value is None:
            continue
        items = value if isinstance(value, (list, tuple)) else [value]
        pairs.extend((name, _text(v)) for v in items)
    return EncodedBody([urlencode(pairs).encode("ascii")], "application/x-www-form-urlencoded")


def _raw(media_type: str, body: Any) -> EncodedBody:
    if isinstance(body, (bytes, bytearray, memoryview)):
        return EncodedBody([memoryview(body)], media_type)
    if isinstance(body, PurePath) or hasattr(body, "read"):
        # A raw body is the stream upload, whose contract asks for chunked transfer coding (length unknown).
        return EncodedBody(None, media_type, stream=_FileSegment(body, f"{media_type} body").chunks())
    if isinstance(body, Iterable) and not isinstance(body, (str, Mapping)):
        return EncodedBody(None, media_type, stream=iter(body))
    raise TypeError(f"a {media_type} body must be bytes, a binary file, a pathlib.Path or an iterable of bytes, not {type(body).__name__}")


def encode_body(media_type: str, body: Any, files: Tuple[str, ...] = ()) -> EncodedBody:
    """Encodes `body` as `media_type`; None sends no body."""
    if body is None:
        return EncodedBody(None, None)
    kind = media_type.split(";")[0].strip().lower()
    if kind == "application/json" or kind.endswith("+json"):
        return EncodedBody([_json(body)], media_type)
    if kind == "multipart/form-data":
        return encode_multipart(body, files)
    if kind == "application/x-www-form-urlencoded":
        return encode_form(body)
    if isinstance(body, str):
        return EncodedBody([body.encode("utf-8")], f"{media_type}; charset=utf-8" if kind.startswith("text/") else media_type)
    return _raw(media_type, body)
