from __future__ import annotations

import json

from ..spec import Spec

SPECS = [
    Spec("model_equality test", {"ref": "{ref}", "api": "{api}", "b": "50"}),
    Spec("model_equality distance", {"a": "{ref}", "b": "{api}"}),
    Spec("model_equality simulate", {"out": "{tmp}", "profile": "smoke", "prompts": "2", "n_ref": "4",
                                     "n_api": "2", "L": "5"}),
    Spec("model_equality power", {"profile": "smoke"}),
]


def valid(d):
    def write(name, n, shift):
        with open(d / name, "w") as f:
            for p in range(3):
                for i in range(n):
                    completion = "ab"[(i + shift) % 2] + "xyz"[i % 3]
                    f.write(json.dumps({"prompt": f"p{p}", "completion": completion}) + "\n")
    write("ref.jsonl", 8, 0)
    write("api.jsonl", 4, 1)
    return {"ref": str(d / "ref.jsonl"), "api": str(d / "api.jsonl")}
