"""A user's script, as an integrator writes one: never run, type-checked by `pyright --strict` and `mypy --strict`
(test/python/python.test.ts, `npm run typecheck:python`), with no `type: ignore` and no `Any` of its own. It
touches what issue 34 added: pages, uploads with their type, timeouts, webhooks, models, an injected transport
and the hooks, sync and async."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Dict, List, Optional

from analysis_api import (
    AsyncClient,
    AsyncPage,
    Client,
    File,
    HTTPTransport,
    HttpRequest,
    HttpResponse,
    RequestTimeoutError,
    Response,
    SyncPage,
    Timeout,
    WebhookVerificationError,
)
from analysis_api.models import Analysis, WebhookEvent


def titles(client: Client) -> List[str]:
    page: SyncPage[Analysis] = client.analyses.list(status="completed", limit=50)
    first: List[Analysis] = page.data
    more: bool = page.has_more or page.has_next_page()
    cursor: Optional[str] = page.next_cursor
    names = [a.id for a in first]
    for analysis in page:  # every item of every page
        status: str = analysis.status
        names.append(f"{analysis.id} {status} {more} {cursor}")
        if analysis.error is not None:
            names.append(analysis.error.code)  # a nested model, None-checked
        names.append(analysis.to_dict().get("field_of_a_newer_contract", ""))
    for each in page.iter_pages():
        names.extend(a.id for a in each.data)
    if page.has_next_page():
        names.extend(a.id for a in page.get_next_page().data)
    return names


def upload(client: Client, path: Path) -> Analysis:
    client.analyses.upload({"file": path})  # typed from its name (audio/wav)
    client.analyses.upload({"file": ("call.bin", b"RIFF....", "audio/wav")})
    return client.analyses.upload({"file": File(path.read_bytes(), filename="call.wav", content_type="audio/wav")})


def deadlines(client: Client) -> Optional[Analysis]:
    quick = client.with_options(timeout=Timeout(connect=2, read=5, total=20))
    try:
        return quick.analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", timeout=3.5)
    except RequestTimeoutError as e:
        print(e.timeout)
        return None


def webhook(client: Client, body: bytes, headers: Dict[str, str]) -> Optional[str]:
    try:
        event: WebhookEvent = client.webhooks.unwrap(body, headers, secret=["whsec_new", "whsec_old"])
    except WebhookVerificationError as e:
        return e.reason
    if event.type == "analysis.completed":
        return event.data.analysis.id
    return event.type


class Scripted:
    def handle_request(self, request: HttpRequest) -> HttpResponse:
        return HttpResponse(200, {"Content-Type": "application/json"}, json.dumps({"url": request.url}).encode())

    async def handle_async_request(self, request: HttpRequest) -> HttpResponse:
        return self.handle_request(request)


def traced() -> Client:
    seen: List[int] = []

    def on_response(response: Response) -> None:
        seen.append(response.status)

    def on_request(method: str, path: str, headers: Dict[str, str]) -> None:
        headers["traceparent"] = f"00-{method}-{path}"

    return Client("https://api.example.com", api_key="pk_test_x", transport=Scripted(), on_request=on_request, on_response=on_response)


async def async_titles() -> List[str]:
    async with AsyncClient("https://api.example.com", api_key="pk_test_x", transport=Scripted(), max_connections=10) as client:
        page: AsyncPage[Analysis] = await client.analyses.list(limit=10)
        names = [a.id async for a in page]
        async for each in page.iter_pages():
            names.extend(a.id for a in each.data)
        analysis = await client.analyses.get(names[0], timeout=Timeout(total=5))
        names.append(analysis.status)
        names.append(analysis.to_json())
        # Issue 49: `list()` is also async-iterable, item by item across pages.
        names.extend([a.status async for a in client.analyses.list(limit=10)])
        return names


class Forwarding:
    """Issue 49: a wrapper over the default transport, adding a header."""

    def __init__(self) -> None:
        self.inner = HTTPTransport(timeout=Timeout(connect=2, read=10))

    def handle_request(self, request: HttpRequest) -> HttpResponse:
        request.headers["traceparent"] = "00-trace"
        return self.inner.handle_request(request)


def streamed(client: Client) -> List[str]:
    """Issue 49: `with_streaming_response` (the body as it arrives, `parse()` the model) and event hooks."""
    seen: List[str] = []
    hooked = Client("https://api.example.com", api_key="pk_test_x", transport=Forwarding(),
                    event_hooks={"request": [lambda r: seen.append(r.url)], "response": [lambda r: seen.append(str(r.request_id))]})
    with hooked.with_streaming_response.analyses.get("anl_1") as response:
        seen.append(f"{response.status_code} {response.request_id} {response.headers.get('Content-Type')}")
        analysis: Analysis = response.parse()
        seen.append(analysis.status)
    with client.with_streaming_response.analyses.list(limit=2) as listing:
        seen.extend(listing.iter_lines())
        seen.append(str(len(listing.read())))
    return seen


async def async_streamed(client: AsyncClient) -> List[str]:
    async with client.with_streaming_response.analyses.get("anl_1") as response:
        pieces = [len(piece) async for piece in response.aiter_bytes()]
        analysis = await response.parse()
        return [analysis.status, str(sum(pieces)), str(response.status_code)]


if __name__ == "__main__":
    print(asyncio.run(async_titles()), titles(traced()), deadlines(traced()))
