from __future__ import annotations

import numpy as np

from ..harness import invoke
from ..spec import Spec

SPECS = [
    Spec("tucker_sfda train-source", {"source": "{src}", "out": "{tmp}/s.pt", "epochs": "1", "mid": "8",
                                      "final": "16", "seed": "0"}),
    Spec("tucker_sfda decompose", {"ckpt": "{dense}", "source": "{src}", "out": "{tmp}/d.pt", "rf": "4",
                                   "finetune_epochs": "1"}),
    Spec("tucker_sfda adapt", {"ckpt": "{dec}", "target": "{user}", "method": "shot", "tune": "core",
                               "epochs": "1", "predictions": "{tmp}/p.csv", "out": "{tmp}/a.pt"}),
    Spec("tucker_sfda bench", {"rf": "4,8", "ckpt": "{dense}"}),
]


def valid(d):
    rng = np.random.default_rng(0)
    y = np.arange(24) % 3
    X = rng.normal(size=(24, 3, 32)).astype(np.float32) + y[:, None, None]
    np.savez(d / "src.npz", X=X, y=y)
    np.savez(d / "user.npz", X=X[:12] * 1.2 + 0.1, y=y[:12])
    for argv in (["train-source", "--source", str(d / "src.npz"), "-o", str(d / "dense.pt"), "--epochs", "1",
                  "--mid", "8", "--final", "16"],
                 ["decompose", "--ckpt", str(d / "dense.pt"), "--source", str(d / "src.npz"), "-o",
                  str(d / "dec.pt"), "--rf", "4", "--finetune-epochs", "1"]):
        o = invoke(["tucker_sfda", *argv], timeout=300)
        assert o.code == 0, o.err
    return {"src": str(d / "src.npz"), "user": str(d / "user.npz"), "dense": str(d / "dense.pt"),
            "dec": str(d / "dec.pt")}
