"""Training data and the three training stages at a profile's sizes: the predictor on synthetic scenes,
URSe on (ground truth, predictor output) pairs, then each refiner on their high-frequency parts. Every
stage rebuilds the same data from (sizes, seed), so stages can run in separate worker processes and
pass only state dicts."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import torch

from iclr25.core.data import shared_data
from iclr25.core.errors import UserError
from iclr25.psr_sci.diffusion import RefinerConfig
from iclr25.psr_sci.freq import freq_split
from iclr25.psr_sci.predictor import Predictor, PredictorConfig, fit_predictor, random_crop, simulate
from iclr25.psr_sci.refiner import FullCubeRefiner, SubspaceRefiner
from iclr25.psr_sci.scenes import TEST_IMAGES, TRAIN_IMAGES, ZERO_SHOT_IMAGES, random_crops, synth_scene
from iclr25.psr_sci.urse import URSe, URSeConfig, fit_urse

DATA = "17-psr-sci"
CODE_VERSION = 1  # bump when training changes, so cached models are rebuilt
G_SCALES = (100.0, 200.0, 400.0, 800.0, 1600.0)  # the s grid of the issue


@dataclass(frozen=True)
class Sizes:
    crop: int  # training crop, px
    n_crops: int  # training scenes in the pool
    pred_steps: int
    urse_steps: int
    urse_patch: int
    ref_steps: int
    ref_patch: int  # subspace training patch (A at 2x); the cube refiners use half of it
    scene: int  # test scene size, px
    n_test: int
    n_zero: int
    ddim_steps: int
    gap_iters: int
    sweep: bool  # choose s on 2 training scenes (else the committed G_SCALE)


SIZES = {
    "smoke": Sizes(crop=16, n_crops=8, pred_steps=2, urse_steps=2, urse_patch=16, ref_steps=2, ref_patch=16,
                   scene=32, n_test=2, n_zero=2, ddim_steps=2, gap_iters=3, sweep=False),
    "quick": Sizes(crop=32, n_crops=64, pred_steps=80, urse_steps=60, urse_patch=16, ref_steps=100,
                   ref_patch=16, scene=64, n_test=4, n_zero=2, ddim_steps=10, gap_iters=60, sweep=False),
    "full": Sizes(crop=64, n_crops=192, pred_steps=1000, urse_steps=1000, urse_patch=32, ref_steps=1000,
                  ref_patch=32, scene=128, n_test=10, n_zero=5, ddim_steps=30, gap_iters=60, sweep=True),
}
G_SCALE = 800.0  # s used when a profile does not sweep (the paper's value until a full sweep says otherwise)


def load_mask(size: int | None = None) -> tuple[np.ndarray, str]:
    """The KAIST simulation mask (256²) from the shared data folder, centre-cropped to `size`; a
    Bernoulli(0.5) mask (seed 0) when the folder is absent. Returns (mask, its name)."""
    folder = shared_data(DATA)
    if folder is not None and (folder / "kaist_sim_mask_256.mat").exists():
        from iclr25.psr_sci.io import read_mat

        mask, name = read_mat(folder / "kaist_sim_mask_256.mat", "mask", ("mask",)), "kaist"
    else:
        mask, name = (np.random.default_rng(0).random((256, 256)) < 0.5).astype(np.float32), "random"
    if size is not None:
        if size > mask.shape[0]:
            raise UserError(f"scene size {size} is larger than the {mask.shape[0]}² mask")
        o = (mask.shape[0] - size) // 2
        mask = mask[o:o + size, o:o + size]
    return np.ascontiguousarray(mask, dtype=np.float32), name


@functools.lru_cache(maxsize=4)
def training_pool(sizes: Sizes, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(cubes (N, 28, c, c), their mask crops (N, c, c)) from the ten training photographs."""
    rng = np.random.default_rng([seed, 1])
    crops = random_crops(TRAIN_IMAGES, sizes.n_crops, sizes.crop, rng)
    cubes = torch.as_tensor(np.stack([synth_scene(c, "train", rng) for c in crops]))
    mask = torch.as_tensor(load_mask()[0])
    gen = torch.Generator().manual_seed(seed + 11)
    masks = torch.stack([random_crop(mask, sizes.crop, sizes.crop, gen) for _ in range(sizes.n_crops)])
    return cubes, masks


@functools.lru_cache(maxsize=8)
def eval_scenes(sizes: Sizes, seed: int, kind: str) -> np.ndarray:
    """Fixed scenes (n, 28, S, S): "test" (chelsea and coffee, train spectra), "zero_shot" (motorcycle,
    CIE 2017 spectra), "sweep" (two training-image scenes to choose s)."""
    names, lib, n, off = {"test": (TEST_IMAGES, "train", sizes.n_test, 2),
                          "zero_shot": (ZERO_SHOT_IMAGES, "zero_shot", sizes.n_zero, 3),
                          "sweep": (TRAIN_IMAGES[:2], "train", 2, 4)}[kind]
    rng = np.random.default_rng([seed, off])
    crops = random_crops(names, n, sizes.scene, rng)
    return np.stack([synth_scene(c, lib, rng) for c in crops])


def configs(sizes: Sizes) -> tuple[PredictorConfig, URSeConfig, RefinerConfig]:
    return (PredictorConfig(steps=sizes.pred_steps), URSeConfig(steps=sizes.urse_steps),
            RefinerConfig(steps=sizes.ref_steps, patch=sizes.ref_patch, ddim_steps=sizes.ddim_steps))


def train_predictor(sizes: Sizes, seed: int) -> dict:
    torch.manual_seed(seed)
    cubes, _ = training_pool(sizes, seed)
    model = Predictor(configs(sizes)[0])
    losses = fit_predictor(model, cubes, torch.as_tensor(load_mask()[0]), torch.Generator().manual_seed(seed))
    return {"net": model.state_dict(), "losses": losses}


def predictor_from(state: dict, sizes: Sizes) -> Predictor:
    model = Predictor(configs(sizes)[0])
    model.load_state_dict(state["net"])
    return model.eval()


def init_pool(sizes: Sizes, seed: int, pred_state: dict) -> torch.Tensor:
    """The predictor's reconstructions X_init of the training pool (its training pairs for URSe and the
    refiners, as the paper trains on DAUHST outputs)."""
    cubes, masks = training_pool(sizes, seed)
    pred = predictor_from(pred_state, sizes)
    with torch.no_grad():
        return torch.cat([pred(simulate(cubes[i:i + 16], masks[i:i + 16]), masks[i:i + 16]).clamp_min(0)
                          for i in range(0, len(cubes), 16)])


def train_urse(sizes: Sizes, seed: int, pred_state: dict) -> dict:
    torch.manual_seed(seed + 1)
    cubes, _ = training_pool(sizes, seed)
    model = URSe(config=configs(sizes)[1])
    losses = fit_urse(model, cubes, init_pool(sizes, seed, pred_state),
                      torch.Generator().manual_seed(seed + 1), sizes.urse_patch)
    return {"net": model.state_dict(), "losses": losses}


def urse_from(state: dict, sizes: Sizes) -> URSe:
    model = URSe(config=configs(sizes)[1])
    model.load_state_dict(state["net"])
    return model.eval()


def make_refiner(prior: str, sizes: Sizes, urse: URSe | None):
    cfg = configs(sizes)[2]
    if prior == "subspace":
        return SubspaceRefiner(urse, "subspace", config=cfg)
    cfg = replace(cfg, patch=max(sizes.ref_patch // 2, 8))  # the same scene area as the subspace patch
    if prior == "band_group":
        return SubspaceRefiner(None, "band_group", config=cfg)
    return FullCubeRefiner(config=cfg)


def train_refiner(prior: str, sizes: Sizes, seed: int, pred_state: dict, urse_state: dict | None) -> dict:
    torch.manual_seed(seed + 2)
    cubes, _ = training_pool(sizes, seed)
    hf_gt, _ = freq_split(cubes)
    hf_init, _ = freq_split(init_pool(sizes, seed, pred_state))
    urse = urse_from(urse_state, sizes) if urse_state is not None else None
    ref = make_refiner(prior, sizes, urse)
    ref.fit(hf_gt, hf_init, torch.Generator().manual_seed(seed + 2))
    return ref.state()

