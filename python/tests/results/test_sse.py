"""The SSE parser (WHATWG "Parsing an event stream") and the typed event stream with reconnects."""

from __future__ import annotations

import json
import unittest
from typing import Any, Dict, List

from support import Answer, FakeClock, FakeServer, Recorded, analysis_api, client, contract

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
SSE = {"Content-Type": "text/event-stream"}


def parse(*chunks: bytes) -> List[analysis_api.SseMessage]:
    parser = analysis_api.SseParser()
    return [m for c in chunks for m in parser.feed(c)]


def sse(event: str, id: str, data: Dict[str, Any]) -> bytes:
    return f"event: {event}\nid: {id}\ndata: {json.dumps(data)}\n\n".encode("utf-8")


STATUS = sse("status", "evt_0000000001", {"analysis_id": ANALYSIS_ID, "status": "processing", "progress": 10})
SEGMENT = sse("transcript.segment", "evt_0000000002", {"id": "seg_1", "start": 0.0, "end": 1.0, "text": "Hello"})
COMPLETED = sse("completed", "evt_0000000003", {"id": ANALYSIS_ID, "status": "completed"})


class ParserTest(unittest.TestCase):
    def test_fields_and_dispatch(self) -> None:
        [m] = parse(b"event: status\nid: evt_1\ndata: {\"a\":1}\n\n")
        self.assertEqual((m.event, m.id, m.data), ("status", "evt_1", '{"a":1}'))

    def test_every_line_ending(self) -> None:
        for eol in (b"\n", b"\r\n", b"\r"):
            [m] = parse(b"event: x" + eol + b"data: 1" + eol + eol)
            self.assertEqual((m.event, m.data), ("x", "1"), eol)

    def test_a_cr_ending_a_chunk_ends_its_line_at_once(self) -> None:
        parser = analysis_api.SseParser()
        self.assertEqual(parser.feed(b"data: 1\r\r"), [analysis_api.SseMessage("message", "1", "")])
        # The LF of a CRLF split across chunks is not a second (blank) line.
        self.assertEqual(parse(b"data: a\r", b"\ndata: b\r\n\r\n"), [analysis_api.SseMessage("message", "a\nb", "")])

    def test_multi_line_data_comments_and_unknown_fields(self) -> None:
        [m] = parse(b": keep-alive\ndata: one\ndata:two\nfoo: bar\ndata\n\n")
        self.assertEqual(m.data, "one\ntwo\n")

    def test_one_leading_space_is_dropped(self) -> None:
        self.assertEqual(parse(b"data:  two spaces\n\n")[0].data, " two spaces")

    def test_an_empty_data_dispatches_nothing(self) -> None:
        self.assertEqual(parse(b"event: x\n\n: comment\n\n"), [])

    def test_the_id_persists_and_an_id_with_nul_is_ignored(self) -> None:
        ms = parse(b"id: evt_1\ndata: a\n\ndata: b\n\nid: bad\x00id\ndata: c\n\n")
        self.assertEqual([m.id for m in ms], ["evt_1", "evt_1", "evt_1"])

    def test_retry_only_when_all_digits(self) -> None:
        parser = analysis_api.SseParser()
        parser.feed(b"retry: 1500\n\nretry: 2x\n\n")
        self.assertEqual(parser.retry, 1500)

    def test_bom_utf8_split_across_chunks_and_a_cut_off_event(self) -> None:
        text = "\ufeffdata: Größe ✓\n\ndata: cut".encode("utf-8")
        ms = parse(text[:9], text[9:12], text[12:])
        self.assertEqual([m.data for m in ms], ["Größe ✓"])


class EventStreamTest(unittest.TestCase):
    def test_typed_events_until_the_final_one(self) -> None:
        with FakeServer([Answer(200, SSE, chunks=[(0, STATUS + b": keep-alive\n\n" + SEGMENT), (0, COMPLETED)])]) as server:
            events = list(client(server.url).streaming.stream_analysis_events(ANALYSIS_ID))
        self.assertEqual([(e["event"], e["id"]) for e in events], [("status", "evt_0000000001"), ("transcript.segment", "evt_0000000002"), ("completed", "evt_0000000003")])
        self.assertEqual(events[1]["data"], {"id": "seg_1", "start": 0.0, "end": 1.0, "text": "Hello"})
        request = server.requests[0]
        self.assertEqual((request.path, request.headers.get("Accept")), (f"/v1/analysis/{ANALYSIS_ID}/stream", "text/event-stream"))
        self.assertEqual(request.headers.get(analysis_api.API_KEY_HEADER), "pk_test_python_unit")
        self.assertNotIn("token=", request.path)

    def test_a_dropped_connection_resumes_with_last_event_id(self) -> None:
        def answer(request: Recorded, n: int) -> Answer:
            if n == 1:  # drops after two events, before the last one
                return Answer(200, SSE, chunks=[(0, STATUS + SEGMENT + b"event: sig")])
            return Answer(200, SSE, chunks=[(0, b"retry: 250\n\n" + COMPLETED)])

        clock = FakeClock()
        with FakeServer(answer) as server:
            events = list(client(server.url, clock).streaming.stream_analysis_events(ANALYSIS_ID))
        self.assertEqual([e["event"] for e in events], ["status", "transcript.segment", "completed"])
        self.assertEqual([r.headers.get("Last-Event-ID") for r in server.requests], [None, "evt_0000000002"])
        self.assertEqual(clock.waits, [0.375])  # no retry: field yet, so the backoff

    def test_starts_after_a_given_last_event_id(self) -> None:
        with FakeServer([Answer(200, SSE, chunks=[(0, COMPLETED)])]) as server:
            list(client(server.url).streaming.stream_analysis_events(ANALYSIS_ID, last_event_id="evt_0000000002"))
        self.assertEqual(server.requests[0].headers.get("Last-Event-ID"), "evt_0000000002")

    def test_the_server_retry_field_sets_the_reconnect_wait(self) -> None:
        answers = [Answer(200, SSE, chunks=[(0, b"retry: 1500\n\n" + STATUS)]), Answer(200, SSE, chunks=[(0, COMPLETED)])]
        clock = FakeClock()
        with FakeServer(answers) as server:
            list(client(server.url, clock).streaming.stream_analysis_events(ANALYSIS_ID))
        self.assertEqual(clock.waits, [1.5])

    def test_gives_up_after_the_reconnects_in_a_row(self) -> None:
        clock = FakeClock()
        with FakeServer([Answer(200, SSE, chunks=[(0, b": nothing\n\n")])]) as server:
            with self.assertRaisesRegex(analysis_api.StreamError, "ended before its last event"):
                list(client(server.url, clock, max_stream_reconnects=2).streaming.stream_analysis_events(ANALYSIS_ID))
        self.assertEqual(len(server.requests), 3)

    def test_unknown_kinds_are_skipped_and_bad_data_is_a_stream_error(self) -> None:
        unknown = sse("future.kind", "evt_0000000009", {"x": 1})
        with FakeServer([Answer(200, SSE, chunks=[(0, unknown + COMPLETED)])]) as server:
            self.assertEqual([e["event"] for e in client(server.url).streaming.stream_analysis_events(ANALYSIS_ID)], ["completed"])
        with FakeServer([Answer(200, SSE, chunks=[(0, b"event: status\ndata: not json\n\n")])]) as server:
            with self.assertRaisesRegex(analysis_api.StreamError, "not JSON"):
                list(client(server.url).streaming.stream_analysis_events(ANALYSIS_ID))

    def test_an_error_before_the_stream_opens_is_the_typed_error(self) -> None:
        with FakeServer([Answer(404, {}, {"detail": "Analysis not found."})]) as server:
            with self.assertRaises(analysis_api.ApiError) as caught:
                list(client(server.url).streaming.stream_analysis_events(ANALYSIS_ID))
        self.assertEqual(caught.exception.status, 404)
        with FakeServer([Answer(200, {}, {"detail": "json, not a stream"})]) as server:
            with self.assertRaisesRegex(analysis_api.StreamError, "not text/event-stream"):
                list(client(server.url).streaming.stream_analysis_events(ANALYSIS_ID))

    def test_an_open_stream_is_not_timed(self) -> None:
        with FakeServer([Answer(200, SSE, chunks=[(0, STATUS), (0.5, COMPLETED)])]) as server:
            events = list(client(server.url, timeout=0.2, max_stream_reconnects=0).streaming.stream_analysis_events(ANALYSIS_ID))
        self.assertEqual(len(events), 2)
        self.assertEqual(len(server.requests), 1)


    def test_a_204_after_the_final_event_ends_the_stream_cleanly(self) -> None:
        # 0.1 took the contract's 204 ("nothing more will come") for a dropped connection: six GETs, then StreamError.
        clock = FakeClock()
        with FakeServer([Answer(204, {}, None)]) as server:
            events = list(client(server.url, clock).streaming.stream_analysis_events(ANALYSIS_ID, last_event_id="evt_0000000003"))
        self.assertEqual((events, len(server.requests), clock.waits), ([], 1, []))

    def test_a_silent_stream_reconnects_after_the_idle_timeout(self) -> None:
        answers = [Answer(200, SSE, chunks=[(0, STATUS), (30.0, COMPLETED)]), Answer(200, SSE, chunks=[(0, COMPLETED)])]
        with FakeServer(answers) as server:
            c = client(server.url, FakeClock(), stream_idle_timeout=1.0)
            events = list(c.streaming.stream_analysis_events(ANALYSIS_ID))
        self.assertEqual([e["event"] for e in events], ["status", "completed"])
        self.assertEqual([r.headers.get("Last-Event-ID") for r in server.requests], [None, "evt_0000000001"])
        with self.assertRaisesRegex(ValueError, "stream_idle_timeout"):
            client(server.url, stream_idle_timeout=0)

    def test_close_and_the_context_manager_end_the_stream(self) -> None:
        answers = [Answer(200, SSE, chunks=[(0, STATUS), (0.5, SEGMENT), (0, COMPLETED)])]
        with FakeServer(answers) as server:
            stream = client(server.url).streaming.stream_analysis_events(ANALYSIS_ID)
            self.assertIsInstance(stream, analysis_api.EventStream)
            self.assertEqual(next(stream)["event"], "status")
            stream.close()
            self.assertEqual(list(stream), [])
            with client(server.url).streaming.stream_analysis_events(ANALYSIS_ID) as events:
                first = next(events)
            self.assertEqual((first["event"], events.last_event_id), ("status", "evt_0000000001"))
            self.assertEqual(list(events), [])
        self.assertEqual(len(server.requests), 2)


class ContractTest(unittest.TestCase):
    def test_final_events_are_those_the_operation_describes(self) -> None:
        op = contract()["paths"]["/v1/analysis/{id}/stream"]["get"]
        description = " ".join(op["description"].split())
        self.assertIn("The server closes the stream after the last event: `completed`, `error`, or a `status` event with `canceled`.", description)
        final = analysis_api.is_final_event
        self.assertTrue(final({"event": "completed", "id": "", "data": {}}))
        self.assertTrue(final({"event": "error", "id": "", "data": {}}))
        self.assertTrue(final({"event": "status", "id": "", "data": {"status": "canceled"}}))
        self.assertFalse(final({"event": "status", "id": "", "data": {"status": "processing"}}))
        self.assertFalse(final({"event": "alert", "id": "", "data": {}}))

    def test_the_event_kinds_are_the_union_s(self) -> None:
        union = contract()["components"]["schemas"]["AnalysisStreamEvent"]
        kinds = analysis_api.OPERATIONS["streamAnalysisEvents"].events
        self.assertEqual(sorted(kinds), sorted(union["discriminator"]["mapping"]))


if __name__ == "__main__":
    unittest.main()
