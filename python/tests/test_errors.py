"""Typed errors and the rate-limit headers, against a scripted server."""

from __future__ import annotations

import threading
import unittest
from typing import List, Tuple

from support import Answer, FakeClock, FakeServer, analysis_api, client, rate_headers

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"


class ErrorTest(unittest.TestCase):
    def raised(self, answer: Answer) -> analysis_api.ApiError:
        with FakeServer([answer]) as server:
            with self.assertRaises(analysis_api.ApiError) as caught:
                client(server.url, retry=False).get_analysis(ANALYSIS_ID)
        return caught.exception

    def test_every_documented_status_has_its_kind(self) -> None:
        kinds = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 500: "server", 418: "http"}
        for status, kind in kinds.items():
            e = self.raised(Answer(status, {}, {"detail": "Analysis not found."}))
            self.assertEqual((type(e), e.status, e.kind, e.detail), (analysis_api.ApiError, status, kind, "Analysis not found."))
            self.assertEqual((e.method, e.path), ("GET", f"/v1/analyses/{ANALYSIS_ID}"))
            self.assertEqual(str(e), f"GET /v1/analyses/{ANALYSIS_ID} failed with {status}: Analysis not found.")

    def test_422_is_a_validation_error_with_its_items(self) -> None:
        items = [{"loc": ["body", "rate_limit_rpm"], "msg": "must be >= 1", "type": "minimum"}, {"loc": ["query", "limit", 0], "msg": "bad", "type": "type"}]
        e = self.raised(Answer(422, {}, {"detail": items}))
        self.assertIsInstance(e, analysis_api.ValidationError)
        assert isinstance(e, analysis_api.ValidationError)
        self.assertEqual(e.errors, items)
        self.assertEqual(e.kind, "validation")
        self.assertEqual(e.detail, "body.rate_limit_rpm: must be >= 1; query.limit.0: bad")

    def test_429_is_a_rate_limit_error_with_the_body_fields(self) -> None:
        body = {"detail": "Rate limit of 10 requests per minute exceeded.", "error": "rate_limit_exceeded", "limit": 10, "window": "1 minute", "retry_after": 30}
        e = self.raised(Answer(429, rate_headers(0, retry_after=30), body))
        assert isinstance(e, analysis_api.RateLimitError)
        self.assertEqual((e.error, e.limit, e.window, e.retry_after, e.kind), ("rate_limit_exceeded", 10, "1 minute", 30, "rate_limited"))
        self.assertEqual(analysis_api.read_rate_limit(e.response), analysis_api.RateLimit(10, 0, 1795459440, 500, 400, retry_after=30))

    def test_429_without_retry_after_in_the_body_takes_the_header(self) -> None:
        body = {"detail": "Daily limit", "error": "daily_limit_exceeded", "limit": 500, "window": "1 day"}
        e = self.raised(Answer(429, {"Retry-After": "120"}, body))
        assert isinstance(e, analysis_api.RateLimitError)
        self.assertEqual((e.error, e.retry_after), ("daily_limit_exceeded", 120))

    def test_a_body_that_is_not_the_contract_s_still_gives_an_api_error(self) -> None:
        e = self.raised(Answer(502, {"Content-Type": "text/html"}, "<html>\n  Bad   gateway\n</html>"))
        self.assertEqual((type(e), e.detail, e.body), (analysis_api.ApiError, "<html> Bad gateway </html>", "<html>\n  Bad   gateway\n</html>"))
        e = self.raised(Answer(404, {}, b""))
        self.assertEqual(e.detail, "Not Found")

    def test_messages_never_carry_the_query(self) -> None:
        with FakeServer([Answer(400, {}, {"detail": "bad"})]) as server:
            with self.assertRaises(analysis_api.ApiError) as caught:
                client(server.url, retry=False).list_analyses(use_case_id="uc_secret_in_query")
        self.assertNotIn("uc_secret", str(caught.exception))
        self.assertEqual(caught.exception.path, "/v1/analyses")


class RateLimitTest(unittest.TestCase):
    def test_read_rate_limit_reads_the_five_headers(self) -> None:
        self.assertEqual(analysis_api.read_rate_limit(rate_headers(7)), analysis_api.RateLimit(10, 7, 1795459440, 500, 400))
        self.assertIsNone(analysis_api.read_rate_limit({"Content-Type": "application/json"}))
        partial = rate_headers()
        del partial[analysis_api.RATE_LIMIT_HEADERS["daily_limit"]]
        with self.assertRaisesRegex(ValueError, "X-RateLimit-Daily-Limit"):
            analysis_api.read_rate_limit(partial)
        with self.assertRaisesRegex(ValueError, "X-RateLimit-Remaining"):
            analysis_api.read_rate_limit({**rate_headers(), analysis_api.RATE_LIMIT_HEADERS["remaining"]: "many"})
        lower = {k.lower(): v for k, v in rate_headers(3).items()}
        self.assertEqual(analysis_api.read_rate_limit(lower), analysis_api.RateLimit(10, 3, 1795459440, 500, 400))

    def test_on_rate_limit_sees_every_response_retried_429s_included(self) -> None:
        seen: List[Tuple[int, int]] = []
        answers = [Answer(429, rate_headers(0, retry_after=1), {"detail": "x"}), Answer(200, rate_headers(9), {"id": ANALYSIS_ID})]
        with FakeServer(answers) as server:
            c = client(server.url, FakeClock(), on_rate_limit=lambda rl, response: seen.append((response.status, rl.remaining)))
            c.get_analysis(ANALYSIS_ID)
        self.assertEqual(seen, [(429, 0), (200, 9)])
        self.assertEqual(c.last_rate_limit, analysis_api.RateLimit(10, 9, 1795459440, 500, 400))

    def test_malformed_headers_do_not_fail_the_call(self) -> None:
        seen: List[analysis_api.RateLimit] = []
        with FakeServer([Answer(201, {**rate_headers(), "X-RateLimit-Reset": "soon"}, {"id": "spk_1"})]) as server:
            c = client(server.url, on_rate_limit=lambda rl, r: seen.append(rl))
            self.assertEqual(c.create_speaker({"name": "Dana"}), {"id": "spk_1"})
        self.assertEqual((seen, c.last_rate_limit), ([], None))

    def test_last_rate_limit_is_per_thread(self) -> None:
        def answer(request: object, n: int) -> Answer:
            return Answer(200, rate_headers(n), {"data": [], "next_cursor": None, "has_more": False})

        with FakeServer(answer) as server:
            c = client(server.url)
            c.list_speakers()
            other: List[object] = []
            t = threading.Thread(target=lambda: other.append(c.last_rate_limit))
            t.start()
            t.join()
        self.assertEqual(other, [None])
        assert c.last_rate_limit is not None
        self.assertEqual(c.last_rate_limit.remaining, 1)


if __name__ == "__main__":
    unittest.main()
