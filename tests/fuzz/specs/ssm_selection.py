from __future__ import annotations

import numpy as np

from ..harness import invoke
from ..spec import Spec

SPECS = [
    Spec("ssm_selection fit", {"csv": "{csv}", "seq_col": "seq", "label_col": "y", "model": "ssmfnn1",
                               "steps": "5", "width": "8", "pool": "mean", "out": "{tmp}/model.pt"}),
    Spec("ssm_selection predict", {"model": "{model}", "csv": "{csv}", "out": "{tmp}/pred.csv"}),
    Spec("ssm_selection saliency", {"model": "{model}", "csv": "{csv}", "out": "{tmp}/sal.csv",
                                    "plot": "{tmp}/sal.png"}),
    Spec("ssm_selection run", {"task": "regression", "models": "mlp2,ssm1", "sizes": "64", "steps": "3",
                               "n_test": "32", "n_seeds": "1", "out": "{tmp}/runs"}),
]


def valid(d):
    rng = np.random.default_rng(0)
    rows = ["seq,y"]
    for i in range(40):
        s = "".join(rng.choice(list("ACGT"), 12))
        rows.append(f"{'TATA' + s[4:] if i % 2 else s},{'bound' if i % 2 else 'free'}")
    (d / "seqs.csv").write_text("\n".join(rows) + "\n")
    o = invoke(["ssm_selection", "fit", "--csv", str(d / "seqs.csv"), "--model", "ssmfnn1", "--steps", "5",
                "--width", "8", "-o", str(d / "model.pt")], timeout=300)
    assert o.code == 0, o.err
    return {"csv": str(d / "seqs.csv"), "model": str(d / "model.pt")}
