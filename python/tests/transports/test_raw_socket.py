"""A misbehaving server on a raw socket (issue 34): deadlines that hold for heads and bodies trickled a byte at a
time, `Timeout(connect=, read=, total=)`, and the same typed errors from `Client` and `AsyncClient` for answers
that are not HTTP."""

from __future__ import annotations

import asyncio
import socket
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Any, Callable, List, Tuple

from support import analysis_api

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
Script = List[Tuple[float, bytes]]
"""(seconds to wait, bytes to write) steps, then the connection is closed."""


class RawServer:
    """Answers every connection with the same script, ignoring what was asked."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            conn.recv(65536)
            for delay, data in self.script:
                if self.stop.wait(delay):
                    break
                conn.sendall(data)
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> "RawServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.listener.close()


def trickle(data: bytes, every: float) -> Script:
    return [(every, data[i : i + 1]) for i in range(len(data))]


BODY = b'{"id": "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", "status": "queued"}'
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Padding: %s\r\n\r\n" % (len(BODY), b"p" * 40)
SLOW_HEAD = trickle(HEAD, 0.05)  # about 5 s of head, a byte every 50 ms
SLOW_BODY = [(0.0, HEAD)] + trickle(BODY, 0.05)  # a small body over 3 s
NO_RETRY = analysis_api.Retry(max_attempts=1)


def sync_get(url: str, **options: Any) -> Any:
    with analysis_api.Client(url, api_key="pk_test_raw", retry=NO_RETRY, **options) as c:
        return c.analyses.get(ANALYSIS_ID)


def async_get(url: str, **options: Any) -> Any:
    async def run() -> Any:
        async with analysis_api.AsyncClient(url, api_key="pk_test_raw", retry=NO_RETRY, **options) as c:
            return await c.analyses.get(ANALYSIS_ID)

    return asyncio.run(run())


CLIENTS: List[Tuple[str, Callable[..., Any]]] = [("sync", sync_get), ("async", async_get)]


class DeadlineTest(unittest.TestCase):
    def timed_out(self, script: Script, **options: Any) -> None:
        for name, get in CLIENTS:
            with self.subTest(client=name), RawServer(script) as server:
                started = time.monotonic()
                with self.assertRaises(analysis_api.RequestTimeoutError) as caught:
                    get(server.url, **options)
                self.assertLess(time.monotonic() - started, 1.5, f"{name}: the deadline did not hold")
                self.assertIn("total timeout", str(caught.exception))

    def test_a_head_trickled_past_the_timeout_is_a_timeout(self) -> None:
        # Before: with timeout=1 the sync client waited the whole 5 s trickle (each byte came within 1 s).
        self.timed_out(SLOW_HEAD, timeout=0.6)

    def test_a_small_body_trickled_past_the_timeout_is_a_timeout(self) -> None:
        self.timed_out(SLOW_BODY, timeout=0.6)

    def test_the_total_of_a_timeout_object_bounds_the_attempt(self) -> None:
        self.timed_out(SLOW_BODY, timeout=analysis_api.Timeout(connect=5, read=5, total=0.6))

    def test_read_is_the_longest_wait_between_bytes(self) -> None:
        for name, get in CLIENTS:
            with self.subTest(client=name), RawServer([(0.0, HEAD), (1.0, BODY)]) as server:
                with self.assertRaises(analysis_api.RequestTimeoutError) as caught:
                    get(server.url, timeout=analysis_api.Timeout(read=0.3))
                self.assertIn("read timeout", str(caught.exception))
                self.assertEqual(caught.exception.timeout, 0.3)
            lines = [(0.1, line + b"\r\n") for line in HEAD.split(b"\r\n")[:-2]] + [(0.1, b"\r\n"), (0.1, BODY)]
            with self.subTest(client=name, within=True), RawServer(lines) as server:
                # Many waits, each shorter than read, longer than read in all: no total, so it completes. (AsyncClient
                # waits a line of the head at a time: asyncio's reader has no wait between bytes.)
                self.assertEqual(get(server.url, timeout=analysis_api.Timeout(read=0.3))["status"], "queued")

    def test_timeout_values_are_checked(self) -> None:
        with self.assertRaises(ValueError):
            analysis_api.Timeout(read=0)
        c = analysis_api.Client("http://127.0.0.1:9", api_key="pk_test_raw", timeout=2.5)
        self.assertEqual(c._config.timeout, analysis_api.Timeout(connect=2.5, read=2.5, total=2.5))


class SlowReader(RawServer):
    """Takes a request body 16 KiB every 50 ms (about 320 KiB/s) and never answers."""

    def __init__(self) -> None:
        super().__init__([])
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)

    def _answer(self, conn: socket.socket) -> None:
        try:
            while not self.stop.wait(0.05) and conn.recv(16384):
                pass
        except OSError:
            pass
        finally:
            conn.close()


def sync_upload(url: str, file: Path, **options: Any) -> Any:
    with analysis_api.Client(url, api_key="pk_test_raw", retry=NO_RETRY, **options) as c:
        return c.analyses.upload({"file": file})


def async_upload(url: str, file: Path, **options: Any) -> Any:
    async def run() -> Any:
        async with analysis_api.AsyncClient(url, api_key="pk_test_raw", retry=NO_RETRY, **options) as c:
            return await c.analyses.upload({"file": file})

    return asyncio.run(run())


class UploadDeadlineTest(unittest.TestCase):
    def test_the_total_holds_across_a_streamed_upload_the_server_reads_slowly(self) -> None:
        # Before: each 64 KiB block of a multipart body was written under a fresh socket timeout, so an upload the
        # server took slowly ran for as long as it took, whatever the total.
        with tempfile.TemporaryDirectory() as tmp:
            file = Path(tmp) / "call.wav"
            with open(file, "wb") as f:
                f.truncate(16 << 20)  # 16 MiB, read 64 KiB at a time: about 50 s at the slow reader's pace
            for name, upload in (("sync", sync_upload), ("async", async_upload)):
                with self.subTest(client=name), SlowReader() as server:
                    started = time.monotonic()
                    with self.assertRaises(analysis_api.RequestTimeoutError) as caught:
                        upload(server.url, file, timeout=analysis_api.Timeout(connect=5, read=5, total=1.0))
                    self.assertLess(time.monotonic() - started, 2.5, f"{name}: the total did not hold during the upload")
                    self.assertIn("total timeout", str(caught.exception))


class HeaderInjectionTest(unittest.TestCase):
    def test_a_header_with_a_line_break_or_a_bad_name_is_refused_before_sending(self) -> None:
        # Before: AsyncClient wrote extra headers as given, so "a\r\nX-Injected: 1" became a header of its own.
        for bad in ({"X-Note": "a\r\nX-Injected: 1"}, {"X Bad": "1"}, {"X-Note": "a\nb"}):
            for name, get in CLIENTS:
                with self.subTest(client=name, headers=bad), RawServer([(0.0, HEAD + BODY)]) as server:
                    with self.assertRaisesRegex(ValueError, "header"):
                        get(server.url, headers=bad)


class ParityTest(unittest.TestCase):
    """What the sync client wraps, the async one wraps the same way (issue 34)."""

    def same_error(self, script: Script) -> None:
        kinds = []
        for name, get in CLIENTS:
            with self.subTest(client=name), RawServer(script) as server:
                with self.assertRaises(analysis_api.ApiError) as caught:
                    get(server.url, timeout=5)
                kinds.append(type(caught.exception))
        self.assertEqual(kinds, [analysis_api.NetworkError, analysis_api.NetworkError])

    def test_a_garbage_status_line(self) -> None:
        self.same_error([(0.0, b"SPDY/9 banana\r\n\r\n")])

    def test_a_status_line_that_is_not_a_number(self) -> None:
        self.same_error([(0.0, b"HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n")])

    def test_headers_over_64_kib(self) -> None:
        self.same_error([(0.0, b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n")])

    def test_a_connection_closed_without_an_answer(self) -> None:
        self.same_error([])

    def same_cause(self, script: Script, cause: type) -> None:
        for name, get in CLIENTS:
            with self.subTest(client=name), RawServer(script) as server:
                with self.assertRaises(analysis_api.NetworkError) as caught:
                    get(server.url, timeout=5)
                self.assertIsInstance(caught.exception.__cause__, cause)

    def test_no_status_line_at_all_has_the_same_cause(self) -> None:
        # Issue 49: async gave a bare ValueError (an unpacking error) where sync gives BadStatusLine.
        import http.client

        self.same_cause([(0.0, b"\r\n\r\n")], http.client.BadStatusLine)
        self.same_cause([(0.0, b"garbage")], http.client.BadStatusLine)


HEADS = [
    b"Content-Type: application/json\r\nContent-Length: 2\r\n",
    b"X-A: 1\r\nx-a: 2\r\nX-Empty:\r\nX-Spaces:   padded \t\r\n",  # repeated, empty, padded
    b"X-Folded: first\r\n  second\r\nX-After: 3\r\n",  # obs-fold: a continuation line
    b"  leading continuation\r\nX-B: 1\r\n",
    b"X(Odd): 1\r\nX-C: 2\r\n",  # a name that is not a token, which the email parser still takes
    b"not a header line\r\nX-D: 1\r\n",  # ends the fields for the email parser
    b"From someone\r\nX-E: 1\r\n",
    b": no name\r\nX-F: 1\r\n",
    b"X-Latin: caf\xe9\nX-LF-Only: 1\n",
    b"",
]


class ResponseHeadTest(unittest.TestCase):
    """The response head's fields (decision PY33): read without the email parser, as `http.client.parse_headers`
    reads them, odd heads included."""

    def test_fields_are_what_http_client_makes_of_them(self) -> None:
        import http.client
        import io

        from analysis_api._http._wire import response_fields

        for head in HEADS:
            with self.subTest(head=head):
                expected = http.client.parse_headers(io.BytesIO(head + b"\r\n"))
                got = response_fields(io.BytesIO(head + b"\r\nbody"))
                self.assertIsInstance(got, http.client.HTTPMessage)
                self.assertEqual(got.items(), expected.items())
                self.assertEqual([got.get(k) for k in expected.keys()], [expected.get(k) for k in expected.keys()])

    def test_the_sync_client_frames_bodies_as_http_client_does(self) -> None:
        """The sync client's `begin` (the standard library's with the fields read by `response_fields`): a 100
        Continue skipped, a chunked body, an HTTP/1.0 body read to the end of the connection."""
        body = b'{"id": "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"}'
        scripts = {
            "100 Continue first": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
            "chunked": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%X\r\n%s\r\n0\r\n\r\n" % (len(body), body),
            "HTTP/1.0 to the end": b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + body,
        }
        for name, answer in scripts.items():
            with self.subTest(name), RawServer([(0.0, answer)]) as server:
                self.assertEqual(sync_get(server.url, timeout=5)["id"], "anl_01HZX4A9B7C5D3E1F2G4H6J8K0")

    def test_the_sync_clients_begin_reads_a_head_as_http_clients_own_does(self) -> None:
        """`_HTTPResponse.begin` is the standard library's `begin` with one call changed (decision PY33): on the
        Python running the tests, the two must agree on every field `begin` sets and on the body then read, so a
        standard library that changes `begin` shows here rather than in an integrator's app."""
        import http.client
        import io

        from analysis_api._transports._transport import _HTTPResponse

        class Sock:
            def __init__(self, raw: bytes) -> None:
                self.raw = raw

            def makefile(self, mode: str, *args: Any, **kwargs: Any) -> io.BufferedReader:
                return io.BufferedReader(io.BytesIO(self.raw))  # type: ignore[arg-type]

        body = b'{"id": "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"}'
        answers = [
            ("GET", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)),
            ("GET", b"HTTP/1.1 100 Continue\r\nX-Skipped: 1\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)),
            ("GET", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n%X\r\n%s\r\n0\r\n\r\n" % (len(body), body)),
            ("GET", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, CHUNKED\r\n\r\n%X\r\n%s\r\n0\r\n\r\n" % (len(body), body)),
            ("GET", b"HTTP/1.0 200 OK\r\n\r\n" + body),
            ("GET", b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)),
            ("GET", b"HTTP/0.9 200 OK\r\nContent-Length: 2\r\n\r\n{}"),
            ("GET", b"HTTP/1.1 200  Spaced reason  \r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"),
            ("GET", b"HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n" + body),
            ("GET", b"HTTP/1.1 200 OK\r\nContent-Length: nine\r\n\r\n" + body),
            ("GET", b"HTTP/1.1 200 OK\r\n\r\n" + body),
            ("GET", b"HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n"),
            ("GET", b"HTTP/1.1 304 Not Modified\r\n\r\n"),
            ("HEAD", b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)),
            ("GET", b"HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n{}"),
        ]
        fields = ("code", "status", "reason", "version", "chunked", "chunk_left", "will_close", "length")
        for method, raw in answers:
            with self.subTest(method=method, raw=raw[:40]):
                ours = _HTTPResponse(Sock(raw), method=method)  # type: ignore[arg-type]
                theirs = http.client.HTTPResponse(Sock(raw), method=method)  # type: ignore[arg-type]
                ours.begin()
                theirs.begin()
                self.assertEqual({f: getattr(ours, f) for f in fields}, {f: getattr(theirs, f) for f in fields})
                self.assertEqual(ours.headers.items(), theirs.headers.items())
                self.assertEqual(ours.read(), theirs.read())
        with self.assertRaises(http.client.UnknownProtocol):
            _HTTPResponse(Sock(b"HTTP/2 200 OK\r\n\r\n"), method="GET").begin()  # type: ignore[arg-type]

    def test_both_clients_hand_out_the_same_headers(self) -> None:
        body = b'{"id": "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"}'
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Folded: a\r\n b\r\nX-Rep: 1\r\nX-Rep: 2\r\nContent-Length: %d\r\n\r\n" % len(body)

        def sync_raw(url: str) -> Any:
            with analysis_api.Client(url, api_key="pk_test_raw", retry=NO_RETRY) as c:
                return c.with_raw_response.analyses.get(ANALYSIS_ID).headers

        def async_raw(url: str) -> Any:
            async def run() -> Any:
                async with analysis_api.AsyncClient(url, api_key="pk_test_raw", retry=NO_RETRY) as c:
                    return (await c.with_raw_response.analyses.get(ANALYSIS_ID)).headers
            return asyncio.run(run())

        for name, get in (("sync", sync_raw), ("async", async_raw)):
            with self.subTest(client=name), RawServer([(0.0, head + body)]) as server:
                headers = get(server.url)
                self.assertEqual(headers.get_all("X-Rep"), ["1", "2"])
                self.assertEqual(headers["x-folded"], "a\r\n b")
                self.assertEqual(headers.get_content_type(), "application/json")


if __name__ == "__main__":
    unittest.main()
