"""Retries, the retry budget, timeouts and credentials per attempt, against a scripted server."""

from __future__ import annotations

import email.utils
import time
import unittest

from support import Answer, FakeClock, FakeServer, analysis_api, client, rate_headers

LIST = {"data": [], "next_cursor": None, "has_more": False}


class RetryTest(unittest.TestCase):
    def test_429_waits_retry_after_then_succeeds(self) -> None:
        clock = FakeClock()
        answers = [
            Answer(429, rate_headers(0, retry_after=7), {"detail": "slow down", "error": "rate_limit_exceeded", "limit": 10, "window": "1 minute", "retry_after": 7}),
            Answer(200, rate_headers(9), LIST),
        ]
        with FakeServer(answers) as server:
            self.assertEqual(client(server.url, clock).analyses.list(), LIST)
        self.assertEqual(len(server.requests), 2)
        # Retry-After plus jitter (random() = 0.5 times the 0.5 s base delay).
        self.assertEqual(clock.waits, [7.25])

    def test_429_with_an_http_date_retry_after_waits_until_then(self) -> None:
        # Issue 34: an HTTP-date Retry-After (a proxy's) was ignored and the client backed off 0.5 s.
        when = email.utils.formatdate(time.time() + 30, usegmt=True)
        clock = FakeClock()
        with FakeServer([Answer(429, {"Retry-After": when}, "slow down"), Answer(200, rate_headers(9), LIST)]) as server:
            client(server.url, clock).analyses.list()
        self.assertEqual(len(clock.waits), 1)
        self.assertTrue(29 <= clock.waits[0] <= 31.5, clock.waits)
        self.assertEqual(analysis_api.read_rate_limit({**rate_headers(0), "Retry-After": email.utils.formatdate(1000.0, usegmt=True)}).retry_after, 0)  # type: ignore[union-attr]

    def test_429_without_retry_after_backs_off(self) -> None:
        clock = FakeClock()
        with FakeServer([Answer(429, {}, {"detail": "slow"}), Answer(200, {}, LIST)]) as server:
            client(server.url, clock).analyses.list()
        self.assertEqual(clock.waits, [0.375])  # d = 0.5: d/2 + 0.5 * d/2

    def test_5xx_back_off_exponentially_until_the_attempts_are_spent(self) -> None:
        for status in (500, 502, 503, 504):
            clock = FakeClock()
            with FakeServer([Answer(status, {}, {"detail": "down"})]) as server:
                with self.assertRaises(analysis_api.ApiError) as caught:
                    client(server.url, clock).analyses.list()
            self.assertEqual(caught.exception.status, status)
            self.assertEqual(caught.exception.kind, "server")
            self.assertEqual(len(server.requests), 3, status)
            self.assertEqual(clock.waits, [0.375, 0.75], status)

    def test_other_statuses_are_not_retried(self) -> None:
        for status in (400, 401, 403, 404, 409, 422, 501):
            with FakeServer([Answer(status, {}, {"detail": "no"})]) as server:
                with self.assertRaises(analysis_api.ApiError):
                    client(server.url, FakeClock()).analyses.list()
            self.assertEqual(len(server.requests), 1, status)

    def test_a_wait_past_the_budget_is_not_started(self) -> None:
        clock = FakeClock()
        daily = {"detail": "Daily limit", "error": "daily_limit_exceeded", "limit": 500, "window": "1 day", "retry_after": 3600}
        with FakeServer([Answer(429, rate_headers(0, retry_after=3600), daily)]) as server:
            with self.assertRaises(analysis_api.RateLimitError) as caught:
                client(server.url, clock).analyses.list()
        self.assertEqual(len(server.requests), 1)
        self.assertEqual(clock.waits, [])
        self.assertEqual((caught.exception.error, caught.exception.retry_after), ("daily_limit_exceeded", 3600))

    def test_the_budget_counts_time_spent_waiting(self) -> None:
        clock = FakeClock()
        with FakeServer([Answer(429, rate_headers(0, retry_after=40), {"detail": "x"})]) as server:
            with self.assertRaises(analysis_api.ApiError):
                client(server.url, clock).analyses.list()
        # 40 s fits in 60 s; a second 40 s wait would end after it.
        self.assertEqual((len(server.requests), len(clock.waits)), (2, 1))

    def test_retry_policy_can_be_changed_or_turned_off(self) -> None:
        with FakeServer([Answer(503, {}, {"detail": "x"})]) as server:
            with self.assertRaises(analysis_api.ApiError):
                client(server.url, FakeClock(), retry=False).analyses.list()
            self.assertEqual(len(server.requests), 1)
            with self.assertRaises(analysis_api.ApiError):
                client(server.url, FakeClock(), retry=analysis_api.Retry(max_attempts=5)).analyses.list()
            self.assertEqual(len(server.requests), 6)
            with self.assertRaises(analysis_api.ApiError):
                client(server.url, FakeClock()).with_options(retry=False).analyses.list()
            self.assertEqual(len(server.requests), 7)
        with self.assertRaises(ValueError):
            analysis_api.Retry(max_attempts=0)

    def test_network_errors_are_retried_then_raised(self) -> None:
        server = FakeServer([Answer()])
        url = server.url
        server.close()  # nothing listens there any more
        clock = FakeClock()
        with self.assertRaises(analysis_api.NetworkError) as caught:
            client(url, clock).analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0")
        self.assertEqual(len(clock.waits), 2)
        self.assertIsInstance(caught.exception, ConnectionError)
        self.assertIn("GET /v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0", str(caught.exception))

    def test_the_body_is_sent_again_byte_for_byte(self) -> None:
        with FakeServer([Answer(503, {}, {"detail": "x"}), Answer(202, {}, {"id": "anl_1"})]) as server:
            client(server.url, FakeClock()).analyses.create({"media_url": "https://media.example.com/a.mp3", "media_type": "audio"})
        self.assertEqual(server.requests[0].body, server.requests[1].body)
        self.assertEqual(server.requests[1].body, b'{"media_url":"https://media.example.com/a.mp3","media_type":"audio"}')

    def test_a_streamed_body_is_sent_once(self) -> None:
        with FakeServer([Answer(503, {}, {"detail": "x"})]) as server:
            with self.assertRaises(analysis_api.ApiError):
                client(server.url, FakeClock()).stream_uploads.create(iter([b"abc", b"def"]), media_type="audio")
        self.assertEqual(len(server.requests), 1)
        self.assertEqual(server.requests[0].body, b"abcdef")
        self.assertEqual(server.requests[0].headers.get("Transfer-Encoding"), "chunked")


class TimeoutTest(unittest.TestCase):
    def test_no_headers_within_the_timeout_is_retried_then_raised(self) -> None:
        with FakeServer([Answer(200, {}, LIST, delay=1.0)]) as server:
            c = client(server.url, timeout=0.2, retry=analysis_api.Retry(max_attempts=2, base_delay=0.01))
            with self.assertRaises(analysis_api.RequestTimeoutError) as caught:
                c.analyses.list()
            server.wait_for(2)
        self.assertEqual(len(server.requests), 2)
        self.assertIsInstance(caught.exception, TimeoutError)

    def test_a_body_that_stalls_is_a_timeout_and_not_retried(self) -> None:
        head = b'{"data": ['
        with FakeServer([Answer(200, {"Content-Type": "application/json"}, chunks=[(0, head), (1.0, b"]}")])]) as server:
            with self.assertRaises(analysis_api.RequestTimeoutError):
                client(server.url, timeout=0.3).analyses.list()
        self.assertEqual(len(server.requests), 1)

    def test_a_body_cut_short_is_raised_and_not_retried(self) -> None:
        with FakeServer([Answer(200, {"Content-Type": "application/json"}, '{"data": [', declared_length=200)]) as server:
            with self.assertRaises(analysis_api.NetworkError) as caught:
                client(server.url, FakeClock()).analyses.list()
        self.assertEqual(len(server.requests), 1)
        self.assertIn("cut short", str(caught.exception))

    def test_timeout_none_waits(self) -> None:
        with FakeServer([Answer(200, {}, LIST, delay=0.3)]) as server:
            self.assertEqual(client(server.url, timeout=0.1).with_options(timeout=None).analyses.list(), LIST)


class CredentialsTest(unittest.TestCase):
    def test_missing_or_both_credentials_raise_before_any_request(self) -> None:
        cases = [
            ({}, "no credentials: pass api_key"),
            ({"api_key": "pk_test_a", "token": "jwt"}, "not both"),
            ({"api_key": ""}, "api_key must be a non-empty string"),
            ({"api_key": "pk test"}, "without spaces"),
            ({"token": 42}, "token must be a string or a function"),
        ]
        with FakeServer([Answer(200, {}, LIST)]) as server:
            for kwargs, message in cases:
                with self.assertRaisesRegex(analysis_api.CredentialsError, message, msg=str(kwargs)):
                    analysis_api.Client(server.url, **kwargs)
        self.assertEqual(server.requests, [])

    def test_api_key_goes_in_x_api_key(self) -> None:
        with FakeServer([Answer(200, {}, LIST)]) as server:
            analysis_api.Client(server.url, api_key="pk_test_abc").analyses.list(status="completed", limit=5)
        request = server.requests[0]
        self.assertEqual(request.headers.get(analysis_api.API_KEY_HEADER), "pk_test_abc")
        self.assertNotIn("Authorization", request.headers)
        self.assertEqual(request.path, "/v1/analyses?limit=5&status=completed")

    def test_a_token_function_is_asked_afresh_for_every_attempt(self) -> None:
        tokens = iter(["jwt.one", "jwt.two"])
        with FakeServer([Answer(503, {}, {"detail": "x"}), Answer(200, {}, LIST)]) as server:
            client(server.url, FakeClock(), api_key=None, token=lambda: next(tokens)).analyses.list()
        self.assertEqual([r.headers.get("Authorization") for r in server.requests], ["Bearer jwt.one", "Bearer jwt.two"])

    def test_a_bad_token_from_the_function_raises_without_the_value(self) -> None:
        with FakeServer([Answer(200, {}, LIST)]) as server:
            with self.assertRaises(analysis_api.CredentialsError) as caught:
                client(server.url, api_key=None, token=lambda: "secret value").analyses.list()
        self.assertNotIn("secret value", str(caught.exception))
        self.assertEqual(server.requests, [])


if __name__ == "__main__":
    unittest.main()
