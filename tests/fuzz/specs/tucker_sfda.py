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
    Spec("tucker_sfda adapt-model", {"module": "{net}", "weights": "{net_state}", "target": "{user}",
                                     "rf": "4", "epochs": "1", "out": "{tmp}/u.pt"}),
]

NET = """
from torch import nn


def build():
    return nn.Sequential(nn.Conv1d(3, 8, 5, padding=2), nn.ReLU(), nn.Conv1d(8, 8, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(8, 3))
"""


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
    import torch

    (d / "fuzz_net.py").write_text(NET)
    torch.manual_seed(0)
    ns: dict = {}
    exec(NET, ns)  # the user's model file, as adapt-model will import it
    torch.save(ns["build"]().state_dict(), d / "net_state.pt")
    return {"src": str(d / "src.npz"), "user": str(d / "user.npz"), "dense": str(d / "dense.pt"),
            "dec": str(d / "dec.pt"), "net": f"{d / 'fuzz_net.py'}:build",
            "net_state": str(d / "net_state.pt")}
