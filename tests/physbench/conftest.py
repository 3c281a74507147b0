"""A local mock of an OpenAI-compatible VLM server. It answers "B" when it was sent images; the model
name picks other behaviours: "verbose" answers "The answer is B.", "lower" answers "d", "flaky" fails
every third request with HTTP 500. Each request's prompt and image count are kept in `server.log`."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest


class _Mock(BaseHTTPRequestHandler):
    log_: list = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][0]["content"]
        n_images = sum(c["type"] == "image_url" for c in content)
        text = next(c["text"] for c in content if c["type"] == "text")
        self.log_.append({"model": body["model"], "images": n_images, "text": text})
        model = body["model"]
        if model == "flaky" and sum(r["model"] == "flaky" for r in self.log_) % 3 == 0:
            self.send_response(500)
            self.end_headers()
            return
        answer = {"verbose": "The answer is B.", "lower": "d"}.get(model, "B")
        reply = {"choices": [{"message": {"content": answer if n_images else "?"}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class _Url(str):
    log: list


@pytest.fixture(scope="module")
def server():
    srv = HTTPServer(("127.0.0.1", 0), _Mock)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = _Url(f"http://127.0.0.1:{srv.server_address[1]}/v1")
    url.log = _Mock.log_
    yield url
    srv.shutdown()
