"""A typed consumer of the client: what an integrator writes. `mypy --strict` checks it (.ci/run: the types are
precise enough to narrow an event on its kind and to catch a wrong field), and the tests run it against the mock.

    ANALYSIS_API_URL=http://127.0.0.1:4010 ANALYSIS_API_KEY=pk_test_demo_pro python3 python/examples/consumer.py
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import tempfile
from itertools import islice
from pathlib import Path
from typing import List

from analysis_api import (
    ApiConnectionError,
    ApiError,
    AsyncClient,
    AuthenticationError,
    Client,
    EventStream,
    NotFoundError,
    PermissionDeniedError,
    RateLimit,
    RateLimitError,
    Response,
    Retry,
    UnprocessableEntityError,
)
from analysis_api.models import Analysis, AnalysisCreateParam, AnalysisStreamEvent


def describe(event: AnalysisStreamEvent) -> str:
    """One line per event; each branch sees its own event type."""
    if event.event == "status":
        return f"status: {event.data.status} ({event.data.progress}%)"
    if event.event == "transcript.segment":
        segment = event.data
        speaker = segment.speaker_label or "?"
        return f"{segment.start:7.1f}s {speaker}: {segment.text}"
    if event.event == "signal":
        return f"signal: {event.data.name} = {event.data.score:.2f}"
    if event.event == "alert":
        return f"alert ({event.data.severity}): {event.data.message}"
    if event.event == "completed":
        analysis: Analysis = event.data
        return f"completed: {analysis.summary or '(no summary)'}"
    return f"error: {event.data.detail}"


def uploads(client: Client) -> None:
    """Every kind of file: a path, a binary file object, a (name, bytes, content type) tuple; streamed."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "call.wav"
        path.write_bytes(b"RIFF\x00\x00\x00\x00WAVE" + b"\x00" * 4096)
        by_path = client.analyses.upload({"file": path, "media_type": "audio"})
        with open(path, "rb") as f:
            by_file = client.analyses.upload({"file": ("renamed.wav", f, "audio/wav"), "features": ["transcription"]})
    raw = client.with_raw_response.analyses.upload({"file": ("b.wav", b"RIFF\x00\x00\x00\x00WAVE", "audio/wav")})
    created: Analysis = raw.parse()
    print(f"uploaded {by_path.id}, {by_file.id}, {created.id} ({raw.status})")


def options(client: Client, analysis_id: str) -> None:
    """Per-call options, copies with other settings, idempotency keys and typed errors."""
    quick = client.with_options(timeout=5.0, retry=Retry(max_attempts=2), headers={"X-Trace-Id": "consumer"})
    quick.analyses.get(analysis_id, timeout=10.0, extra_headers={"X-Request-Note": "example"}, extra_query={"include": "summary"})
    client.analyses.update(analysis_id, {"title": "Renewal call"}, idempotency_key=f"rename-{analysis_id}", retry=False)
    try:
        client.analyses.get("anl_0000000000000000")
    except NotFoundError as e:
        print("not found:", e.status, e.error, e.detail)
    except (AuthenticationError, PermissionDeniedError) as e:
        print("credentials:", e.error)
    except RateLimitError as e:
        print("slow down:", e.retry_after)
    except ApiConnectionError as e:
        print("no answer:", e)


async def async_part(base_url: str, api_key: str) -> None:
    """The asyncio client: the same resources, awaited."""
    async with AsyncClient(base_url, api_key=api_key) as client:
        created = await client.analyses.create({"media_url": "https://media.example.com/calls/a.mp3", "media_type": "audio"})
        async with client.streaming.stream_analysis_events(created.id) as events:
            kinds = [event.event async for event in events]
        first = [a.id async for a in client.analyses.iter(limit=1)][:1]
        print(f"async: {created.id} {kinds[-1]} {len(first)}")


def main(base_url: str, api_key: str) -> int:
    logging.basicConfig(level=logging.WARNING)  # DEBUG shows one line per answer and retry, never a secret
    seen: List[RateLimit] = []

    def on_rate_limit(rate_limit: RateLimit, response: Response) -> None:
        seen.append(rate_limit)

    with Client(base_url, api_key=api_key, on_rate_limit=on_rate_limit, stream_idle_timeout=30.0) as client:
        request: AnalysisCreateParam = {"media_url": "https://media.example.com/calls/renewal.mp3", "media_type": "audio", "features": ["transcription", "summary"]}
        created = client.analyses.create(request)
        print(f"created {created.id}: {created.status}")
        events: EventStream[AnalysisStreamEvent]
        with client.streaming.stream_analysis_events(created.id) as events:
            for event in events:
                print(describe(event))
        resumed = list(client.streaming.stream_analysis_events(created.id, last_event_id=events.last_event_id))
        print(f"resumed after {events.last_event_id}: {len(resumed)} more")

        for analysis in islice(client.analyses.iter(status="completed"), 3):
            duration = analysis.duration_seconds
            print(f"{analysis.id} {analysis.status} {duration if duration is not None else '-'} s")

        try:
            client.analyses.get("not-an-analysis-id")
        except UnprocessableEntityError as e:
            for item in e.errors:
                print("invalid:", ".".join(str(part) for part in item["loc"]), item["msg"])
        except ApiError as e:
            print("unexpected", e.status, e.detail)
            return 1
        uploads(client)
        options(client, created.id)
        token = client.oauth.create_token({"grant_type": "client_credentials", "client_id": "northwind-crm-connector"})
        print("token:", token)  # its repr hides the access token
        signed = client.webhooks.sign_payload(b"{}", "whsec_example", timestamp=1_700_000_000)
        client.webhooks.verify_signature(b"{}", signed.headers, secret="whsec_example", now=1_700_000_000)

        if client.last_rate_limit is None or not seen:
            print("no rate-limit headers seen")
            return 1
        print(f"{client.last_rate_limit.remaining} of {client.last_rate_limit.limit} requests left this minute")
    asyncio.run(async_part(base_url, api_key))
    return 0


if __name__ == "__main__":
    sys.exit(main(os.environ.get("ANALYSIS_API_URL", "http://127.0.0.1:4010"), os.environ.get("ANALYSIS_API_KEY", "pk_test_demo_pro")))
