from __future__ import annotations

import numpy as np

from ..spec import Spec

SPECS = [
    Spec("pattern_cav fit", {"acts": "{acts}", "labels": "{labels}", "out": "{tmp}/cav.npy",
                             "true_direction": "{direction}"}),
    Spec("pattern_cav compare", {"acts": "{acts}", "labels": "{labels}", "methods": "pattern,ridge"}),
    Spec("pattern_cav toy", {"angle": "45", "seed": "0"}),
    Spec("pattern_cav score", {"cav": "{direction}", "acts": "{acts}", "labels": "{labels}",
                               "out": "{tmp}/scores.csv"}),
    Spec("pattern_cav tcav", {"model": "{model}", "weights": "{weights}", "layer": "1",
                              "inputs": "{images}", "target_class": "1", "cav": ["{cav4}"],
                              "acts": "{acts4}", "labels": "{labels}", "bank": "2"}),
    Spec("pattern_cav correct", {"model": "{model}", "weights": "{weights}", "layer": "1",
                                 "cav": "{cav4}", "inputs": "{images}", "labels": "{classes}",
                                 "artifact_inputs": "{images}", "artifact_masks": "{masks}", "epochs": "1",
                                 "out": "{tmp}/fixed.pt"}),
]

NET = """from torch import nn

def make_net():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool2d(2), nn.Flatten(),
                         nn.Linear(16, 2))
"""


def valid(d):
    import torch
    rng = np.random.default_rng(0)
    acts = rng.normal(size=(40, 6))
    labels = (rng.random(40) < 0.5).astype(int)
    acts[labels == 1, 0] += 2.0
    np.save(d / "acts.npy", acts)
    np.save(d / "labels.npy", labels)
    np.save(d / "direction.npy", np.eye(6)[0])
    # a user's model for tcav / correct: 40 images 8x8, 2 classes, a corner patch on class 1
    (d / "net.py").write_text(NET)
    x = rng.normal(0, 0.3, (40, 1, 8, 8)).astype(np.float32)
    x[labels == 1, 0, :2, :2] = 2.0
    mask = np.zeros_like(x, dtype=bool)
    mask[:, 0, :2, :2] = True
    np.save(d / "images.npy", x)
    np.save(d / "classes.npy", labels)
    np.save(d / "masks.npy", mask)
    np.save(d / "acts4.npy", rng.normal(size=(40, 4)) + labels[:, None])
    np.save(d / "cav4.npy", np.array([1.0, 0.0, 0.0, 0.0]))
    torch.manual_seed(0)
    ns: dict = {}
    exec(NET, ns)
    torch.save(ns["make_net"]().state_dict(), d / "weights.pt")
    names = ("acts", "labels", "direction", "images", "classes", "masks", "acts4", "cav4")
    return {**{k: str(d / f"{k}.npy") for k in names}, "model": f"{d / 'net.py'}:make_net",
            "weights": str(d / "weights.pt")}
