"""PSR-SCI end to end: predict X_init, split it into X^h + X^l, refine X^h with a guided diffusion
refiner (in URSe's subspace by default) and return X̂ = ψ⁻¹(A^h_diff) + X^l_init (§2(e), output)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch

from iclr25.psr_sci.freq import freq_split
from iclr25.psr_sci.operators import cassi_forward, check_problem
from iclr25.psr_sci.predictor import Predictor
from iclr25.psr_sci.refiner import FullCubeRefiner, SubspaceRefiner
from iclr25.psr_sci.urse import URSe


def residual(x: Any, y: Any, mask: Any, step: int = 2) -> float:
    """The relative measurement residual ‖Φx − y‖ / ‖y‖ (in float64)."""
    x = torch.as_tensor(np.asarray(x, np.float64))
    y = torch.as_tensor(np.asarray(y, np.float64))
    m = torch.as_tensor(np.asarray(mask, np.float64))
    return float((cassi_forward(x, m, step) - y).norm() / y.norm().clamp_min(1e-12))


class PSRPipeline:
    """`PSRPipeline(pred, urse, refiner).reconstruct(y, mask) -> (x̂ (B, H, W), info)`."""

    def __init__(self, pred: Predictor, urse: URSe | None, refiner: SubspaceRefiner | FullCubeRefiner):
        self.pred = pred
        self.urse = urse
        self.refiner = refiner

    def reconstruct(self, y: Any, mask: Any, guidance: bool = True, steps: int | None = None,
                    g_scale: float | None = None, seed: int = 0, x_init: np.ndarray | None = None,
                    start_t: int | None = None) -> tuple[np.ndarray, dict]:
        """Refine the predictor's reconstruction of measurement y (H, W') under mask (H, W). `x_init`
        skips the predictor when its output is already at hand (or refines another start, e.g. GAP-TV's).
        info: x_init, x_classic (GAP-TV, the predictor's start; absent when x_init is given), residuals,
        seconds."""
        c = self.pred.config
        check_problem(y, mask, c.bands, c.step)
        t0 = time.perf_counter()
        extra = {}
        if x_init is None:
            x_init, extra["x_classic"] = self.pred.predict_with_classic(y, mask)
        t_pred = time.perf_counter() - t0
        yt = torch.as_tensor(np.asarray(y, np.float32))[None]
        mt = torch.as_tensor(np.asarray(mask, np.float32))
        hf, lf = freq_split(torch.as_tensor(x_init)[None])
        gen = torch.Generator().manual_seed(seed)
        hf_ref, info = self.refiner.refine(hf, lf, yt, mt, gen, guidance, steps, g_scale, c.step, start_t)
        x = (hf_ref + lf)[0].clamp_min(0).numpy()
        info.update(extra, x_init=x_init, predict_s=t_pred, total_s=time.perf_counter() - t0,
                    residual_init=residual(x_init, y, mask, c.step), residual=residual(x, y, mask, c.step))
        return x, info
