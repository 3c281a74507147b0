from __future__ import annotations

import json

from ..spec import Spec

SPECS = [
    Spec("rm_bench eval", {"data": "{rmb_data}", "scorer": "length", "out": "{tmp}/res.json",
                           "ties": "strict", "seed": "0"}),
    Spec("rm_bench export", {"data": "{rmb_data}", "out": "{tmp}/todo.jsonl"}),
    Spec("rm_bench score", {"data": "{rmb_data}", "scores": "{rmb_scores}", "out": "{tmp}/res.json"}),
    Spec("rm_bench report", {"results": "{rmb_results}", "plot": "{tmp}/matrix.png", "worst": "2"}),
]


def valid(d):
    items = [{"id": i, "prompt": f"q{i}?", "chosen": [f"yes {i}", f"yes {i}, in detail", f"**yes** {i}"],
              "rejected": [f"no {i}", f"no {i}, in detail", f"**no** {i}"]} for i in range(4)]
    (d / "chat_filtered.json").write_text(json.dumps(items))
    rows = [{"id": it["id"], "domain": "chat", "role": role, "style": style, "score": len(y)}
            for it in items for role in ("chosen", "rejected")
            for style, y in zip(("concise", "plain", "markdown"), it[role], strict=True)]
    (d / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    m = [[50.0, 0.0, 0.0], [100.0, 50.0, 0.0], [100.0, 100.0, 50.0]]
    (d / "res.json").write_text(json.dumps({"scorer": "length", "domains": {"chat": {"matrix": m, "n": 4}}}))
    per = [{"id": i, "domain": "chat", "chosen": [1.0, 2.0, 3.0], "rejected": [0.0, 2.5, 2.0], "correct": 6.0,
            "easy": 100.0, "normal": 66.7, "hard": 33.3} for i in range(4)]
    (d / "res.json").write_text(json.dumps({"scorer": "length", "domains": {"chat": {"matrix": m, "n": 4}},
                                            "per_item": per}))
    return {"rmb_data": str(d / "chat_filtered.json"), "rmb_scores": str(d / "scores.jsonl"),
            "rmb_results": str(d / "res.json")}
