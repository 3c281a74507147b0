from __future__ import annotations

import numpy as np

from ..spec import Spec

SPECS = [
    Spec("causal_direction detect", {"csv": "{csv}", "label": "label", "reps": "1", "rates": "0,0.2,0.4",
                                     "plot": "{tmp}/curve.png"}),
    Spec("causal_direction noise", {"csv": "{csv}", "label": "label", "show": "3", "out": "{tmp}/s.csv"}),
]


def valid(d):
    """A small anticausal table (class means 4 apart, 3 features) with a categorical column."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 120)
    X = rng.normal(size=(120, 3)) + 4.0 * y[:, None]
    rows = ["a,b,c,colour,label"] + [
        f"{a:.4f},{b:.4f},{c:.4f},{'red' if a > 2 else 'blue'},{'yes' if t else 'no'}"
        for (a, b, c), t in zip(X, y, strict=True)]
    (d / "data.csv").write_text("\n".join(rows) + "\n")
    np.save(d / "X.npy", X)
    np.save(d / "y.npy", y)
    return {"csv": str(d / "data.csv"), "X": str(d / "X.npy"), "y": str(d / "y.npy")}
