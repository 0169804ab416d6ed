"""`with_streaming_response` as openai-python's (issue 49, decision PY40): the call is sent when the `with` block
starts, the body is left on the connection until read (`iter_bytes()`, `iter_lines()`, `read()`, `parse()`), and
the connection is closed when the block ends. Sync and async, against a scripted loopback server whose answer
comes in pieces with a pause between them (the head is usable before the body has arrived)."""

from __future__ import annotations

import gzip
import json
import unittest
from typing import List

from support import Answer, FakeClock, FakeServer, analysis_api

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
ANALYSIS = {"id": ANALYSIS_ID, "status": "queued", "media_type": "audio", "extra_field": 7}
BODY = json.dumps(ANALYSIS).encode()
KEY = "pk_test_python_streaming"


def in_pieces(body: bytes = BODY, pause: float = 0.2) -> Answer:
    """The answer written as raw pieces (head, then the body in two halves after a pause), then the connection is
    closed: a body of no announced length, read to its end."""
    half = len(body) // 2
    return Answer(200, {"X-Request-Id": "req_streamed", "Content-Type": "application/json"}, chunks=[(0.0, body[:half]), (pause, body[half:])])


class SyncStreamingResponseTest(unittest.TestCase):
    def client(self, url: str) -> analysis_api.Client:
        return analysis_api.Client(url, api_key=KEY, sleep=FakeClock().sleep)

    def test_the_head_comes_first_and_parse_gives_the_model(self) -> None:
        with FakeServer([in_pieces()]) as server, self.client(server.url) as client:
            stream = client.with_streaming_response.analyses.get(ANALYSIS_ID)
            self.assertEqual(server.requests, [])  # nothing is sent before the block
            with stream as response:
                self.assertEqual((response.status, response.status_code, response.request_id), (200, 200, "req_streamed"))
                self.assertEqual(response.headers["Content-Type"], "application/json")
                self.assertFalse(response.is_closed)
                analysis = response.parse()
                self.assertIsInstance(analysis, analysis_api.models.Analysis)
                self.assertEqual((analysis.id, analysis.status), (ANALYSIS_ID, "queued"))
                self.assertEqual(analysis.to_dict()["extra_field"], 7)
                self.assertEqual(response.read(), BODY)  # kept once read
            self.assertTrue(response.is_closed)

    def test_iter_bytes_yields_the_pieces_as_they_arrive(self) -> None:
        with FakeServer([in_pieces()]) as server, self.client(server.url) as client:
            with client.with_streaming_response.analyses.get(ANALYSIS_ID) as response:
                pieces: List[bytes] = list(response.iter_bytes())
        self.assertGreaterEqual(len(pieces), 2)  # the second half came after a pause: not one read of the whole
        self.assertEqual(b"".join(pieces), BODY)
        with FakeServer([in_pieces()]) as server, self.client(server.url) as client:
            with client.with_streaming_response.analyses.get(ANALYSIS_ID) as response:
                first = next(response.iter_bytes())
                self.assertEqual(first, BODY[: len(BODY) // 2])  # the first half, before the second was written

    def test_iter_lines_and_a_gzip_body_decoded_as_it_streams(self) -> None:
        lines = b'{"a": 1}\n{"b": 2}\r\n\xc3\xa9t\xc3\xa9\n'
        packed = gzip.compress(lines)
        answer = Answer(200, {"Content-Encoding": "gzip", "Content-Type": "application/x-ndjson"}, chunks=[(0.0, packed[:10]), (0.05, packed[10:])])
        with FakeServer([answer]) as server, self.client(server.url) as client:
            with client.with_streaming_response.analyses.get(ANALYSIS_ID) as response:
                self.assertEqual(list(response.iter_lines()), ['{"a": 1}', '{"b": 2}', "été"])

    def test_an_error_status_raises_its_typed_error_when_the_block_starts(self) -> None:
        with FakeServer([Answer(404, {"X-Request-Id": "req_missing"}, {"title": "Not found", "status": 404, "detail": "no such analysis"})]) as server, self.client(server.url) as client:
            with self.assertRaises(analysis_api.NotFoundError) as caught:
                with client.with_streaming_response.analyses.get(ANALYSIS_ID):
                    self.fail("the block must not run")
        self.assertEqual(caught.exception.request_id, "req_missing")

    def test_a_retried_503_then_the_stream(self) -> None:
        with FakeServer([Answer(503, {}, {"detail": "busy"}), in_pieces()]) as server, self.client(server.url) as client:
            with client.with_streaming_response.analyses.get(ANALYSIS_ID) as response:
                self.assertEqual(response.parse().status, "queued")
                self.assertEqual(response.retries_taken, 1)
        self.assertEqual(len(server.requests), 2)

    def test_used_outside_a_block_or_read_twice_says_so(self) -> None:
        with FakeServer([in_pieces()]) as server, self.client(server.url) as client:
            stream = client.with_streaming_response.analyses.get(ANALYSIS_ID)
            with self.assertRaisesRegex(RuntimeError, "with client.with_streaming_response"):
                stream.status
            with stream as response:
                list(response.iter_bytes())
                with self.assertRaisesRegex(RuntimeError, "already"):
                    response.read()

    def test_the_raw_response_twin_still_reads_the_body_first(self) -> None:
        with FakeServer([in_pieces(pause=0.0)]) as server, self.client(server.url) as client:
            raw = client.with_raw_response.analyses.get(ANALYSIS_ID)
        self.assertEqual(raw.parse().status, "queued")

    def test_through_an_injected_transport(self) -> None:
        class Fixed:
            def handle_request(self, request: analysis_api.HttpRequest) -> analysis_api.HttpResponse:
                return analysis_api.HttpResponse(200, {"Content-Type": "application/json", "X-Request-Id": "req_fixed"}, BODY)

        with analysis_api.Client("https://api.example.com", api_key=KEY, transport=Fixed()) as client:
            with client.with_streaming_response.analyses.get(ANALYSIS_ID) as response:
                self.assertEqual(response.request_id, "req_fixed")
                self.assertEqual(response.read(), BODY)
                self.assertEqual(response.parse().id, ANALYSIS_ID)


class AsyncStreamingResponseTest(unittest.IsolatedAsyncioTestCase):
    async def test_async_with_aiter_bytes_and_parse(self) -> None:
        with FakeServer([in_pieces(), in_pieces()]) as server:
            async with analysis_api.AsyncClient(server.url, api_key=KEY) as client:
                stream = client.with_streaming_response.analyses.get(ANALYSIS_ID)
                self.assertEqual(server.requests, [])
                async with stream as response:
                    self.assertEqual((response.status_code, response.request_id), (200, "req_streamed"))
                    pieces = [piece async for piece in response.aiter_bytes()]
                self.assertTrue(response.is_closed)
                self.assertGreaterEqual(len(pieces), 2)
                self.assertEqual(b"".join(pieces), BODY)
                async with client.with_streaming_response.analyses.get(ANALYSIS_ID) as response:
                    analysis = await response.parse()
                    self.assertEqual(analysis.status, "queued")
                    self.assertEqual(await response.read(), BODY)

    async def test_async_lines_and_an_error_status(self) -> None:
        lines = Answer(200, {}, chunks=[(0.0, b"one\ntw"), (0.05, b"o\nthree")])
        missing = Answer(404, {"X-Request-Id": "req_missing"}, {"title": "Not found", "status": 404})
        with FakeServer([lines, missing]) as server:
            async with analysis_api.AsyncClient(server.url, api_key=KEY) as client:
                async with client.with_streaming_response.analyses.get(ANALYSIS_ID) as response:
                    self.assertEqual([line async for line in response.aiter_lines()], ["one", "two", "three"])
                with self.assertRaises(analysis_api.NotFoundError) as caught:
                    async with client.with_streaming_response.analyses.get(ANALYSIS_ID):
                        self.fail("the block must not run")
        self.assertEqual(caught.exception.request_id, "req_missing")


if __name__ == "__main__":
    unittest.main()
