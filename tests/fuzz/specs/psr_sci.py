from __future__ import annotations

import numpy as np

from ..spec import Spec

SPECS = [
    Spec("psr_sci simulate", {"image": "{img}", "mask": "random", "size": "16", "out": "{tmp}/meas.npz"}),
    # method stays gaptv: predictor/psr train their networks on first use (minutes, not a second)
    Spec("psr_sci reconstruct", {"meas": "{meas}", "mask": "{mask}", "method": "gaptv",
                                 "out": "{tmp}/cube.npz", "rgb": "{tmp}/cube.png"},
         fixed=frozenset({"method"})),
    # the smallest training run: 8-pixel crops, one step per stage
    Spec("psr_sci train", {"cubes": "{cubes}", "out": "{tmp}/nets.pt", "crop": "8", "n_crops": "4",
                           "steps": "1", "predictor_steps": "1", "urse_steps": "1"}),
    Spec("psr_sci real", {"scene": "1", "method": "gaptv", "crop": "16", "rgb": "{tmp}/real.png"},
         fixed=frozenset({"method"}), needs="17-psr-sci/real"),
]


def valid(d):
    from PIL import Image

    rng = np.random.default_rng(0)
    Image.fromarray((rng.random((24, 24, 3)) * 255).astype(np.uint8)).save(d / "img.png")
    mask = (rng.random((16, 16)) < 0.5).astype(np.float32)
    cube = rng.random((28, 16, 16)).astype(np.float32)
    y = np.zeros((16, 16 + 54), np.float32)
    for k in range(28):
        y[:, 2 * k: 2 * k + 16] += mask * cube[k]
    np.savez(d / "meas.npz", meas=y)
    np.save(d / "mask.npy", mask)
    np.save(d / "cubes.npy", rng.random((2, 6, 16, 16)).astype(np.float32))
    return {"cubes": str(d / "cubes.npy"), "img": str(d / "img.png"), "meas": str(d / "meas.npz"),
            "mask": str(d / "mask.npy")}
