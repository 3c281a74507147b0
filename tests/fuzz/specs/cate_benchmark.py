from __future__ import annotations

import numpy as np

from ..spec import Spec

SPECS = [
    Spec("cate_benchmark eval", {"rct": "{trial}", "treatment": "w", "outcome": "y", "pred": "{preds}",
                                 "out": "{tmp}/scores.csv", "plot": "{tmp}/forest.png"}),
    Spec("cate_benchmark run", {"trial": "{bigtrial}", "treatment": "w", "outcome": "y",
                                "learners": "t.lasso,dml.lasso,zero", "reps": "1", "backend": "serial",
                                "out": "{tmp}/bench.csv"},
         fixed=frozenset({"ray_address", "workers"})),  # joining clusters / forking is tested elsewhere
    Spec("cate_benchmark datasets"),
]


def valid(d):
    rng = np.random.default_rng(0)
    w = (rng.random(80) < 0.5).astype(int)
    x1 = rng.normal(size=80)
    yy = x1 + w * (1 + x1) + rng.normal(size=80)
    rows = "".join(f"{a:.4f},{b},{c:.4f}\n" for a, b, c in zip(yy, w, x1, strict=True))
    (d / "trial.csv").write_text("y,w,x1\n" + rows)
    (d / "preds.csv").write_text("good,flat\n" + "".join(f"{1 + c:.4f},1.0\n" for c in x1))
    w2 = (rng.random(300) < 0.5).astype(int)
    x2 = rng.normal(size=300)
    y2 = x2 + w2 * (1 + x2) + rng.normal(size=300)
    (d / "bigtrial.csv").write_text("y,w,x1\n" + "".join(f"{a:.4f},{b},{c:.4f}\n"
                                                         for a, b, c in zip(y2, w2, x2, strict=True)))
    return {"trial": str(d / "trial.csv"), "preds": str(d / "preds.csv"), "bigtrial": str(d / "bigtrial.csv")}
