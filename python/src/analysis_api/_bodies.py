"""Request bodies, encoded by the media type the contract gives the operation: JSON, form fields, multipart
form data, or raw bytes.

Multipart is encoded by hand: the standard library has no multipart/form-data encoder (`email.mime` writes MIME
messages with line folding and headers a form does not use). Fields follow OpenAPI's defaults: a file (bytes,
or a (file name, bytes[, content type]) tuple) is a file part, a list repeats the field once per item, an object
is an `application/json` part, anything else a text part.
"""

from __future__ import annotations

import io
import json
import uuid
from dataclasses import dataclass
from typing import Any, Iterable, List, Mapping, Optional, Tuple, Union
from urllib.parse import urlencode


@dataclass
class EncodedBody:
    content: Union[bytes, Iterable[bytes], None]
    content_type: Optional[str]
    streamed: bool = False
    """A caller's stream: sent once as it is read, never buffered or retried."""


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _is_file(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray, memoryview)) or (
        isinstance(value, tuple) and len(value) in (2, 3) and isinstance(value[1], (bytes, bytearray))
    )


def _quoted(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def encode_multipart(fields: Mapping[str, Any]) -> EncodedBody:
    boundary = f"----analysis-api-{uuid.uuid4().hex}"
    out = io.BytesIO()

    def part(name: str, data: bytes, content_type: Optional[str], filename: Optional[str] = None) -> None:
        disposition = f'form-data; name="{_quoted(name)}"' + (f'; filename="{_quoted(filename)}"' if filename is not None else "")
        out.write(f"--{boundary}\r\nContent-Disposition: {disposition}\r\n".encode("utf-8"))
        if content_type:
            out.write(f"Content-Type: {content_type}\r\n".encode("utf-8"))
        out.write(b"\r\n" + data + b"\r\n")

    for name, value in fields.items():
        if value is None:
            continue
        if _is_file(value):
            if isinstance(value, tuple):
                filename, data = str(value[0]), bytes(value[1])
                content_type = str(value[2]) if len(value) == 3 else "application/octet-stream"
            else:
                filename, data, content_type = name, bytes(value), "application/octet-stream"
            part(name, data, content_type, filename)
        elif isinstance(value, (list, tuple)):
            for item in value:
                part(name, _json(item) if isinstance(item, (dict, list)) else _text(item).encode("utf-8"), None)
        elif isinstance(value, dict):
            part(name, _json(value), "application/json")
        else:
            part(name, _text(value).encode("utf-8"), None)
    out.write(f"--{boundary}--\r\n".encode("utf-8"))
    return EncodedBody(out.getvalue(), f"multipart/form-data; boundary={boundary}")


def encode_form(fields: Mapping[str, Any]) -> EncodedBody:
    pairs: List[Tuple[str, str]] = []
    for name, value in fields.items():
        if value is None:
            continue
        items = value if isinstance(value, (list, tuple)) else [value]
        pairs.extend((name, _text(v)) for v in items)
    return EncodedBody(urlencode(pairs).encode("ascii"), "application/x-www-form-urlencoded")


def encode_body(media_type: str, body: Any) -> EncodedBody:
    """Encodes `body` as `media_type`; None sends no body."""
    if body is None:
        return EncodedBody(None, None)
    kind = media_type.split(";")[0].strip().lower()
    if kind == "application/json" or kind.endswith("+json"):
        return EncodedBody(_json(body), media_type)
    if kind == "multipart/form-data":
        return encode_multipart(body)
    if kind == "application/x-www-form-urlencoded":
        return encode_form(body)
    if isinstance(body, (bytes, bytearray, memoryview)):
        return EncodedBody(bytes(body), media_type)
    if isinstance(body, str):
        return EncodedBody(body.encode("utf-8"), f"{media_type}; charset=utf-8" if kind.startswith("text/") else media_type)
    if hasattr(body, "read"):
        file = body

        def chunks() -> Iterable[bytes]:
            while True:
                chunk = file.read(65536)
                if not chunk:
                    return
                yield chunk

        return EncodedBody(chunks(), media_type, streamed=True)
    if isinstance(body, Iterable):
        return EncodedBody(iter(body), media_type, streamed=True)
    raise TypeError(f"a {media_type} body must be bytes, a binary file or an iterable of bytes, not {type(body).__name__}")
