"""A wrappable HTTP layer (issue 49, decision PY39): the default transports are public (`HTTPTransport`,
`AsyncHTTPTransport`), so a wrapper can add a header, time the exchange and forward to them; and `event_hooks=`
are told every attempt's final request (credentials redacted) and every response. Sync and async, against a
scripted loopback server."""

from __future__ import annotations

import time
import unittest
from typing import Any, List

from support import Answer, FakeClock, FakeServer, analysis_api

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
ANALYSIS = {"id": ANALYSIS_ID, "status": "queued"}
KEY = "pk_test_python_wrapping"


class Tracing:
    """A tracing wrapper as a user writes it: adds `traceparent`, times the exchange, forwards to the default."""

    def __init__(self) -> None:
        self.inner = analysis_api.HTTPTransport()
        self.timings: List[float] = []
        self.seen: List[analysis_api.HttpRequest] = []

    def handle_request(self, request: analysis_api.HttpRequest) -> analysis_api.HttpResponse:
        request.headers["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        started = time.perf_counter()
        try:
            return self.inner.handle_request(request)
        finally:
            self.timings.append(time.perf_counter() - started)
            self.seen.append(request)

    def close(self) -> None:
        self.inner.close()


class AsyncTracing:
    def __init__(self) -> None:
        self.inner = analysis_api.AsyncHTTPTransport()
        self.timings: List[float] = []

    async def handle_async_request(self, request: analysis_api.HttpRequest) -> analysis_api.HttpResponse:
        request.headers["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        started = time.perf_counter()
        try:
            return await self.inner.handle_async_request(request)
        finally:
            self.timings.append(time.perf_counter() - started)

    async def aclose(self) -> None:
        await self.inner.aclose()


def busy_then_ok() -> List[Answer]:
    return [Answer(503, {"X-Request-Id": "req_busy"}, {"detail": "busy"}), Answer(200, {"X-Request-Id": "req_ok"}, ANALYSIS)]


class SyncWrappingTest(unittest.TestCase):
    def test_a_tracing_wrapper_adds_a_header_times_and_forwards_to_the_default_transport(self) -> None:
        tracing = Tracing()
        with FakeServer(busy_then_ok()) as server:
            with analysis_api.Client(server.url, api_key=KEY, transport=tracing, sleep=FakeClock().sleep) as client:
                raw = client.with_raw_response.analyses.get(ANALYSIS_ID)
        self.assertEqual(raw.parse().status, "queued")
        self.assertEqual(raw.request_id, "req_ok")
        self.assertEqual(len(server.requests), 2)  # the client's retry policy still applies around the wrapper
        for sent in server.requests:
            self.assertEqual(sent.headers.get("traceparent"), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            self.assertEqual(sent.headers.get("X-API-Key"), KEY)
            self.assertEqual(sent.path, f"/v1/analyses/{ANALYSIS_ID}")
        self.assertEqual(len(tracing.timings), 2)
        self.assertTrue(all(t > 0 for t in tracing.timings))
        self.assertIsNotNone(tracing.seen[0].timeout)  # the call's timeout reaches the transport

    def test_the_default_transport_reports_no_answer_so_the_client_retries_and_then_raises(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            url = server.url
        tracing = Tracing()  # the server is gone: connection refused on every attempt
        with analysis_api.Client(url, api_key=KEY, transport=tracing, max_retries=2, sleep=FakeClock().sleep) as client:
            with self.assertRaises(analysis_api.NetworkError):
                client.analyses.get(ANALYSIS_ID)
        self.assertEqual(len(tracing.timings), 3)

    def test_event_hooks_see_the_final_request_redacted_and_every_response(self) -> None:
        requests: List[analysis_api.HttpRequest] = []
        responses: List[analysis_api.Response] = []
        with FakeServer(busy_then_ok()) as server:
            client = analysis_api.Client(server.url, api_key=KEY, sleep=FakeClock().sleep,
                                         event_hooks={"request": [requests.append], "response": [responses.append]})
            with client:
                client.analyses.get(ANALYSIS_ID, extra_query={"expand": "x"})
        self.assertEqual([r.method for r in requests], ["GET", "GET"])
        self.assertEqual(requests[0].url, f"{server.url}/v1/analyses/{ANALYSIS_ID}?expand=x")
        self.assertEqual(requests[0].headers["X-API-Key"], "***")
        self.assertNotIn(KEY, repr(requests))
        self.assertEqual(server.requests[0].headers.get("X-API-Key"), KEY)  # redacted for the hook only
        self.assertEqual([(r.status, r.request_id) for r in responses], [(503, "req_busy"), (200, "req_ok")])

    def test_event_hooks_redact_a_bearer_token_and_work_around_an_injected_transport(self) -> None:
        requests: List[analysis_api.HttpRequest] = []
        tracing = Tracing()
        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            with analysis_api.Client(server.url, token="eyJ.secret.jwt", transport=tracing, event_hooks={"request": [requests.append]}) as client:
                client.analyses.get(ANALYSIS_ID)
        self.assertEqual(requests[0].headers["Authorization"], "***")
        self.assertEqual(server.requests[0].headers.get("Authorization"), "Bearer eyJ.secret.jwt")

    def test_a_hook_that_raises_surfaces_as_an_event_hook_error_naming_it_and_is_not_retried(self) -> None:
        def broken(request: analysis_api.HttpRequest) -> None:
            raise ConnectionResetError("the tracer is down")  # an OSError: must not pass for a network failure

        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            with analysis_api.Client(server.url, api_key=KEY, event_hooks={"request": [broken]}) as client:
                with self.assertRaises(analysis_api.EventHookError) as caught:
                    client.analyses.get(ANALYSIS_ID)
        self.assertEqual(server.requests, [])
        message = str(caught.exception)
        self.assertIn("request hook", message)
        self.assertIn("broken", message)
        self.assertIn(f"GET /v1/analyses/{ANALYSIS_ID}", message)
        self.assertIn("ConnectionResetError: the tracer is down", message)
        self.assertIsInstance(caught.exception.__cause__, ConnectionResetError)

        def bad_response(response: analysis_api.Response) -> None:
            raise ValueError("no")

        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            with analysis_api.Client(server.url, api_key=KEY, event_hooks={"response": [bad_response]}) as client:
                with self.assertRaisesRegex(analysis_api.EventHookError, "response hook .*bad_response.* ValueError: no"):
                    client.analyses.get(ANALYSIS_ID)
        self.assertEqual(len(server.requests), 1)

    def test_event_hooks_are_checked_when_the_client_is_made(self) -> None:
        analysis_api.Client("http://127.0.0.1:9", api_key=KEY, event_hooks={"request": [print], "response": ()}).close()
        for bad, says in (({"requests": []}, "'requests': the kinds are 'request' and 'response'"), ({"request": print}, "must be a list of functions"),
                          ({"request": [42]}, "must be a list of functions"), ([print], "must be a dict")):
            with self.assertRaisesRegex((TypeError, ValueError), says):
                analysis_api.Client("http://127.0.0.1:9", api_key=KEY, event_hooks=bad)  # type: ignore[arg-type]


class AsyncWrappingTest(unittest.IsolatedAsyncioTestCase):
    async def test_a_tracing_wrapper_forwards_to_the_default_async_transport(self) -> None:
        tracing = AsyncTracing()
        with FakeServer(busy_then_ok()) as server:
            async with analysis_api.AsyncClient(server.url, api_key=KEY, transport=tracing, sleep=FakeClock().sleep) as client:
                analysis = await client.analyses.get(ANALYSIS_ID)
        self.assertEqual(analysis.status, "queued")
        self.assertEqual(len(server.requests), 2)
        self.assertTrue(all(r.headers.get("traceparent", "").startswith("00-0af7") for r in server.requests))
        self.assertTrue(all(r.headers.get("X-API-Key") == KEY for r in server.requests))
        self.assertEqual(len(tracing.timings), 2)

    async def test_event_hooks_redacted_and_a_raising_hook(self) -> None:
        requests: List[analysis_api.HttpRequest] = []
        responses: List[Any] = []
        with FakeServer(busy_then_ok()) as server:
            async with analysis_api.AsyncClient(server.url, api_key=KEY, sleep=FakeClock().sleep,
                                                event_hooks={"request": [requests.append], "response": [responses.append]}) as client:
                await client.analyses.get(ANALYSIS_ID)
        self.assertEqual([r.headers["X-API-Key"] for r in requests], ["***", "***"])
        self.assertEqual(requests[1].url, f"{server.url}/v1/analyses/{ANALYSIS_ID}")
        self.assertEqual([r.request_id for r in responses], ["req_busy", "req_ok"])

        def broken(request: analysis_api.HttpRequest) -> None:
            raise TimeoutError("slow tracer")

        with FakeServer([Answer(200, {}, ANALYSIS)]) as server:
            async with analysis_api.AsyncClient(server.url, api_key=KEY, event_hooks={"request": [broken]}) as client:
                with self.assertRaisesRegex(analysis_api.EventHookError, "request hook .*broken.* TimeoutError: slow tracer"):
                    await client.analyses.get(ANALYSIS_ID)
        self.assertEqual(server.requests, [])


if __name__ == "__main__":
    unittest.main()
