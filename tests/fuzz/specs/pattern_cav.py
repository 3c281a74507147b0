from __future__ import annotations

import numpy as np

from ..spec import Spec

SPECS = [
    Spec("pattern_cav fit", {"acts": "{acts}", "labels": "{labels}", "out": "{tmp}/cav.npy",
                             "true_direction": "{direction}"}),
    Spec("pattern_cav compare", {"acts": "{acts}", "labels": "{labels}", "methods": "pattern,ridge"}),
    Spec("pattern_cav toy", {"angle": "45", "seed": "0"}),
]


def valid(d):
    rng = np.random.default_rng(0)
    acts = rng.normal(size=(40, 6))
    labels = (rng.random(40) < 0.5).astype(int)
    acts[labels == 1, 0] += 2.0
    np.save(d / "acts.npy", acts)
    np.save(d / "labels.npy", labels)
    np.save(d / "direction.npy", np.eye(6)[0])
    return {k: str(d / f"{k}.npy") for k in ("acts", "labels", "direction")}
