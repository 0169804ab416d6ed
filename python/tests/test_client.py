"""The second-generation sync client (issue 23): connection reuse, close and `with`, per-call options,
`with_options`, `with_raw_response`, environment defaults, logging without secrets, reprs that hide secrets,
refused timeouts and empty ids, gzip, and issue 21's `Idempotency-Key` on retried writes."""

from __future__ import annotations

import gzip
import inspect
import json
import logging
import os
import socket
import subprocess
import sys
import unittest
from typing import Dict, Iterator
from unittest import mock

from support import Answer, FakeClock, FakeServer, analysis_api, client

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
ANALYSIS = {"id": ANALYSIS_ID, "status": "queued"}
CREATE = {"media_url": "https://media.example.com/a.mp3", "media_type": "audio"}


class ConnectionTest(unittest.TestCase):
    def test_sequential_calls_reuse_one_connection(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)], keep_alive=True) as server:
            with client(server.url) as c:
                for _ in range(3):
                    c.analyses.get(ANALYSIS_ID)
        self.assertEqual(len({r.peer for r in server.requests}), 1)
        self.assertNotIn("close", server.requests[0].headers.get("Connection", ""))

    def test_close_and_with_close_the_pool(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)], keep_alive=True) as server:
            with client(server.url) as c:
                c.analyses.get(ANALYSIS_ID)
                self.assertEqual(sum(len(v) for v in c._transport._idle.values()), 1)
            self.assertEqual(c._transport._idle, {})
            with self.assertRaisesRegex(RuntimeError, "closed"):
                c.analyses.get(ANALYSIS_ID)

    def test_a_connection_the_server_closed_while_idle_is_replaced(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)], keep_alive=True) as server:
            c = client(server.url, retry=False)
            c.analyses.get(ANALYSIS_ID)
            for idle in c._transport._idle.values():
                for conn, _ in idle:
                    assert conn.sock is not None
                    conn.sock.shutdown(socket.SHUT_RDWR)  # as if the server had dropped it while idle
            self.assertEqual(c.analyses.get(ANALYSIS_ID), ANALYSIS)
            c.close()


    def test_one_client_serves_several_threads(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        with FakeServer([Answer(200, {}, ANALYSIS)], keep_alive=True) as server:
            with client(server.url) as c, ThreadPoolExecutor(4) as pool:
                results = list(pool.map(lambda _: c.analyses.get(ANALYSIS_ID), range(40)))
        self.assertEqual(results, [ANALYSIS] * 40)
        self.assertLessEqual(len({r.peer for r in server.requests}), 4)


    def test_a_connection_the_server_dropped_while_idle_is_not_used_for_a_write(self) -> None:
        import select

        with FakeServer([Answer(201, {}, ANALYSIS)], drop_idle=True) as server:
            c = client(server.url, retry=False)  # no retries, so no Idempotency-Key: a lost write could not be resent
            c._transport.check_idle_after = 0  # check at once (a real server drops idle connections after seconds)
            c.analyses.create(CREATE)
            [idle] = [conn for conns in c._transport._idle.values() for conn, _ in conns]
            assert idle.sock is not None
            select.select([idle.sock], [], [], 10)  # until the server's close has arrived
            self.assertEqual(c.analyses.create(CREATE), ANALYSIS)
            c.close()
        self.assertEqual(len({r.peer for r in server.requests}), 2)


class OptionsTest(unittest.TestCase):
    def test_timeout_0_is_refused(self) -> None:
        with self.assertRaisesRegex(ValueError, "positive number of seconds"):
            client("http://127.0.0.1:9", timeout=0)
        c = client("http://127.0.0.1:9")
        with self.assertRaisesRegex(ValueError, "positive number"):
            c.with_options(timeout=0)
        with self.assertRaisesRegex(ValueError, "positive number"):
            c.analyses.get(ANALYSIS_ID, timeout=0)

    def test_an_empty_path_id_is_refused_before_sending(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            for bad in ("", "  "):
                with self.assertRaisesRegex(ValueError, "analysis_id is empty"):
                    client(server.url).analyses.get(bad)
        self.assertEqual(server.requests, [])

    def test_per_call_headers_query_timeout_and_retry(self) -> None:
        with FakeServer([Answer(503, {}, {"detail": "x"}), Answer(200, {}, ANALYSIS)]) as server:
            c = client(server.url, FakeClock(), headers={"X-Client": "a"})
            with self.assertRaises(analysis_api.InternalServerError):
                c.analyses.get(ANALYSIS_ID, retry=False, extra_headers={"X-Trace": "t1"}, extra_query={"expand": "x"})
            self.assertEqual(c.analyses.get(ANALYSIS_ID, timeout=5), ANALYSIS)
        first = server.requests[0]
        self.assertEqual((first.headers["X-Trace"], first.headers["X-Client"]), ("t1", "a"))
        self.assertTrue(first.path.endswith("?expand=x"), first.path)
        self.assertNotIn("X-Trace", server.requests[1].headers)

    def test_with_options_sets_headers_too(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            base = client(server.url)
            base.with_options(headers={"X-Tenant": "t"}).analyses.get(ANALYSIS_ID)
            base.analyses.get(ANALYSIS_ID)
        self.assertEqual(server.requests[0].headers.get("X-Tenant"), "t")
        self.assertNotIn("X-Tenant", server.requests[1].headers)

    def test_with_raw_response_gives_status_and_headers(self) -> None:
        with FakeServer([Answer(201, {"X-Request-Id": "req_7"}, ANALYSIS)]) as server:
            raw = client(server.url).with_raw_response.analyses.create(CREATE)
        self.assertEqual((raw.status, raw.headers["X-Request-Id"], raw.parse()), (201, "req_7", ANALYSIS))

    def test_an_on_request_hook_sees_and_changes_each_call(self) -> None:
        # Issue 34: no hook for tracing.
        seen = []

        def trace(method: str, path: str, headers: Dict[str, str]) -> None:
            seen.append((method, path, "X-API-Key" in headers))
            headers["traceparent"] = "00-abc-def-01"

        with FakeServer([Answer(503, {}, {"detail": "busy"}), Answer(200, {}, ANALYSIS)]) as server:
            client(server.url, FakeClock(), on_request=trace).analyses.get(ANALYSIS_ID)
        self.assertEqual(seen, [("GET", f"/v1/analyses/{ANALYSIS_ID}", False)])
        self.assertEqual([r.headers.get("traceparent") for r in server.requests], ["00-abc-def-01"] * 2)

    def test_default_query_and_extra_body(self) -> None:
        # Issue 34: neither existed.
        with FakeServer([Answer(201, {}, ANALYSIS)]) as server:
            c = client(server.url, default_query={"trace": "t1", "region": "eu"})
            c.analyses.create(CREATE, extra_body={"priority": "high"}, extra_query={"region": "us"})
        request = server.requests[0]
        self.assertEqual(json.loads(request.body), {**CREATE, "priority": "high"})
        self.assertIn("trace=t1", request.path)
        self.assertIn("region=us", request.path)
        self.assertNotIn("region=eu", request.path)
        self.assertNotIn("extra_body", inspect.signature(c.stream_uploads.create).parameters)

    def test_a_raw_response_tells_its_elapsed_time_and_retries_taken(self) -> None:
        # Issue 34: neither was known.
        answers = [Answer(503, {}, {"detail": "busy"}), Answer(200, {}, ANALYSIS, delay=0.2)]
        with FakeServer(answers) as server:
            raw = client(server.url, FakeClock()).with_raw_response.analyses.get(ANALYSIS_ID)
        self.assertEqual((raw.retries_taken, raw.parse()), (1, ANALYSIS))
        self.assertGreaterEqual(raw.elapsed, 0.2)
        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            self.assertEqual(client(server.url).with_raw_response.analyses.get(ANALYSIS_ID).retries_taken, 0)

    def test_gzip_bodies_are_decoded(self) -> None:
        body = gzip.compress(json.dumps(ANALYSIS).encode())
        with FakeServer([Answer(200, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, body)]) as server:
            self.assertEqual(client(server.url).analyses.get(ANALYSIS_ID), ANALYSIS)
        self.assertEqual(server.requests[0].headers.get("Accept-Encoding"), "gzip")


class ProxyTest(unittest.TestCase):
    def test_plain_http_goes_to_the_proxy_with_the_absolute_url(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)]) as proxy:
            c = client("http://api.example.test", proxy=proxy.url.replace("http://", "http://me:s3cret@"))
            self.assertEqual(c.analyses.get(ANALYSIS_ID), ANALYSIS)
            self.assertNotIn("s3cret", repr(c._proxy))
        request = proxy.requests[0]
        self.assertEqual(request.path, f"http://api.example.test/v1/analyses/{ANALYSIS_ID}")
        self.assertEqual(request.headers["Proxy-Authorization"], "Basic bWU6czNjcmV0")
        with self.assertRaisesRegex(ValueError, "http:// URL"):
            client("http://api.example.test", proxy="socks5://p:1080")

    def test_https_goes_through_a_connect_tunnel(self) -> None:
        with FakeServer([Answer(403, {}, {"detail": "no"})]) as proxy:
            c = client("https://api.example.test", proxy=proxy.url.replace("http://", "http://me:s3cret@"), retry=False)
            with self.assertRaises(analysis_api.NetworkError):
                c.analyses.get(ANALYSIS_ID)  # the test proxy refuses the tunnel
        request = proxy.requests[0]
        self.assertEqual((request.method, request.path), ("CONNECT", "api.example.test:443"))
        self.assertEqual(request.headers["Proxy-Authorization"], "Basic bWU6czNjcmV0")

    def test_proxy_settings_are_not_read_from_the_environment(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            with mock.patch.dict(os.environ, {"HTTP_PROXY": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9"}):
                self.assertEqual(client(server.url).analyses.get(ANALYSIS_ID), ANALYSIS)


class EnvironmentTest(unittest.TestCase):
    def test_base_url_and_key_from_the_environment(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            env = {analysis_api.ENV_BASE_URL: server.url, analysis_api.ENV_API_KEY: "pk_test_from_env"}
            with mock.patch.dict(os.environ, env):
                analysis_api.Client().analyses.get(ANALYSIS_ID)
        self.assertEqual(server.requests[0].headers["X-API-Key"], "pk_test_from_env")

    def test_without_them_the_error_names_the_variables(self) -> None:
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaisesRegex(ValueError, analysis_api.ENV_BASE_URL):
                analysis_api.Client(api_key="k")
            with self.assertRaisesRegex(analysis_api.CredentialsError, analysis_api.ENV_API_KEY):
                analysis_api.Client("https://api.example.com")


class SecretsTest(unittest.TestCase):
    def test_the_logger_never_prints_a_credential_or_the_query(self) -> None:
        with FakeServer([Answer(503, {}, {"detail": "x"}), Answer(200, {}, {"data": [ANALYSIS], "next_cursor": None, "has_more": False})]) as server:
            with self.assertLogs("analysis_api", logging.DEBUG) as logs:
                client(server.url, FakeClock(), api_key="pk_live_SECRET").analyses.list(use_case_id="uc_private")
        text = "\n".join(logs.output)
        self.assertIn("GET /v1/analyses", text)
        self.assertIn("retrying", text)
        self.assertNotIn("SECRET", text)
        self.assertNotIn("uc_private", text)
        self.assertEqual(analysis_api.redacted({"X-API-Key": "k", "Authorization": "Bearer t", "Accept": "a"}), {"X-API-Key": "***", "Authorization": "***", "Accept": "a"})

    def test_an_environment_switch_turns_logging_on(self) -> None:
        # Issue 34: logging needed `logging` configured by hand. Issue 49: at `info` it printed nothing.
        with FakeServer([Answer(200, {"X-Request-Id": "req_env"}, ANALYSIS)]) as server:
            code = f"import analysis_api; analysis_api.Client({server.url!r}, api_key='pk_live_SECRET').analyses.get({ANALYSIS_ID!r})"
            env = {**os.environ, "ANALYSIS_API_LOG": "info", "PYTHONPATH": os.pathsep.join(sys.path)}
            run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn(f"GET /v1/analyses/{ANALYSIS_ID} -> 200 (request id req_env)", run.stderr)
        self.assertNotIn("SECRET", run.stderr)

    def test_reprs_hide_secrets(self) -> None:
        c = client("https://api.example.com", api_key="pk_live_SECRET")
        self.assertNotIn("SECRET", repr(c))
        self.assertNotIn("SECRET", repr(c._config))
        created = {"id": "key_1", "secret": "pk_live_SECRET", "name": "ci"}
        with FakeServer([Answer(201, {}, created)]) as server:
            key = client(server.url).api_keys.create({"name": "ci"})
        self.assertEqual(key["secret"], "pk_live_SECRET")  # still the value
        self.assertNotIn("SECRET", repr(key))
        self.assertNotIn("SECRET", str(key))


class IdempotencyTest(unittest.TestCase):
    """Issue 21, the Python part: a retried write carries one `Idempotency-Key` for all its attempts."""

    def keys(self, server: FakeServer) -> list:
        return [r.headers.get("Idempotency-Key") for r in server.requests]

    def test_a_slow_server_gets_every_attempt_with_the_same_key(self) -> None:
        with FakeServer([Answer(201, {}, ANALYSIS, delay=1.0)]) as server:
            c = client(server.url, timeout=0.2, retry=analysis_api.Retry(max_attempts=3, base_delay=0.01))
            with self.assertRaises(analysis_api.RequestTimeoutError):
                c.analyses.create(CREATE)
            server.wait_for(3)
            keys = self.keys(server)
            self.assertEqual(len(keys), 3)
            self.assertEqual(len(set(keys)), 1)
            self.assertRegex(keys[0] or "", r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

    def test_a_new_key_per_call_and_the_caller_s_own_wins(self) -> None:
        with FakeServer([Answer(201, {}, ANALYSIS)]) as server:
            c = client(server.url)
            c.analyses.create(CREATE)
            c.analyses.create(CREATE)
            c.analyses.create(CREATE, idempotency_key="order-42")
            c.analyses.create(CREATE, extra_headers={"Idempotency-Key": "from-headers"})
            c.analyses.update(ANALYSIS_ID, {"title": "x"}, idempotency_key="patch-1")
            c.analyses.get(ANALYSIS_ID)
        keys = self.keys(server)
        self.assertNotEqual(keys[0], keys[1])
        self.assertEqual(keys[2:], ["order-42", "from-headers", "patch-1", None])

    def test_a_write_without_a_key_is_not_resent_once_sent(self) -> None:
        from analysis_api._calls._core import RetryState
        from analysis_api._http._bodies import EncodedBody
        from analysis_api._http._transport_types import Request

        clock = FakeClock()
        core_clock = analysis_api._calls._core.Clock(clock.sleep, clock.monotonic, lambda: 0.5)
        for method, headers, sent, retried in [
            ("POST", {}, True, False),  # a timeout after sending: the server may have acted
            ("POST", {}, False, True),  # refused before sending: safe to send again
            ("POST", {"Idempotency-Key": "k"}, True, True),
            ("PATCH", {}, True, False),
            ("GET", {}, True, True),
        ]:
            request = Request(method, "http://x/v1/a", "/v1/a", headers, EncodedBody([b"{}"], "application/json"), retry=analysis_api.Retry())
            state = RetryState(request, core_clock)
            state.begin()
            wait = state.after_failure(TimeoutError() if sent else ConnectionRefusedError(), sent=sent)
            self.assertEqual(wait is not None, retried, (method, headers, sent))

    def test_with_retries_off_no_key_is_invented(self) -> None:
        with FakeServer([Answer(201, {}, ANALYSIS)]) as server:
            client(server.url, retry=False).analyses.create(CREATE)
        self.assertEqual(self.keys(server), [None])


if __name__ == "__main__":
    unittest.main()
