from __future__ import annotations

import numpy as np

from ..spec import Spec

SPECS = [
    Spec("hetero_covariance fit", {"csv": "{hetero_csv}", "targets": "y1,y2", "epochs": "2",
                                   "neighbours": "5", "sep": ",", "predictions": "{tmp}/pred.csv",
                                   "out": "{tmp}/model.pt"}),
    Spec("hetero_covariance predict", {"model": "{hetero_model}", "csv": "{hetero_csv}", "sep": ",",
                                       "out": "{tmp}/pred.csv"}),
]


def valid(d):
    import pandas as pd

    from iclr25.hetero_covariance import HeteroscedasticRegressor
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 2))
    y = x @ rng.normal(size=(2, 2)) + rng.normal(size=(60, 2)) * (0.1 + np.abs(x[:, :1]))
    rows = [f"{a:.4f},{b:.4f},{c:.4f},{e:.4f}" for (a, b), (c, e) in zip(x, y, strict=True)]
    lines = ["x1,x2,y1,y2", *rows]
    (d / "hetero.csv").write_text("\n".join(lines) + "\n")
    df = pd.read_csv(d / "hetero.csv")
    HeteroscedasticRegressor(epochs=1, k_neighbours=5).fit(df[["x1", "x2"]], df[["y1", "y2"]]).save(
        d / "model.pt")
    return {"hetero_csv": str(d / "hetero.csv"), "hetero_model": str(d / "model.pt")}
