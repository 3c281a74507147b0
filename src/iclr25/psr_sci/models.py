"""Trained PSR-SCI networks: state dicts with their configurations, rebuilt into a predictor, URSe and one
PSRPipeline per prior. The reproduction trains them in stages over `ctx.map` (GAP-TV starts of the pool;
the predictor beside the full-cube prior; URSe; the subspace prior) and caches them under cache_dir(),
keyed by sizes, seed and code version; `iclr25 psr_sci train` trains them on a user's cubes into a file."""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch

from iclr25.core.errors import UserError
from iclr25.core.runtime import RunContext, atomic_write, cache_dir, config_hash
from iclr25.psr_sci.pipeline import PSRPipeline
from iclr25.psr_sci.training import (
    CODE_VERSION,
    POOL_PARTS,
    Configs,
    Sizes,
    configs,
    make_refiner,
    pool_part,
    predictor_from,
    stage,
    urse_from,
)

FORMAT = "iclr25.psr_sci.models/2"


@dataclass
class TrainedModels:
    """State dicts (picklable, so workers can rebuild the networks), their configurations and losses."""

    configs: dict
    predictor: dict
    urse: dict
    priors: dict[str, dict]

    @property
    def cfgs(self) -> Configs:
        return Configs.from_dict(self.configs)

    @property
    def bands(self) -> int:
        return self.cfgs.predictor.bands

    def build(self) -> SimpleNamespace:
        """predictor, urse and PSRPipelines psr (subspace prior), full_cube, band_group (the subspace
        U-Net on 3-band groups: a DiffSCI-style pass, used for timing)."""
        if _BUILT.get("models") is not self:
            _BUILT.update(models=self, built=_build(self))
        return _BUILT["built"]

    @property
    def n_params(self) -> dict[str, int]:
        def count(sd: dict) -> int:
            return sum(v.numel() for k, v in sd.items() if torch.is_tensor(v) and "running" not in k)

        return {"predictor": count(self.predictor["net"]), "urse": count(self.urse["net"]),
                **{k: count(v["net"]) for k, v in self.priors.items()}}

    def losses(self) -> dict[str, list[float]]:
        return {"predictor": self.predictor["losses"], "URSe": self.urse["losses"],
                **{f"prior ({k})": v["losses"] for k, v in self.priors.items()}}

    def to_blob(self) -> dict[str, Any]:
        return {"format": FORMAT, "configs": self.configs, "predictor": self.predictor, "urse": self.urse,
                "priors": self.priors}

    @classmethod
    def from_blob(cls, blob: dict[str, Any]) -> TrainedModels:
        if not isinstance(blob, dict) or blob.get("format") != FORMAT:
            raise ValueError("not a PSR-SCI model file")
        return cls(blob["configs"], blob["predictor"], blob["urse"], blob["priors"])

    def save(self, path: Path) -> None:
        buf = io.BytesIO()
        torch.save(self.to_blob(), buf)
        with atomic_write(path) as f:
            f.write(buf.getvalue())

    @classmethod
    def load(cls, path: Path, what: str = "--models") -> TrainedModels:
        """A model file written by `save` (`iclr25 psr_sci train -o`); one-line UserError otherwise."""
        path = Path(path)
        if not path.is_file():
            raise UserError(f"{what}: file not found: {path}")
        try:
            return cls.from_blob(torch.load(path, map_location="cpu", weights_only=True))
        except Exception:  # torch raises many types on foreign or damaged files
            raise UserError(f"{what}: {path} is not a model file written by `iclr25 psr_sci train`") from None


_BUILT: dict = {}  # the networks of the last TrainedModels built in this process


def _build(models: TrainedModels) -> SimpleNamespace:
    cfgs = models.cfgs
    pred = predictor_from(models.predictor, cfgs.predictor)
    urse = urse_from(models.urse, cfgs.urse)
    pipes = {}
    for prior in ("subspace", "full_cube", "band_group"):
        ref = make_refiner(prior, cfgs, urse if prior == "subspace" else None)
        ref.load(models.priors["subspace" if prior == "band_group" else prior])
        pipes[prior] = PSRPipeline(pred, urse, ref)
    return SimpleNamespace(predictor=pred, urse=urse, psr=pipes["subspace"], full_cube=pipes["full_cube"],
                           band_group=pipes["band_group"])


def model_key(sizes: Sizes, seed: int) -> str:
    return config_hash({"sizes": asdict(sizes), "seed": seed, "code": CODE_VERSION,
                        "configs": configs(sizes).to_dict()})


def trained_models(sizes: Sizes, seed: int, ctx: RunContext | None = None,
                   use_cache: bool = True) -> TrainedModels:
    """Load the models for (sizes, seed) from the cache, or train them (the stages print what they do)."""
    import sys

    path = cache_dir() / "psr_sci" / f"models-{model_key(sizes, seed)}.pt"
    if use_cache and path.exists():
        try:
            return TrainedModels.load(path)
        except UserError:  # a damaged cache file is rebuilt, not fatal
            path.unlink(missing_ok=True)
    ctx = ctx or RunContext(seed=seed, profile="smoke")
    cfgs = configs(sizes)

    def say(msg: str) -> None:
        print(f"psr_sci: {msg}", file=sys.stderr, flush=True)

    say(f"training the networks once ({sizes.n_crops} crops of {sizes.crop}²; cached afterwards)")
    say(f"[1/4] GAP-TV starts of the training crops ({sizes.gap_iters} iterations each)")
    ctx.map(pool_part, [(sizes, seed, k) for k in range(POOL_PARTS)], "GAP-TV starts")
    say(f"[2/4] predictor ({sizes.pred_steps} steps) beside the full-cube prior ({sizes.prior_steps} steps)")
    pred, full = ctx.map(stage, [("predictor", sizes, seed, None, None),
                                 ("full_cube", sizes, seed, None, None)], "predictor, full-cube prior")
    say(f"[3/4] URSe ({sizes.urse_steps} steps)")
    (urse,) = ctx.map(stage, [("urse", sizes, seed, pred, None)], "URSe")
    say(f"[4/4] subspace prior ({sizes.prior_steps} steps)")
    (sub,) = ctx.map(stage, [("subspace", sizes, seed, pred, urse)], "subspace prior")
    models = TrainedModels(cfgs.to_dict(), pred, urse, {"subspace": sub, "full_cube": full})
    if use_cache:
        models.save(path)
    return models
