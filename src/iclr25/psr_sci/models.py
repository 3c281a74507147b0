"""Trained PSR-SCI components for a profile's sizes: trained in stages over `ctx.map` (predictor; then URSe
beside the full-cube refiner; then the subspace beside the band-group refiner) and cached under
cache_dir() keyed by the sizes, the seed and the code version."""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass
from types import SimpleNamespace

import torch

from iclr25.core.runtime import RunContext, atomic_write, cache_dir, config_hash
from iclr25.psr_sci.pipeline import PSRPipeline
from iclr25.psr_sci.training import (
    CODE_VERSION,
    Sizes,
    configs,
    make_refiner,
    predictor_from,
    train_predictor,
    train_refiner,
    train_urse,
    urse_from,
)

PRIORS = ("subspace", "band_group", "full_cube")


@dataclass
class TrainedModels:
    """State dicts (picklable, so workers can rebuild the networks) and training losses."""

    predictor: dict
    urse: dict
    refiners: dict[str, dict]

    def build(self, sizes: Sizes) -> SimpleNamespace:
        """predictor, urse and one PSRPipeline per prior: psr (subspace), band_group, full_cube."""
        key = (id(self), sizes)
        if _BUILT.get("key") != key or _BUILT.get("models") is not self:
            _BUILT.update(key=key, models=self, built=_build(self, sizes))
        return _BUILT["built"]

    @property
    def n_params(self) -> dict[str, int]:
        def count(sd: dict) -> int:
            return sum(v.numel() for k, v in sd.items() if torch.is_tensor(v) and "running" not in k)

        return {"predictor": count(self.predictor["net"]), "urse": count(self.urse["net"]),
                **{k: count(v["net"]) for k, v in self.refiners.items()}}

    def losses(self) -> dict[str, list[float]]:
        return {"predictor": self.predictor["losses"], "URSe": self.urse["losses"],
                **{k: v["losses"] for k, v in self.refiners.items()}}


_BUILT: dict = {}  # the networks of the last TrainedModels built in this process


def _build(models: TrainedModels, sizes: Sizes) -> SimpleNamespace:
    pred = predictor_from(models.predictor, sizes)
    urse = urse_from(models.urse, sizes)
    pipes = {}
    for prior in PRIORS:
        ref = make_refiner(prior, sizes, urse if prior == "subspace" else None)
        ref.load(models.refiners[prior])
        pipes[prior] = PSRPipeline(pred, urse, ref)
    return SimpleNamespace(predictor=pred, urse=urse, psr=pipes["subspace"], band_group=pipes["band_group"],
                           full_cube=pipes["full_cube"])


def _train_task(item: tuple) -> dict:
    """One training stage in a worker: ("predictor" | "urse" | prior, sizes, seed, pred_state, urse_state)."""
    from iclr25.core.runtime import pin_threads

    pin_threads()
    what, sizes, seed, pred_state, urse_state = item
    if what == "predictor":
        return train_predictor(sizes, seed)
    if what == "urse":
        return train_urse(sizes, seed, pred_state)
    return train_refiner(what, sizes, seed, pred_state, urse_state)


def model_key(sizes: Sizes, seed: int) -> str:
    return config_hash({"sizes": asdict(sizes), "seed": seed, "code": CODE_VERSION,
                        "configs": [asdict(c) for c in configs(sizes)]})


def trained_models(sizes: Sizes, seed: int, ctx: RunContext | None = None,
                   use_cache: bool = True) -> TrainedModels:
    """Load the models for (sizes, seed) from the cache, or train them (about 1 min for quick)."""
    path = cache_dir() / "psr_sci" / f"models-{model_key(sizes, seed)}.pt"
    if use_cache and path.exists():
        try:
            blob = torch.load(path, map_location="cpu", weights_only=True)
            return TrainedModels(blob["predictor"], blob["urse"], blob["refiners"])
        except Exception:  # a damaged cache file is rebuilt, not fatal
            path.unlink(missing_ok=True)
    ctx = ctx or RunContext(seed=seed, profile="smoke")
    (pred,) = ctx.map(_train_task, [("predictor", sizes, seed, None, None)], "train predictor")
    urse, full = ctx.map(_train_task, [("urse", sizes, seed, pred, None),
                                       ("full_cube", sizes, seed, pred, None)], "train URSe, full-cube")
    sub, band = ctx.map(_train_task, [("subspace", sizes, seed, pred, urse),
                                      ("band_group", sizes, seed, pred, None)], "train refiners")
    models = TrainedModels(pred, urse, {"subspace": sub, "band_group": band, "full_cube": full})
    if use_cache:
        buf = io.BytesIO()
        torch.save({"predictor": pred, "urse": urse, "refiners": models.refiners}, buf)
        with atomic_write(path) as f:
            f.write(buf.getvalue())
    return models
