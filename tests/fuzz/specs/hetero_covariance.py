from __future__ import annotations

import numpy as np

from ..spec import Spec

SPECS = [
    Spec("hetero_covariance fit", {"csv": "{hetero_csv}", "targets": "y1,y2", "epochs": "2",
                                   "neighbours": "5", "sep": ",", "predictions": "{tmp}/pred.csv"}),
]


def valid(d):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 2))
    y = x @ rng.normal(size=(2, 2)) + rng.normal(size=(60, 2)) * (0.1 + np.abs(x[:, :1]))
    rows = [f"{a:.4f},{b:.4f},{c:.4f},{e:.4f}" for (a, b), (c, e) in zip(x, y, strict=True)]
    lines = ["x1,x2,y1,y2", *rows]
    (d / "hetero.csv").write_text("\n".join(lines) + "\n")
    return {"hetero_csv": str(d / "hetero.csv")}
