from __future__ import annotations

import numpy as np
from PIL import Image

from ..spec import Spec

SPECS = [
    Spec("topograph metric", {"pred": "{pred_png}", "gt": "{gt_png}", "out": "{tmp}/rows.csv",
                              "overlay": "{tmp}/overlay.png", "boundary": "pad"}),
    Spec("topograph train", {"images": "{img_dir}", "masks": "{mask_dir}", "size": "32", "warm_steps": "2",
                             "steps": "2", "test_fraction": "0.2", "loss": "dice+topograph",
                             "boundary": "none", "out": "{tmp}/w.pt"}),
    Spec("topograph segment", {"checkpoint": "{checkpoint}", "images": "{img_dir}", "out": "{tmp}/seg",
                               "masks": "{mask_dir}"}),
    Spec("topograph bench", {"size": ["32"], "batch_size": "2", "repeats": "1"}),
]


def valid(d):
    mask = np.zeros((32, 32), np.uint8)
    mask[8:24, 10:14] = 255
    Image.fromarray(mask).save(d / "gt.png")
    pred = mask.copy()
    pred[15:17, 10:14] = 0  # a break: one extra component
    Image.fromarray(pred).save(d / "pred.png")
    for sub in ("img", "msk"):
        (d / sub).mkdir()
    for i in range(4):  # the user's own image/mask folders: 4 pairs of 16x16
        m = np.zeros((16, 16), np.uint8)
        m[:, 3 + 3 * i] = 255
        Image.fromarray(m).save(d / "msk" / f"{i}.png")
        Image.fromarray(m // 2 + 20).save(d / "img" / f"{i}.png")
    from iclr25.topograph.model_io import save_checkpoint
    from iclr25.topograph.unet import UNet
    save_checkpoint(d / "ck.pt", UNet(), {"kind": "unet", "channels": [8, 16, 32]},
                    {"loss": "dice", "steps": 0})
    return {"gt_png": str(d / "gt.png"), "pred_png": str(d / "pred.png"), "img_dir": str(d / "img"),
            "mask_dir": str(d / "msk"), "checkpoint": str(d / "ck.pt")}
