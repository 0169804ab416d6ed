"""Operation URLs and request bodies as the contract serializes them, and the rule for tokens in URLs
(interface specification, rule 7: a token goes into a URL only over TLS, or to a loopback host)."""

from __future__ import annotations

import email.parser
import email.policy
import json
import unittest

from analysis_api._operations import Resources
from urllib.parse import parse_qsl, urlsplit

from support import Answer, FakeServer, analysis_api, client, contract, snake

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"


class TokenUrlTest(unittest.TestCase):
    def test_tls_urls_get_the_token(self) -> None:
        c = analysis_api.Client("https://api.example.com", api_key="pk_live_abc")
        self.assertEqual(c.streaming.stream_analysis_events_url(ANALYSIS_ID), f"https://api.example.com/v1/analysis/{ANALYSIS_ID}/stream?token=pk_live_abc")
        self.assertEqual(
            c.streaming.connect_live_stream_url(media_type="audio", encoding="pcm_s16le", sample_rate=16000),
            "wss://api.example.com/v1/stream?media_type=audio&encoding=pcm_s16le&sample_rate=16000&token=pk_live_abc",
        )

    def test_plain_urls_only_on_loopback(self) -> None:
        for host in ("127.0.0.1", "127.8.9.10", "localhost", "[::1]"):
            c = analysis_api.Client(f"http://{host}:4010", token=lambda: "jwt.fresh")
            self.assertTrue(c.streaming.connect_analysis_events_url(ANALYSIS_ID).startswith(f"ws://{host}:4010/ws/analyses/{ANALYSIS_ID}?token=jwt.fresh"), host)
        for host in ("api.example.com", "10.0.0.8", "127.example.com", "[::2]"):
            c = analysis_api.Client(f"http://{host}", api_key="pk_live_secret")
            with self.assertRaises(analysis_api.InsecureTransportError) as caught:
                c.streaming.stream_analysis_events_url(ANALYSIS_ID)
            self.assertNotIn("pk_live_secret", str(caught.exception))

    def test_the_operations_accepting_the_token_parameter_have_url_methods(self) -> None:
        doc = contract()
        with_token = sorted(
            op["operationId"]
            for item in doc["paths"].values()
            for op in item.values()
            if isinstance(op, dict) and any("TokenQuery" in s for s in op.get("security", []))
        )
        self.assertIn("streamAnalysisEvents", with_token)
        self.assertIn("connectLiveStream", with_token)
        c = client("https://api.example.com")
        names = {f"{ns}.{n}" for ns in Resources.__annotations__ for n in dir(getattr(c, ns)) if n.endswith("_url")}
        self.assertEqual(names, {f"{analysis_api.METHOD_NAMES[op]}_url" for op in with_token})

    def test_is_loopback_host(self) -> None:
        self.assertTrue(all(analysis_api.is_loopback_host(h) for h in ("localhost", "LOCALHOST.", "127.0.0.1", "::1", "[::1]")))
        self.assertFalse(any(analysis_api.is_loopback_host(h) for h in ("example.com", "0.0.0.0", "::", "128.0.0.1", "localhost.example")))


class QueryTest(unittest.TestCase):
    def test_the_query_is_what_urlencode_writes(self) -> None:
        # The hot path joins safe names and values without urlencode; the string must not change.
        from urllib.parse import urlencode

        from analysis_api._calls._urls import _encoded

        for query in ([("limit", "100"), ("cursor", "c_1.x~")], [("status", "a b"), ("q", "é&=/")], [("empty", "")], [("a b", "1")]):
            self.assertEqual(_encoded(query), urlencode(query), query)


class RequestTest(unittest.TestCase):
    def sent(self, call: str, *args: object, **kwargs: object) -> tuple:
        answer = {"data": [], "next_cursor": None, "has_more": False} if call.endswith(".list") else {"id": "x"}
        with FakeServer([Answer(200, {}, answer)]) as server:
            namespace, method = call.split(".")
            getattr(getattr(client(server.url), namespace), method)(*args, **kwargs)
        r = server.requests[0]
        return r.method, r.path, r.headers, r.body

    def test_path_parameters_are_percent_encoded(self) -> None:
        _, path, _, _ = self.sent("speakers.get", "spk_a/b c")
        self.assertEqual(path, "/v1/speakers/spk_a%2Fb%20c")

    def test_query_lists_repeat_and_booleans_are_lowercase(self) -> None:
        _, path, _, _ = self.sent("stream_uploads.create", b"bytes", media_type="audio", features=["transcription", "signals"])
        self.assertEqual(parse_qsl(urlsplit(path).query), [("media_type", "audio"), ("features", "transcription"), ("features", "signals")])
        _, path, _, _ = self.sent("skills.list", builtin=False)
        self.assertEqual(urlsplit(path).query, "builtin=false")

    def test_json_body(self) -> None:
        method, path, headers, body = self.sent("speakers.update", "spk_01HZX3T6Q2", {"name": "Dana Ruiz"})
        self.assertEqual((method, path, headers.get("Content-Type"), json.loads(body)), ("PATCH", "/v1/speakers/spk_01HZX3T6Q2", "application/json", {"name": "Dana Ruiz"}))

    def test_form_body(self) -> None:
        _, _, headers, body = self.sent("oauth.create_token", {"grant_type": "client_credentials", "client_id": "crm", "scope": "a b"})
        self.assertEqual(headers.get("Content-Type"), "application/x-www-form-urlencoded")
        self.assertEqual(parse_qsl(body.decode()), [("grant_type", "client_credentials"), ("client_id", "crm"), ("scope", "a b")])

    def test_multipart_body(self) -> None:
        fields = {"file": ("call.wav", b"RIFF\x00\x01", "audio/wav"), "media_type": "audio", "features": ["transcription", "signals"], "metadata": {"team": "cs"}}
        _, _, headers, body = self.sent("analyses.upload", fields)
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(b"Content-Type: " + headers["Content-Type"].encode() + b"\r\n\r\n" + body)
        parts = [(p.get_param("name", header="content-disposition"), p.get_filename(), p.get_content_type(), p.get_payload(decode=True)) for p in message.iter_parts()]
        self.assertEqual(
            parts,
            [
                ("file", "call.wav", "audio/wav", b"RIFF\x00\x01"),
                ("media_type", None, "text/plain", b"audio"),
                ("features", None, "text/plain", b"transcription"),
                ("features", None, "text/plain", b"signals"),
                ("metadata", None, "application/json", b'{"team":"cs"}'),
            ],
        )

    def test_binary_body_bytes_and_file(self) -> None:
        import io

        _, _, headers, body = self.sent("stream_uploads.create", b"\x00\x01\x02", media_type="audio")
        self.assertEqual((headers.get("Content-Type"), headers.get("Content-Length"), body), ("application/octet-stream", "3", b"\x00\x01\x02"))
        _, _, headers, body = self.sent("stream_uploads.create", io.BytesIO(b"x" * 70000), media_type="video")
        self.assertEqual((headers.get("Transfer-Encoding"), len(body)), ("chunked", 70000))

    def test_base_url_is_checked(self) -> None:
        for bad in ("api.example.com", "ftp://api.example.com", "https://api.example.com/?x=1"):
            with self.assertRaises(ValueError, msg=bad):
                analysis_api.Client(bad, api_key="pk_test_x")
        # Issue 34: an invalid port built a client that failed on its first call.
        for bad in ("http://127.0.0.1:99999", "http://127.0.0.1:port"):
            with self.assertRaisesRegex(ValueError, "invalid port", msg=bad):
                analysis_api.Client(bad, api_key="pk_test_x")
        # Issue 49: port 0 (a server's "any free port", never one to connect to) too, sync and async.
        for cls in (analysis_api.Client, analysis_api.AsyncClient):
            with self.assertRaisesRegex(ValueError, r"port 0 .*'http://127.0.0.1:0'", msg=cls.__name__):
                cls("http://127.0.0.1:0", api_key="pk_test_x")
        c = analysis_api.Client("https://api.example.com/base/", api_key="pk_test_x")
        self.assertEqual(c.streaming.stream_analysis_events_url("anl_1"), "https://api.example.com/base/v1/analysis/anl_1/stream?token=pk_test_x")


    def test_credentials_in_the_base_url_are_refused_without_repeating_them(self) -> None:
        # Issue 34: the password showed in repr and was silently not sent.
        for bad in ("https://user:s3cret-pw@api.example.com", "https://s3cret-pw@api.example.com"):
            with self.assertRaisesRegex(ValueError, "must not carry credentials") as caught:
                analysis_api.Client(bad, api_key="pk_test_x")
            self.assertNotIn("s3cret-pw", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
