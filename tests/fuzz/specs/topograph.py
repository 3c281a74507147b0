from __future__ import annotations

import numpy as np
from PIL import Image

from ..spec import Spec

SPECS = [
    Spec("topograph metric", {"pred": "{pred_png}", "gt": "{gt_png}", "out": "{tmp}/overlay.png"}),
    Spec("topograph train", {"data": "blobs", "size": "32", "warm_iters": "2", "iters": "2", "n_train": "4",
                             "n_test": "2", "loss": "dice+topograph", "save": "{tmp}/w.pt"}),
    Spec("topograph bench", {"size": ["32"], "batch": "2", "repeats": "1"}),
]


def valid(d):
    mask = np.zeros((32, 32), np.uint8)
    mask[8:24, 10:14] = 255
    Image.fromarray(mask).save(d / "gt.png")
    pred = mask.copy()
    pred[15:17, 10:14] = 0  # a break: one extra component
    Image.fromarray(pred).save(d / "pred.png")
    return {"gt_png": str(d / "gt.png"), "pred_png": str(d / "pred.png")}
