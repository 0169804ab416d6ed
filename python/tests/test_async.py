"""`AsyncClient` (issue 23): the same core as `Client` on asyncio streams, against the scripted server and the
mock gateway."""

from __future__ import annotations

import asyncio
import io
import os
import re
import unittest
from typing import Any, List

from support import MOCK_KEY_ENV, Answer, FakeServer, analysis_api, mock_url

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
ANALYSIS = {"id": ANALYSIS_ID, "status": "queued"}
SSE = {"Content-Type": "text/event-stream"}
STATUS = b'event: status\nid: evt_1\ndata: {"analysis_id": "a", "status": "processing", "progress": 1}\n\n'
COMPLETED = b'event: completed\nid: evt_2\ndata: {"id": "a", "status": "completed"}\n\n'


def async_client(url: str, **options: Any) -> analysis_api.AsyncClient:
    options.setdefault("api_key", "pk_test_python_unit")
    return analysis_api.AsyncClient(url, **options)


class AsyncClientTest(unittest.IsolatedAsyncioTestCase):
    async def test_concurrent_calls_queue_behind_the_connection_cap(self) -> None:
        # Issue 34: 200 concurrent calls opened 200 sockets.
        with FakeServer(lambda request, n: Answer(200, {}, ANALYSIS, delay=0.01), keep_alive=True) as server:
            async with async_client(server.url, max_connections=4) as c:
                got = await asyncio.gather(*(c.analyses.get(ANALYSIS_ID) for _ in range(40)))
        self.assertEqual(got, [ANALYSIS] * 40)
        self.assertLessEqual(len({r.peer for r in server.requests}), 4)
        self.assertEqual(async_client("http://127.0.0.1:9")._transport._max_connections, 1000)
        with self.assertRaises(ValueError):
            async_client("http://127.0.0.1:9", max_connections=0)

    async def test_a_call_reuses_its_connection_and_closes_with_async_with(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)], keep_alive=True) as server:
            async with async_client(server.url) as c:
                self.assertEqual(await c.analyses.get(ANALYSIS_ID), ANALYSIS)
                self.assertEqual(await c.analyses.get(ANALYSIS_ID, extra_headers={"X-Trace": "t"}), ANALYSIS)
            self.assertEqual(c._transport._idle, {})
        self.assertEqual(len({r.peer for r in server.requests}), 1)
        self.assertEqual(server.requests[1].headers.get("X-Trace"), "t")
        self.assertEqual(server.requests[0].headers.get("X-API-Key"), "pk_test_python_unit")

    async def test_errors_and_retries_are_the_sync_client_s(self) -> None:
        answers = [Answer(503, {}, {"detail": "busy"}), Answer(404, {}, {"detail": "Analysis not found.", "error": "nope"})]
        waits: List[float] = []
        with FakeServer(answers) as server:
            c = async_client(server.url, sleep=waits.append, random=lambda: 0.5)
            with self.assertRaises(analysis_api.NotFoundError) as caught:
                await c.analyses.get(ANALYSIS_ID)
            await c.aclose()
        self.assertEqual((caught.exception.status, caught.exception.error, len(server.requests)), (404, "nope", 2))
        self.assertEqual(waits, [0.375])  # the same backoff as the sync client's, on the clock it was given

    async def test_a_slow_server_times_out_and_every_attempt_has_the_same_key(self) -> None:
        with FakeServer([Answer(201, {}, ANALYSIS, delay=1.0)]) as server:
            c = async_client(server.url, timeout=0.2, retry=analysis_api.Retry(max_attempts=2, base_delay=0.01))
            with self.assertRaises(analysis_api.RequestTimeoutError):
                await c.analyses.create({"media_url": "https://m.example.com/a.mp3", "media_type": "audio"})
            await c.aclose()
            keys = [r.headers.get("Idempotency-Key") for r in server.wait_for(2)]
        self.assertEqual((len(keys), len(set(keys))), (2, 1))

    async def test_uploads_and_raw_responses(self) -> None:
        with FakeServer([Answer(201, {"X-Request-Id": "r1"}, ANALYSIS)], keep_alive=True) as server:
            async with async_client(server.url) as c:
                raw = await c.with_raw_response.analyses.upload({"file": ("a.bin", io.BytesIO(b"\x00" * 100_000))})
                await c.stream_uploads.create(iter([b"abc", b"def"]), media_type="audio")
        self.assertEqual((raw.status, raw.headers["X-Request-Id"], raw.parse()), (201, "r1", ANALYSIS))
        self.assertEqual(raw.retries_taken, 0)
        self.assertGreater(raw.elapsed, 0)
        self.assertEqual(int(server.requests[0].headers["Content-Length"]), len(server.requests[0].body))
        self.assertIn(b"\x00" * 100_000, server.requests[0].body)
        self.assertEqual((server.requests[1].headers.get("Transfer-Encoding"), server.requests[1].body), ("chunked", b"abcdef"))

    async def test_pages_and_event_streams(self) -> None:
        page = {"data": [ANALYSIS], "next_cursor": None, "has_more": False}
        with FakeServer([Answer(200, {}, page)]) as server:
            items = [a async for a in async_client(server.url).analyses.iter()]
        self.assertEqual(items, [ANALYSIS])
        answers = [Answer(200, SSE, chunks=[(0, STATUS), (30.0, COMPLETED)]), Answer(200, SSE, chunks=[(0, COMPLETED)]), Answer(204, {}, None)]
        with FakeServer(answers) as server:
            c = async_client(server.url, stream_idle_timeout=1.0, retry=analysis_api.Retry(base_delay=0.01))
            async with c.streaming.stream_analysis_events(ANALYSIS_ID) as events:
                kinds = [e["event"] async for e in events]
            after = [e async for e in c.streaming.stream_analysis_events(ANALYSIS_ID, last_event_id="evt_2")]
        self.assertEqual((kinds, after), (["status", "completed"], []))
        self.assertEqual([r.headers.get("Last-Event-ID") for r in server.requests], [None, "evt_1", "evt_2"])


class AsyncProxyTest(unittest.IsolatedAsyncioTestCase):
    async def test_http_via_the_absolute_url_and_https_via_connect(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)]) as proxy:
            async with async_client("http://api.example.test", proxy=proxy.url) as c:
                self.assertEqual(await c.analyses.get(ANALYSIS_ID), ANALYSIS)
        self.assertEqual(proxy.requests[0].path, f"http://api.example.test/v1/analyses/{ANALYSIS_ID}")
        with FakeServer([Answer(403, {}, {"detail": "no"})]) as proxy:
            async with async_client("https://api.example.test", proxy=proxy.url.replace("http://", "http://me:pw@"), retry=False) as c:
                with self.assertRaises(analysis_api.NetworkError):
                    await c.analyses.get(ANALYSIS_ID)
        request = proxy.requests[0]
        self.assertEqual((request.method, request.path, request.headers["Proxy-Authorization"]), ("CONNECT", "api.example.test:443", "Basic bWU6cHc="))


class ParityTest(unittest.TestCase):
    def test_the_async_resources_mirror_the_sync_ones(self) -> None:
        import inspect

        from analysis_api._operations import AsyncResources, Resources

        sync_client = analysis_api.Client("https://api.example.com", api_key="k")
        async_client = analysis_api.AsyncClient("https://api.example.com", api_key="k")
        self.assertEqual(list(Resources.__annotations__), list(AsyncResources.__annotations__))
        for namespace in Resources.__annotations__:
            sync_ns, async_ns = getattr(sync_client, namespace), getattr(async_client, namespace)
            names = {n for n in dir(sync_ns) if not n.startswith("_")}
            self.assertEqual(names, {n for n in dir(async_ns) if not n.startswith("_")}, namespace)
            for name in names:
                s, a = getattr(sync_ns, name), getattr(async_ns, name)
                self.assertEqual(list(inspect.signature(s).parameters), list(inspect.signature(a).parameters), f"{namespace}.{name}")
                calls = not name.startswith("iter") and not name.endswith("_url") and "stream" not in name and name not in ("verify_signature", "sign_payload", "unwrap")  # no I/O
                # A list answers an AsyncPaginator (issue 49): awaitable and async-iterable, so a plain method.
                lists = name.startswith("list") and inspect.signature(s).return_annotation.startswith("SyncPage")
                self.assertEqual(inspect.iscoroutinefunction(a), calls and not lists, f"{namespace}.{name}")


class AsyncMockTest(unittest.IsolatedAsyncioTestCase):
    async def test_the_async_client_against_the_mock(self) -> None:
        key = os.environ.get(MOCK_KEY_ENV, "pk_test_demo_pro")
        async with analysis_api.AsyncClient(mock_url(), api_key=key) as c:
            created = await c.analyses.create({"media_url": "https://media.example.com/a.mp3", "media_type": "audio"})
            self.assertRegex(created["id"], re.compile(r"^anl_"))
            got, page = await asyncio.gather(c.analyses.get(created["id"]), c.analyses.list(limit=2))
            self.assertEqual(got["id"], created["id"])
            self.assertIsInstance(page.data, list)
            events: List[Any] = []
            async with c.streaming.stream_analysis_events(created["id"]) as stream:
                async for event in stream:
                    events.append(event)
            self.assertTrue(analysis_api.is_final_event(events[-1]))
            with self.assertRaises(analysis_api.NotFoundError):
                await c.analyses.get("anl_00000000000000000000000000")


if __name__ == "__main__":
    unittest.main()
