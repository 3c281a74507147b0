from __future__ import annotations

import numpy as np

from ..harness import invoke
from ..spec import Spec

TINY_TOK = {"patch": "4", "scales": "1,2", "codebook": "8", "dim": "4", "width": "16", "depth": "1",
            "epochs": "1", "batch_size": "16"}

SPECS = [
    Spec("imagefolder train-tokenizer", {"images": "{images}", "out": "{tmp}/tok.pt", **TINY_TOK}),
    Spec("imagefolder train-ar", {"tokenizer": "{tok}", "images": "{images}", "out": "{tmp}/ar.pt",
                                  "depth": "1", "width": "16", "epochs": "1"}),
    Spec("imagefolder sample", {"tokenizer": "{tok}", "ar": "{ar}", "out": "{tmp}/grid.png", "class_": "1",
                                "n": "4"}),
    Spec("imagefolder score", {"real": "{images}", "fake": "{images}", "epochs": "1", "out": "{tmp}/s.json"}),
    Spec("imagefolder reconstruct", {"tokenizer": "{tok}", "images": "{images}", "out": "{tmp}/rec.png",
                                     "n_scales": "1", "n": "4"}),
]


def valid(d):
    rng = np.random.default_rng(0)
    labels = np.arange(32) % 2
    images = (rng.random((32, 8, 8)) * 128 + 100 * labels[:, None, None]).astype(np.uint8)
    np.savez(d / "images.npz", images=images, labels=labels)
    tok, ar = d / "tok.pt", d / "ar.pt"
    flags = [x for k, v in TINY_TOK.items() for x in (f"--{k.replace('_', '-')}", v)]
    o = invoke(["imagefolder", "train-tokenizer", "--images", str(d / "images.npz"), "--out", str(tok),
                *flags], timeout=300)
    assert o.code == 0, o.err
    o = invoke(["imagefolder", "train-ar", "--tokenizer", str(tok), "--images", str(d / "images.npz"),
                "--out", str(ar), "--depth", "1", "--width", "16", "--epochs", "1"], timeout=300)
    assert o.code == 0, o.err
    return {"images": str(d / "images.npz"), "tok": str(tok), "ar": str(ar)}
