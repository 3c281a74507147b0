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
    Spec("softmatcha collocates", {"index_path": "{index}", "pattern": "the king", "threshold": "0.6",
                                   "left": "3", "right": "2", "min_count": "1", "by": "mi",
                                   "out": "{tmp}/c.csv"}, grep_like=True),
    Spec("softmatcha freq", {"index_path": "{index}", "ngram": "2", "top_k": "5", "min_count": "1",
                             "out": "{tmp}/f.csv"}),
    Spec("softmatcha dispersion", {"index_path": "{index}", "regexp": ["the king", "the /qu.*n/"],
                                   "threshold": "0.6", "by": "file", "out": "{tmp}/d.csv"}, grep_like=True),
]


def valid(d):
    (d / "text.txt").write_text("the king of israel said\nthe queen of syria\nand the prince\n")
    o = invoke(["softmatcha", "index", str(d / "text.txt"), "-o", str(d / "idx")], timeout=300)
    assert o.code == 0, o.err
    return {"text": str(d / "text.txt"), "index": str(d / "idx")}
