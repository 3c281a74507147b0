from __future__ import annotations

from ..harness import invoke
from ..spec import Spec

SPECS = [
    Spec("softmatcha grep", {"pattern": "the king", "files": ["{text}"], "threshold": "0.6", "variants": True,
                             "max_insert": "1"}, grep_like=True),
    Spec("softmatcha index", {"files": ["{text}"], "output": "{tmp}/idx"}),
    Spec("softmatcha search", {"index_path": "{index}", "pattern": "the king", "threshold": "0.6",
                               "kwic": True, "sort": "right", "width": "20"}, grep_like=True),
    Spec("softmatcha info", {"index_path": "{index}"}),
]


def valid(d):
    (d / "text.txt").write_text("the king of israel said\nthe queen of syria\nand the prince\n")
    o = invoke(["softmatcha", "index", str(d / "text.txt"), "-o", str(d / "idx")], timeout=300)
    assert o.code == 0, o.err
    return {"text": str(d / "text.txt"), "index": str(d / "idx")}
