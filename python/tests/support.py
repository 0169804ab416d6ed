"""Shared set-up of the Python tests: the package from src/ (not an installed copy), the contract, a scripted
HTTP server on 127.0.0.1 for behaviour the mock cannot show (429 then 200, 503s, stalls, dropped streams), a fake
clock, and the mock's URL for the integration tests."""

from __future__ import annotations

import http.server
import json
import os
import socket
import sys
import threading
import time
import unittest
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "src"))

import analysis_api  # noqa: E402  (after the path is set)

MOCK_URL_ENV = "ANALYSIS_API_TEST_URL"
MOCK_KEY_ENV = "ANALYSIS_API_TEST_KEY"
MOCK_LIMITED_KEY_ENV = "ANALYSIS_API_TEST_LIMITED_KEY"


def contract() -> Dict[str, Any]:
    """The bundled contract, generated/openapi.json."""
    with open(REPO / "generated" / "openapi.json", encoding="utf-8") as f:
        doc: Dict[str, Any] = json.load(f)
    return doc


def deref(doc: Dict[str, Any], value: Any) -> Any:
    while isinstance(value, dict) and "$ref" in value:
        node: Any = doc
        for part in value["$ref"].lstrip("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        value = node
    return value


def mock_url() -> str:
    """The mock gateway's URL (set by test/python/python.test.ts); the test is skipped without it, and the
    vitest runner fails when anything was skipped."""
    url = os.environ.get(MOCK_URL_ENV)
    if not url:
        raise unittest.SkipTest(f"{MOCK_URL_ENV} is not set: run through `npm test` (test/python/python.test.ts)")
    return url


# ---- a scripted server --------------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int = 200
    headers: Dict[str, str] = field(default_factory=dict)
    body: Union[bytes, str, Dict[str, Any], List[Any], None] = None
    delay: float = 0.0
    """Seconds to wait before answering (a stall before the headers)."""
    chunks: Optional[List[Tuple[float, bytes]]] = None
    """Instead of `body`: pieces written after a delay each, then the connection is closed (no length)."""
    declared_length: Optional[int] = None
    """Announce this Content-Length but send only `body`, then close: a body cut short."""

    def payload(self) -> bytes:
        if self.body is None:
            return b""
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode("utf-8")
        return json.dumps(self.body).encode("utf-8")


@dataclass
class Recorded:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes
    peer: Tuple[str, int] = ("", 0)
    """The client's address: the same port for two requests means one kept-alive connection."""


class FakeServer:
    """A server on 127.0.0.1 and a free port that answers requests with `answers` in order (the last one
    repeats), or with `answer(request, n)`. Each connection carries one request and is closed after it."""

    def __init__(self, answers: Union[List[Answer], Callable[[Recorded, int], Answer]], keep_alive: bool = False, drop_idle: bool = False) -> None:
        self.requests: List[Recorded] = []
        self._answers = answers
        self.keep_alive = keep_alive or drop_idle
        self.drop_idle = drop_idle
        """Answer as if keeping the connection alive, then close it (a server whose idle timeout has passed)."""
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _serve(self) -> None:
                body = self._read_body()
                recorded = Recorded(self.command, self.path, {k: v for k, v in self.headers.items()}, body, self.client_address)
                server.requests.append(recorded)
                answer = server._answer(recorded)
                self.close_connection = not server.keep_alive or answer.chunks is not None or server.drop_idle
                try:
                    server._write(self, answer, server.keep_alive)
                except OSError:  # the client left first
                    pass

            def _read_body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    out = b""
                    while True:
                        size = int(self.rfile.readline().split(b";")[0], 16)
                        if size == 0:
                            self.rfile.readline()
                            return out
                        out += self.rfile.read(size)
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length", "0")))

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_CONNECT = _serve

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def _answer(self, request: Recorded) -> Answer:
        n = len(self.requests)
        if callable(self._answers):
            return self._answers(request, n)
        return self._answers[min(n, len(self._answers)) - 1]

    @staticmethod
    def _write(handler: http.server.BaseHTTPRequestHandler, answer: Answer, keep_alive: bool = False) -> None:
        if answer.delay:
            time.sleep(answer.delay)
        handler.send_response(answer.status)
        headers = dict(answer.headers)
        payload = answer.payload()
        if answer.body is not None and not isinstance(answer.body, (bytes, str)):
            headers.setdefault("Content-Type", "application/json")
        if answer.chunks is None:
            headers["Content-Length"] = str(answer.declared_length if answer.declared_length is not None else len(payload))
        if not keep_alive or answer.chunks is not None:
            headers["Connection"] = "close"
        for k, v in headers.items():
            handler.send_header(k, v)
        handler.end_headers()
        if answer.chunks is None:
            handler.wfile.write(payload)
            handler.wfile.flush()
            return
        for delay, piece in answer.chunks:
            time.sleep(delay)
            handler.wfile.write(piece)
            handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)

    def wait_for(self, n: int, seconds: float = 10.0) -> List[Recorded]:
        """The requests once `n` have arrived (or after `seconds`): a client that gave up on an attempt may be done
        before a busy machine has run the server's thread for it."""
        end = time.monotonic() + seconds
        while len(self.requests) < n and time.monotonic() < end:
            time.sleep(0.01)
        return self.requests

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def rate_headers(remaining: int = 9, retry_after: Optional[int] = None) -> Dict[str, str]:
    """The five rate-limit headers (and `Retry-After`), by the contract's names."""
    h = analysis_api.RATE_LIMIT_HEADERS
    headers = {h["limit"]: "10", h["remaining"]: str(remaining), h["reset"]: "1795459440", h["daily_limit"]: "500", h["daily_remaining"]: "400"}
    if retry_after is not None:
        headers[h["retry_after"]] = str(retry_after)
    return headers


class FakeClock:
    """A clock that moves only when the client sleeps; records every wait."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: List[float] = []

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds

    def monotonic(self) -> float:
        return self.now


def client(url: str, clock: Optional[FakeClock] = None, **options: Any) -> analysis_api.Client:
    """A client of `url` with an API key; with `clock`, it waits on the fake clock, and its jitter is 0.5."""
    if clock is not None:
        options.setdefault("sleep", clock.sleep)
        options.setdefault("monotonic", clock.monotonic)
        options.setdefault("random", lambda: 0.5)
    options.setdefault("api_key", "pk_test_python_unit")
    return analysis_api.Client(url, **options)


def snake(operation_id: str) -> str:
    """An operationId in snake_case, the method's name (`listAnalyses` → `list_analyses`): the tests' own
    oracle of the generator's rule."""
    import keyword
    import re

    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", operation_id))
    s = re.sub(r"[^A-Za-z0-9]+", "_", s).strip("_").lower()
    return s + "_" if keyword.iskeyword(s) else s
