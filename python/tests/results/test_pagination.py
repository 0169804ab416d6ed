"""Pages (issue 34): `list()` answers a page that iterates every item of every page (`for`, `async for`), with
`.data`, `.has_more`, `.next_cursor`, `has_next_page()`, `get_next_page()`, `iter_pages()`; and `iter_<things>()`."""

from __future__ import annotations

import itertools
import unittest
import warnings
from typing import Any, List
from urllib.parse import parse_qs, urlsplit

from support import Answer, FakeServer, Recorded, analysis_api, client

ALL = ["spk_c1_0", "spk_c1_1", "spk_c2_0", "spk_c2_1", "spk_c3_0", "spk_c3_1"]


def pages(request: Recorded, n: int) -> Answer:
    cursor = parse_qs(urlsplit(request.path).query).get("cursor", [None])[0]
    following = {None: "c2", "c2": "c3", "c3": None}[cursor]
    data = [{"id": f"spk_{cursor or 'c1'}_{i}"} for i in range(2)]
    return Answer(200, {}, {"data": data, "next_cursor": following, "has_more": following is not None})


class PaginationTest(unittest.TestCase):
    def test_follows_next_cursor_while_has_more(self) -> None:
        with FakeServer(pages) as server:
            ids = [s["id"] for s in client(server.url).speakers.iter(limit=2)]
        self.assertEqual(ids, ["spk_c1_0", "spk_c1_1", "spk_c2_0", "spk_c2_1", "spk_c3_0", "spk_c3_1"])
        self.assertEqual([r.path for r in server.requests], ["/v1/speakers?limit=2", "/v1/speakers?cursor=c2&limit=2", "/v1/speakers?cursor=c3&limit=2"])

    def test_fetches_a_page_only_when_the_loop_gets_there(self) -> None:
        with FakeServer(pages) as server:
            self.assertEqual(len(list(itertools.islice(client(server.url).speakers.iter(), 2))), 2)
        self.assertEqual(len(server.requests), 1)

    def test_starts_at_a_given_cursor_and_keeps_the_filters(self) -> None:
        with FakeServer(pages) as server:
            items = list(client(server.url).analyses.iter_alerts("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", cursor="c3", status="open"))
        self.assertEqual(len(items), 2)
        self.assertEqual(server.requests[0].path, "/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0/alerts?cursor=c3&status=open")

    def test_has_more_without_a_new_cursor_stops_instead_of_looping(self) -> None:
        same = Answer(200, {}, {"data": [{"id": "a"}], "next_cursor": "c2", "has_more": True})
        with FakeServer(lambda request, n: same if n <= 3 else Answer(400, {}, {"detail": "looped"})) as server:
            with self.assertRaisesRegex(analysis_api.ProtocolError, "without a new next_cursor"):
                list(client(server.url).speakers.iter())
        self.assertEqual(len(server.requests), 2)

    def test_a_page_that_is_not_the_envelope_is_a_protocol_error(self) -> None:
        with FakeServer([Answer(200, {}, {"items": []})]) as server:
            with self.assertRaises(analysis_api.ProtocolError):
                list(client(server.url).speakers.iter())

    def test_an_error_page_raises_the_typed_error(self) -> None:
        with FakeServer([Answer(403, {}, {"detail": "This workspace is frozen."})]) as server:
            with self.assertRaises(analysis_api.ApiError) as caught:
                list(client(server.url).speakers.iter())
        self.assertEqual(caught.exception.kind, "forbidden")


class PageTest(unittest.TestCase):
    def test_iterating_a_page_yields_the_items_of_every_page(self) -> None:
        with FakeServer(pages) as server:
            page = client(server.url).speakers.list(limit=2)
            self.assertEqual(len(server.requests), 1)
            self.assertEqual([s["id"] for s in page], ALL)
        self.assertEqual(len(server.requests), 3)
        self.assertEqual(server.requests[2].path, "/v1/speakers?cursor=c3&limit=2")

    def test_a_page_has_its_data_cursor_and_next_page(self) -> None:
        with FakeServer(pages) as server:
            page = client(server.url).speakers.list()
            self.assertEqual([s["id"] for s in page.data], ["spk_c1_0", "spk_c1_1"])
            self.assertEqual((page.has_more, page.next_cursor, page.has_next_page()), (True, "c2", True))
            second = page.get_next_page()
            self.assertEqual([s["id"] for s in second.data], ["spk_c2_0", "spk_c2_1"])
            last = second.get_next_page()
            self.assertEqual((last.has_more, last.next_cursor, last.has_next_page()), (False, None, False))
            with self.assertRaisesRegex(RuntimeError, "last page"):
                last.get_next_page()
            self.assertEqual([[s["id"] for s in p.data] for p in page.iter_pages()], [ALL[0:2], ALL[2:4], ALL[4:6]])

    def test_indexing_a_page_still_works_and_warns(self) -> None:
        with FakeServer(pages) as server:
            page = client(server.url).speakers.list()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual([s["id"] for s in page["data"]], ALL[0:2])
            self.assertEqual(page["next_cursor"], "c2")
        self.assertEqual([w.category for w in caught], [DeprecationWarning, DeprecationWarning])
        self.assertIn("page.data", str(caught[0].message))
        self.assertEqual(page.to_dict(), {"data": page.data, "next_cursor": "c2", "has_more": True})
        self.assertEqual(page, page.to_dict())

    def test_list_refuses_an_answer_that_is_not_a_page(self) -> None:
        with FakeServer([Answer(200, {}, {"items": []})]) as server:
            with self.assertRaises(analysis_api.ProtocolError):
                client(server.url).speakers.list()


class AsyncPageTest(unittest.IsolatedAsyncioTestCase):
    async def test_async_for_over_a_page_yields_the_items_of_every_page(self) -> None:
        with FakeServer(pages) as server:
            async with analysis_api.AsyncClient(server.url, api_key="pk_test_python_unit") as c:
                page = await c.speakers.list(limit=2)
                self.assertEqual((page.has_more, page.next_cursor), (True, "c2"))
                ids: List[Any] = [s["id"] async for s in page]
                self.assertEqual(ids, ALL)
                second = await page.get_next_page()
                self.assertEqual([s["id"] for s in second.data], ALL[2:4])
                self.assertEqual(len([p async for p in page.iter_pages()]), 3)
                self.assertEqual([s["id"] async for s in c.speakers.iter()], ALL)

    async def test_pages_pickle_with_their_answer_and_cursor_sync_and_async(self) -> None:
        # Issue 49: "Can't pickle local object 'Client._page.<locals>.<lambda>'".
        import pickle

        with FakeServer(pages) as server:
            sync_page = client(server.url).speakers.list(limit=2)
            async with analysis_api.AsyncClient(server.url, api_key="pk_test_python_unit") as c:
                async_page = await c.speakers.list(limit=2)
        for page in (sync_page, async_page):
            copy = pickle.loads(pickle.dumps(page))
            self.assertIs(type(copy), type(page))
            self.assertEqual((copy, copy.data, copy.next_cursor, copy.has_more), (page, page.data, "c2", True))
            self.assertEqual(copy.to_dict(), page.to_dict())
        with self.assertRaisesRegex(RuntimeError, "unpickled page"):
            pickle.loads(pickle.dumps(sync_page)).get_next_page()
        with self.assertRaisesRegex(RuntimeError, "unpickled page"):
            await pickle.loads(pickle.dumps(async_page)).get_next_page()

    async def test_list_is_awaitable_and_async_iterable_like_openai_s_paginator(self) -> None:
        # Issue 49: `async for x in c.speakers.list()` raised TypeError ('async for' requires __aiter__, got coroutine).
        with FakeServer(pages) as server:
            async with analysis_api.AsyncClient(server.url, api_key="pk_test_python_unit") as c:
                ids: List[Any] = [s["id"] async for s in c.speakers.list(limit=2)]
                self.assertEqual(ids, ALL)
                listing = c.speakers.list(limit=2)
                self.assertIsInstance(listing, analysis_api.AsyncPaginator)
                first = await listing
                self.assertIsInstance(first, analysis_api.AsyncPage)
                self.assertEqual([s["id"] for s in first.data], ALL[:2])
        # Nothing is sent until it is awaited or iterated: 3 pages for the loop, 1 for the await.
        self.assertEqual(len(server.requests), 4)

    async def test_the_sync_list_is_a_page_iterable_the_same_way(self) -> None:
        with FakeServer(pages) as server:
            self.assertEqual([s["id"] for s in client(server.url).speakers.list(limit=2)], ALL)


if __name__ == "__main__":
    unittest.main()
