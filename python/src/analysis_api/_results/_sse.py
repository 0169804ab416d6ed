"""Server-Sent Events: a parser that follows the WHATWG HTML standard ("Parsing an event stream"), and the typed
events of an event-stream operation with reconnects.

The parser is written by hand because the standard library has none (and this package depends on nothing else).
It follows the standard: UTF-8 with a leading BOM dropped; lines end in CRLF, LF or a lone CR (a CR that ends a
chunk ends its line at once, and an LF opening the next chunk is then dropped); `:` starts a comment; a field's
value loses one leading space; `data` lines are joined with LF; `id` persists from event to event and is ignored
when it contains NUL; `retry` is taken only when all digits; a blank line dispatches an event unless its data is
empty; an event cut off by the end of the stream is dropped.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .._calls._errors import StreamError
from .._model import Model

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SseMessage:
    event: str
    """The `event:` field; `message` when absent."""
    data: str
    id: str
    """The last event id: this event's `id:` field, or the latest one before it ("" when none yet)."""


class SseParser:
    """Feed it text or bytes as they arrive; it returns the messages each feed completes."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._started = False
        self._skip_lf = False
        self._data: List[str] = []
        self._event = ""
        self._last_id = ""
        self.retry: Optional[int] = None
        """The latest `retry:` field, in milliseconds."""

    def feed(self, chunk: bytes) -> List[SseMessage]:
        text = self._decoder.decode(chunk)
        if not self._started and text:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if self._skip_lf and text:
            if text.startswith("\n"):
                text = text[1:]
            self._skip_lf = False
        self._buffer += text
        messages: List[SseMessage] = []
        start = 0
        for m in _LINE_END.finditer(self._buffer):
            if m.group() == "\r" and m.end() == len(self._buffer):
                self._skip_lf = True  # a CRLF may be split between chunks
            message = self._line(self._buffer[start : m.start()])
            if message is not None:
                messages.append(message)
            start = m.end()
        self._buffer = self._buffer[start:]
        return messages

    def _line(self, line: str) -> Optional[SseMessage]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isdigit() and value.isascii():
                self.retry = int(value)
        return None

    def _dispatch(self) -> Optional[SseMessage]:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SseMessage(event=event or "message", data="\n".join(data), id=self._last_id)


def is_final_event(event: Union[Dict[str, Any], Model]) -> bool:
    """The last event of an analysis's stream: `completed`, `error`, or `status` with `canceled`. The contract says
    so in prose (the description of `streamAnalysisEvents`: "The server closes the stream after the last
    event"), so it is written here and held to that description by the tests. Takes the event's model or JSON."""
    if isinstance(event, Model):
        event = event._data
    kind = event.get("event")
    data = event.get("data")
    return kind in ("completed", "error") or (kind == "status" and isinstance(data, dict) and data.get("status") == "canceled")


def typed_event(message: SseMessage, kinds: Tuple[str, ...]) -> Optional[Dict[str, Any]]:
    """`{event, id, data}` as the contract's event union has it; None for a kind it does not know (skipped, for
    forward compatibility)."""
    if message.event not in kinds:
        return None
    where = f'event "{message.event}"' + (f" ({message.id})" if message.id else "")
    try:
        data = json.loads(message.data)
    except ValueError:
        raise StreamError(f"{where} carries a data field that is not JSON") from None
    if not isinstance(data, dict):
        raise StreamError(f"{where} carries data that is not a JSON object")
    return {"event": message.event, "id": message.id, "data": data}


class StreamSession:
    """The sans-I/O state of one event stream across its connections (decision PY19): the events parsed so far,
    the `Last-Event-ID` to resume from, and what to do when a connection ends: stop after the final event or a
    204 ("nothing more will come"), else reconnect after the server's `retry:` time or a backoff, at most
    `max_reconnects` times in a row without an event in between."""

    def __init__(self, kinds: Tuple[str, ...], last_event_id: Optional[str], max_reconnects: int, backoff: Callable[[int], float], what: str, convert: Optional[Callable[[Any], Any]] = None) -> None:
        self.kinds = kinds
        self._convert = convert
        self.last_event_id = last_event_id
        self.max_reconnects = max_reconnects
        self.finished: bool = False
        self._backoff = backoff
        self._what = what
        self._failures = 0
        self._server_retry: Optional[int] = None
        self._parser = SseParser()

    def opened(self, status: int, content_type: str) -> bool:
        """A connection answered 2xx; False when it is a 204, which ends the stream."""
        if status == 204:
            self.finished = True
            return False
        if content_type and not content_type.lower().lstrip().startswith("text/event-stream"):
            raise StreamError(f"{self._what} answered {content_type}, not text/event-stream")
        self._parser = SseParser()
        return True

    def feed(self, chunk: bytes) -> List[Any]:
        """The typed events a chunk completes, up to the final one (in their models when the stream has them)."""
        events: List[Any] = []
        for message in self._parser.feed(chunk):
            if self.finished:
                break
            event = typed_event(message, self.kinds)
            if event is None:
                continue
            if message.id:
                self.last_event_id = message.id
            self._failures = 0
            events.append(event if self._convert is None else self._convert(event))
            self.finished = is_final_event(event)
        if self._parser.retry is not None:
            self._server_retry = self._parser.retry
        return events

    def dropped(self, cause: Optional[BaseException]) -> float:
        """A connection ended before the final event: the seconds to wait before reconnecting, or `StreamError`
        when the reconnects are spent."""
        self._failures += 1
        if self._failures > self.max_reconnects:
            raise StreamError(f"{self._what} ended before its last event ({self._failures} times in a row)") from cause
        return self._server_retry / 1000 if self._server_retry is not None else self._backoff(self._failures)
