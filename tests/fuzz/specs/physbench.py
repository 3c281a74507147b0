from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from PIL import Image

from ..spec import Spec

SPECS = [
    Spec("physbench score", {"pred": "{pb_pred}", "gt": "{pb_gt}", "json_out": "{tmp}/rep.json"}),
    # base_url points at a local mock VLM server started by valid() (always answers "A")
    Spec(
        "physbench eval",
        {
            "data": "{pb_data}",
            "base_url": "{pb_url}",
            "model": "mock",
            "split": "val",
            "mode": "general",
            "n_frames": "8",
            "out": "{tmp}/sub.json",
            "timeout": "5",
        },
    ),
    Spec("physbench synth", {"out": "{tmp}/syn", "n": "2", "seed": "0", "part": "test"}),
]


class _Mock(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        data = json.dumps({"choices": [{"message": {"content": "A"}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def valid(d):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Mock)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    data = d / "pb"
    (data / "image").mkdir(parents=True)
    Image.fromarray(np.full((16, 16, 3), 200, np.uint8)).save(data / "image" / "a.png")
    rec = {
        "idx": 0,
        "split": "val",
        "mode": "image-only",
        "question": "<image>\nHow many balls?\nA. 1\nB. 2\nC. 3\nD. 4",
        "file_name": ["a.png"],
        "description": None,
    }
    ans = [
        {
            "idx": 0,
            "answer": "A",
            "task_type": "property",
            "sub_type": "number",
            "ability_type": "identify",
            "mode": "image-only",
        }
    ]
    (data / "test.json").write_text(json.dumps([rec]))
    (data / "val_answer.json").write_text(json.dumps(ans))
    (d / "pred.json").write_text(json.dumps([{"idx": 0, "answer": "A"}]))
    return {
        "pb_pred": str(d / "pred.json"),
        "pb_gt": str(data / "val_answer.json"),
        "pb_data": str(data),
        "pb_url": f"http://127.0.0.1:{srv.server_address[1]}/v1",
    }
