"""Mistakes the types must catch. Never run: `mypy --strict` checks it (.ci/run), and since `--strict` reports
an unused `type: ignore`, each line below fails the check unless mypy finds exactly the error it names."""

from __future__ import annotations

from analysis_api import AsyncClient, AsyncPage, Client
from analysis_api.models import Analysis, AnalysisStreamEvent


def misuse(client: Client, event: AnalysisStreamEvent, async_client: AsyncClient) -> None:
    client.analyses.get(42)  # type: ignore[arg-type]
    client.analyses.list(status="paused")  # type: ignore[arg-type]
    client.analyses.create({"media_type": "audio", "colour": "red"})  # type: ignore[arg-type]
    client.analyses.create({"media_url": "https://m.example.com/a.mp3", "text": "hi", "media_type": "text"})  # type: ignore[arg-type]
    client.analyses.create({"text": "hi", "media_type": "text", "features": ["diarization"]})  # type: ignore[list-item]
    client.speakers.create()  # type: ignore[call-arg]
    client.stream_uploads.create(b"...")  # type: ignore[call-arg]
    analysis = client.analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0")
    analysis.titel  # type: ignore[attr-defined]
    title: str = analysis.title  # type: ignore[assignment]
    analysis.status = "queued"  # type: ignore[misc]
    analysis.error.code  # type: ignore[union-attr]
    if analysis.error is not None:
        analysis.error.cod  # type: ignore[attr-defined]
    if event.event == "status":
        event.data.text  # type: ignore[attr-defined]
    for speaker in client.speakers.iter():
        speaker.name + 1  # type: ignore[operator]
    for listed in client.analyses.list():
        listed.titel  # type: ignore[attr-defined]
    client.analyses.list().data[0].status + 1  # type: ignore[operator]
    client.streaming.stream_analysis_events_url("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", last_event_id="evt_1")  # type: ignore[call-arg]
    Client("https://api.example.com", api_key=b"pk_live_x")  # type: ignore[arg-type]
    client.analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", timeout="5")  # type: ignore[arg-type]
    client.analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0", idempotency_key="k")  # type: ignore[call-arg]
    client.analyses.upload({"file": "call.mp3"})  # type: ignore[typeddict-item]
    not_awaited: Analysis = async_client.analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0")  # type: ignore[assignment]
    with client.streaming.stream_analysis_events("anl_01HZX4A9B7C5D3E1F2G4H6J8K0") as events:
        events.aclose()  # type: ignore[attr-defined]
    not_a_page: AsyncPage[Analysis] = async_client.analyses.list()  # type: ignore[assignment]
    # Issue 49: with_streaming_response's parse() is the model; the async twin's is awaited, its bytes async.
    with client.with_streaming_response.analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0") as streamed:
        streamed.parse().stauts  # type: ignore[attr-defined]
        streamed.aiter_bytes()  # type: ignore[attr-defined]
        streamed.status_code + "1"  # type: ignore[operator]
    not_parsed: Analysis = async_client.with_streaming_response.analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0").parse()  # type: ignore[assignment]
    Client("https://api.example.com", api_key="pk_test_x", event_hooks={"request": print})  # type: ignore[typeddict-item]
    del title, not_awaited, not_a_page, not_parsed
