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
                client(server.url, retry=False).analyses.get(ANALYSIS_ID)
        return caught.exception

    def test_every_status_raises_its_class(self) -> None:
        table = {
            400: (analysis_api.BadRequestError, "bad_request"),
            401: (analysis_api.AuthenticationError, "unauthorized"),
            403: (analysis_api.PermissionDeniedError, "forbidden"),
            404: (analysis_api.NotFoundError, "not_found"),
            409: (analysis_api.ConflictError, "conflict"),
            500: (analysis_api.InternalServerError, "server"),
            503: (analysis_api.InternalServerError, "server"),
            418: (analysis_api.ApiStatusError, "http"),
        }
        for status, (cls, kind) in table.items():
            e = self.raised(Answer(status, {}, {"detail": "Analysis not found.", "error": "some_code"}))
            self.assertIs(type(e), cls, status)
            assert isinstance(e, analysis_api.ApiStatusError)
            self.assertEqual((e.status, e.kind, e.detail, e.error), (status, kind, "Analysis not found.", "some_code"))
            self.assertIsInstance(e, analysis_api.ApiError)
            self.assertEqual((e.method, e.path), ("GET", f"/v1/analyses/{ANALYSIS_ID}"))
            self.assertEqual(str(e), f"GET /v1/analyses/{ANALYSIS_ID} failed with {status}: Analysis not found.")

    def test_422_is_a_validation_error_with_its_items(self) -> None:
        items = [{"loc": ["body", "rate_limit_rpm"], "msg": "must be >= 1", "type": "minimum"}, {"loc": ["query", "limit", 0], "msg": "bad", "type": "type"}]
        e = self.raised(Answer(422, {}, {"detail": items}))
        self.assertIs(type(e), analysis_api.UnprocessableEntityError)
        self.assertIs(analysis_api.ValidationError, analysis_api.UnprocessableEntityError)
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
        assert isinstance(e, analysis_api.ApiStatusError)
        self.assertEqual((type(e), e.detail, e.body, e.error), (analysis_api.InternalServerError, "<html> Bad gateway </html>", "<html>\n  Bad   gateway\n</html>", None))
        e = self.raised(Answer(404, {}, b""))
        self.assertEqual(e.detail, "Not Found")

    def test_messages_never_carry_the_query(self) -> None:
        with FakeServer([Answer(400, {}, {"detail": "bad"})]) as server:
            with self.assertRaises(analysis_api.ApiError) as caught:
                client(server.url, retry=False).analyses.list(use_case_id="uc_secret_in_query")
        self.assertNotIn("uc_secret", str(caught.exception))
        self.assertEqual(caught.exception.path, "/v1/analyses")


    def test_a_429_is_a_rate_limit_error_whatever_its_body(self) -> None:
        e = self.raised(Answer(429, {"Content-Type": "text/html", "Retry-After": "7"}, "<html>Too many</html>"))
        assert isinstance(e, analysis_api.RateLimitError)
        self.assertEqual((e.retry_after, e.error, e.detail), (7, None, "<html>Too many</html>"))

    def test_errors_pickle_and_deep_copy_with_their_attributes(self) -> None:
        import copy
        import pickle

        e = self.raised(Answer(404, {"X-Request-Id": "req_1"}, {"detail": "Analysis not found.", "error": "gone"}))
        for twin in (pickle.loads(pickle.dumps(e)), copy.deepcopy(e)):
            self.assertIs(type(twin), analysis_api.NotFoundError)
            assert isinstance(twin, analysis_api.NotFoundError)
            self.assertEqual((str(twin), twin.status, twin.error, twin.detail, twin.path), (str(e), 404, "gone", "Analysis not found.", e.path))
            self.assertEqual(twin.response.headers["X-Request-Id"], "req_1")
        timeout = analysis_api.RequestTimeoutError("GET", "/v1/x", 2.0)
        self.assertEqual(str(pickle.loads(pickle.dumps(timeout))), str(timeout))
        webhook = analysis_api.WebhookVerificationError("signature_mismatch", "no")
        self.assertEqual(pickle.loads(pickle.dumps(webhook)).reason, "signature_mismatch")

    def test_a_404_crosses_a_process_pool_as_itself(self) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        e = self.raised(Answer(404, {}, {"detail": "Analysis not found."}))
        # spawn: forking a process that runs server threads is unsafe (3.12+ warns).
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
            with self.assertRaises(analysis_api.NotFoundError) as caught:
                pool.submit(_raise, e).result()
        self.assertEqual(caught.exception.status, 404)

    def test_classes_are_named_after_the_public_module(self) -> None:
        for name in ("ApiError", "NotFoundError", "RateLimitError", "NetworkError", "ValidationError"):
            cls = getattr(analysis_api, name)
            self.assertEqual(cls.__module__, "analysis_api", name)
            self.assertIn(name, analysis_api.__all__)
        self.assertTrue(issubclass(analysis_api.NetworkError, analysis_api.ApiError))
        self.assertTrue(issubclass(analysis_api.RequestTimeoutError, analysis_api.ApiError))


def _raise(e: BaseException) -> None:
    raise e


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
            c.analyses.get(ANALYSIS_ID)
        self.assertEqual(seen, [(429, 0), (200, 9)])
        self.assertEqual(c.last_rate_limit, analysis_api.RateLimit(10, 9, 1795459440, 500, 400))

    def test_malformed_headers_do_not_fail_the_call(self) -> None:
        seen: List[analysis_api.RateLimit] = []
        with FakeServer([Answer(201, {**rate_headers(), "X-RateLimit-Reset": "soon"}, {"id": "spk_1"})]) as server:
            c = client(server.url, on_rate_limit=lambda rl, r: seen.append(rl))
            self.assertEqual(c.speakers.create({"name": "Dana"}), {"id": "spk_1"})
        self.assertEqual((seen, c.last_rate_limit), ([], None))

    def test_last_rate_limit_is_per_thread(self) -> None:
        def answer(request: object, n: int) -> Answer:
            return Answer(200, rate_headers(n), {"data": [], "next_cursor": None, "has_more": False})

        with FakeServer(answer) as server:
            c = client(server.url)
            c.speakers.list()
            other: List[object] = []
            t = threading.Thread(target=lambda: other.append(c.last_rate_limit))
            t.start()
            t.join()
        self.assertEqual(other, [None])
        assert c.last_rate_limit is not None
        self.assertEqual(c.last_rate_limit.remaining, 1)


if __name__ == "__main__":
    unittest.main()
