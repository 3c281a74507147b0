from __future__ import annotations

import numpy as np

from ..harness import invoke
from ..spec import Spec

TINY = {"steps": "2", "batch": "8", "hidden": "8"}

SPECS = [
    Spec("underdamped_bridges fit", {"logreg": "{csv}", "label": "y", "method": "dbs", **TINY,
                                     "out": "{tmp}/run"}),
    Spec("underdamped_bridges eval", {"run": "{run}", "n": "50"}),
    Spec("underdamped_bridges sample", {"run": "{run}", "n": "5", "out": "{tmp}/s.csv"}),
]


def valid(d):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(int)
    rows = ["a,b,c,y"] + [f"{a:.4f},{b:.4f},{c:.4f},{t}" for (a, b, c), t in zip(X, y, strict=True)]
    (d / "data.csv").write_text("\n".join(rows) + "\n")
    o = invoke(["underdamped_bridges", "fit", "--logreg", str(d / "data.csv"), "--label", "y",
                "--method", "ula", "--steps", "2", "--batch", "8", "-o", str(d / "run")],
               timeout=300)
    assert o.code == 0, o.err
    return {"csv": str(d / "data.csv"), "run": str(d / "run")}
