"""`File`: a file field with its name and content type given explicitly (issue 34)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import IO, Optional, Union


@dataclass(frozen=True)
class File:
    """A file field of a multipart body: `File(Path("call"), content_type="audio/wav")`.

    `content`: bytes, a binary file object or a `pathlib.Path`. `filename`: the part's file name (default: the
    path's or the file object's name, else the field's name). `content_type`: the part's `Content-Type` (default:
    guessed from the file name by `mimetypes`, else `application/octet-stream`)."""

    content: Union[bytes, bytearray, memoryview, IO[bytes], PurePath]
    filename: Optional[str] = None
    content_type: Optional[str] = None
