"""Training PSR-SCI's networks, on the reproduction's synthetic scenes or on a user's own cubes: a pool of
crops with their masks, measurements and GAP-TV starts; the predictor on the pool (checkpoint chosen on a
held-out tenth); URSe on (ground truth, predictor output) pairs; and each diffusion prior on ground-truth
high bands. The reproduction's stages rebuild the same data from (sizes, seed) in each worker, so they
run in separate processes and pass only state dicts."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch

from iclr25.core.data import shared_data
from iclr25.core.errors import UserError
from iclr25.psr_sci.claims import MASKS
from iclr25.psr_sci.diffusion import RefinerConfig
from iclr25.psr_sci.freq import freq_split
from iclr25.psr_sci.predictor import Pool, Predictor, PredictorConfig, fit_predictor, make_pool, random_crop
from iclr25.psr_sci.refiner import FullCubeRefiner, SubspaceRefiner
from iclr25.psr_sci.scenes import TEST_IMAGES, TRAIN_IMAGES, ZERO_SHOT_IMAGES, random_crops, synth_scene
from iclr25.psr_sci.urse import URSe, URSeConfig, fit_urse

DATA = "17-psr-sci"
CODE_VERSION = 2  # bump when training changes, so cached models are rebuilt
G_SCALES = (100.0, 400.0, 1600.0)  # the s grid swept by the full profile (with START_TS)
G_SCALE = 800.0  # s when a profile does not sweep (the paper's value)
START_TS = (99, 199, 399)  # the step A_init is noised to, swept with s (the paper does not state it)
START_T = 399  # when a profile does not sweep: every DDIM step inside the guidance window t < 400
TRAIN_MASK_SEED = 7  # the Bernoulli mask that joins the KAIST mask in training (test masks use others)
TEST_MASK_SEEDS = {"bern1": 101, "bern2": 102}
PRIORS = ("subspace", "full_cube")  # trained; the band-group prior reuses the subspace U-Net (timing only)


@dataclass(frozen=True)
class Sizes:
    crop: int  # training crop, px
    n_crops: int  # crops in the pool; a tenth (at least 2) is held out to pick the predictor's checkpoint
    pred_steps: int
    urse_steps: int
    urse_patch: int
    prior_steps: int
    prior_patch: int  # the prior's training patch in its latent, px (subspace: 2x the scene; cube priors
    #                   train on the same scene area)
    scene: int  # test scene size, px
    n_test: int
    n_zero: int
    ddim_steps: int
    gap_iters: int
    sweep: bool  # choose s on 2 training-image scenes (else the committed G_SCALE)
    repeats: int  # timing repeats (arms alternated)
    timing_scene: int  # px of the scene the timing claim runs on (the cost ratio grows with the size)


SIZES = {
    "smoke": Sizes(crop=16, n_crops=8, pred_steps=2, urse_steps=2, urse_patch=16, prior_steps=2,
                   prior_patch=16,
                   scene=16, n_test=2, n_zero=2, ddim_steps=2, gap_iters=3, sweep=True, repeats=2,
                   timing_scene=16),
    "quick": Sizes(crop=32, n_crops=40, pred_steps=40, urse_steps=150, urse_patch=16, prior_steps=120,
                   prior_patch=32, scene=48, n_test=3, n_zero=2, ddim_steps=8, gap_iters=60, sweep=False,
                   repeats=5, timing_scene=128),
    "full": Sizes(crop=64, n_crops=384, pred_steps=1500, urse_steps=3000, urse_patch=32, prior_steps=5000,
                  prior_patch=64, scene=128, n_test=8, n_zero=4, ddim_steps=30, gap_iters=60, sweep=True,
                  repeats=5, timing_scene=256),
}


# ---- configurations --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Configs:
    """The three networks' configurations; `bands` and `step` describe the instrument."""

    predictor: PredictorConfig
    urse: URSeConfig
    refiner: RefinerConfig

    def to_dict(self) -> dict:
        return {"predictor": asdict(self.predictor), "urse": asdict(self.urse),
                "refiner": asdict(self.refiner)}

    @classmethod
    def from_dict(cls, d: dict) -> Configs:
        u = dict(d["urse"])
        u["rgb_bands"] = tuple(u["rgb_bands"])
        r = dict(d["refiner"])
        r["widths"] = tuple(r["widths"])
        return cls(PredictorConfig(**d["predictor"]), URSeConfig(**u), RefinerConfig(**r))


def make_configs(bands: int = 28, step: int = 2, pred_steps: int = 1000, urse_steps: int = 1000,
                 prior_steps: int = 5000, prior_patch: int = 64, ddim_steps: int = 30,
                 gap_iters: int = 60) -> Configs:
    """Configurations for a `bands`-band instrument with a `step`-px shear; the pseudo-RGB bands of URSe's
    early constraint (23, 15, 6 of KAIST's 28) scale with the band count."""
    if bands < 3:
        raise UserError(f"the networks need at least 3 bands, got {bands}")
    rgb = tuple(int(round(b * (bands - 1) / 27)) for b in (23, 15, 6))
    return Configs(PredictorConfig(bands=bands, step=step, steps=pred_steps, gap_iters=gap_iters),
                   URSeConfig(bands=bands, steps=urse_steps, rgb_bands=rgb),
                   RefinerConfig(steps=prior_steps, patch=prior_patch, ddim_steps=ddim_steps))


def configs(sizes: Sizes) -> Configs:
    return make_configs(28, 2, sizes.pred_steps, sizes.urse_steps, sizes.prior_steps, sizes.prior_patch,
                        sizes.ddim_steps, sizes.gap_iters)


# ---- masks and scenes of the reproduction ----------------------------------------------------------

def load_mask(size: int | None = None) -> tuple[np.ndarray, str]:
    """The KAIST simulation mask (256²) from the shared data folder, centre-cropped to `size`; a
    Bernoulli(0.5) mask (seed 0) when the folder is absent. Returns (mask, its name)."""
    folder = shared_data(DATA)
    if folder is not None and (folder / "kaist_sim_mask_256.mat").exists():
        from iclr25.psr_sci.io import read_mat

        mask, name = read_mat(folder / "kaist_sim_mask_256.mat", "mask", ("mask",)), "kaist"
    else:
        mask, name = bernoulli_mask(256, 0), "random"
    if size is not None:
        if size > mask.shape[0]:
            raise UserError(f"scene size {size} is larger than the {mask.shape[0]}² mask")
        o = (mask.shape[0] - size) // 2
        mask = mask[o:o + size, o:o + size]
    return np.ascontiguousarray(mask, dtype=np.float32), name


def bernoulli_mask(size: int, seed: int, height: int | None = None) -> np.ndarray:
    """A Bernoulli(0.5) coded aperture (0/1, float32)."""
    return (np.random.default_rng(seed).random((height or size, size)) < 0.5).astype(np.float32)


def test_mask(name: str, size: int) -> np.ndarray:
    """The test masks of the reproduction: "kaist" (the KAIST mask's centre) and two Bernoulli(0.5) masks
    never seen in training."""
    if name == "kaist":
        return load_mask(size)[0]
    if name not in TEST_MASK_SEEDS:
        raise ValueError(f"unknown test mask {name!r}; choose from {', '.join(MASKS)}")
    return bernoulli_mask(size, TEST_MASK_SEEDS[name])


def training_masks() -> list[torch.Tensor]:
    """Masks whose random crops the pool uses: the KAIST mask and one Bernoulli mask (seed 7)."""
    return [torch.as_tensor(load_mask()[0]), torch.as_tensor(bernoulli_mask(256, TRAIN_MASK_SEED))]


@functools.lru_cache(maxsize=2)
def training_scenes(sizes: Sizes, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(cubes (N, 28, c, c), mask crops (N, c, c)) from the ten training photographs; mask crops alternate
    between the training masks."""
    rng = np.random.default_rng([seed, 1])
    crops = random_crops(TRAIN_IMAGES, sizes.n_crops, sizes.crop, rng)
    cubes = torch.as_tensor(np.stack([synth_scene(c, "train", rng) for c in crops]))
    sources = training_masks()
    gen = torch.Generator().manual_seed(seed + 11)
    masks = torch.stack([random_crop(sources[i % len(sources)], sizes.crop, sizes.crop, gen)
                         for i in range(sizes.n_crops)])
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


# ---- the stages, on any cubes ----------------------------------------------------------------------

def split_pool(pool: Pool, seed: int) -> tuple[Pool, Pool]:
    """(training part, held-out tenth (at least 2 crops)) of a pool, by a seeded permutation."""
    n = len(pool)
    n_val = max(2, n // 10)
    if n - n_val < 2:
        raise UserError(f"training needs at least 4 crops, got {n}")
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed + 3))
    return pool.take(perm[n_val:]), pool.take(perm[:n_val])


def train_predictor(pool: Pool, cfg: PredictorConfig, seed: int) -> dict:
    torch.manual_seed(seed)
    train, val = split_pool(pool, seed)
    model = Predictor(cfg)
    hist = fit_predictor(model, train, val, torch.Generator().manual_seed(seed))
    return {"net": model.state_dict(), "losses": hist["loss"], "val_mse": hist["val_mse"],
            "val_step": hist["val_step"], "best_step": hist["best_step"][0]}


def predictor_from(state: dict, cfg: PredictorConfig) -> Predictor:
    model = Predictor(cfg)
    model.load_state_dict(state["net"])
    return model.eval()


def predict_pool(pool: Pool, pred_state: dict, cfg: PredictorConfig, chunk: int = 16) -> torch.Tensor:
    """The predictor's reconstructions X_init of the pool (URSe's training pairs, as the paper trains on
    DAUHST outputs)."""
    pred = predictor_from(pred_state, cfg)
    with torch.no_grad():
        return torch.cat([pred(p.y, p.masks, p.x0).clamp_min(0)
                          for p in (pool.take(slice(i, i + chunk)) for i in range(0, len(pool), chunk))])


def train_urse(cubes: torch.Tensor, x_init: torch.Tensor, cfg: URSeConfig, seed: int, patch: int) -> dict:
    torch.manual_seed(seed + 1)
    model = URSe(config=cfg)
    losses = fit_urse(model, cubes, x_init, torch.Generator().manual_seed(seed + 1), patch)
    return {"net": model.state_dict(), "losses": losses}


def urse_from(state: dict, cfg: URSeConfig) -> URSe:
    model = URSe(config=cfg)
    model.load_state_dict(state["net"])
    return model.eval()


def make_refiner(prior: str, cfgs: Configs, urse: URSe | None):
    """The refiner of a prior; the cube priors train on the subspace patch's scene area."""
    rc, bands = cfgs.refiner, cfgs.predictor.bands
    if prior == "subspace":
        return SubspaceRefiner(urse, "subspace", bands=bands, config=rc)
    rc = replace(rc, patch=max(rc.patch // cfgs.urse.upsample, 8))
    if prior == "band_group":
        return SubspaceRefiner(None, "band_group", bands=bands, config=rc)
    if prior == "full_cube":
        return FullCubeRefiner(bands, config=rc)
    raise ValueError(f"unknown prior {prior!r}")


def train_prior(prior: str, cubes: torch.Tensor, cfgs: Configs, seed: int, urse_state: dict | None) -> dict:
    torch.manual_seed(seed + 2)
    hf_gt, _ = freq_split(cubes)
    urse = urse_from(urse_state, cfgs.urse) if urse_state is not None else None
    ref = make_refiner(prior, cfgs, urse)
    ref.fit(hf_gt, torch.Generator().manual_seed(seed + 2))
    return ref.state()


def train_all(cubes: torch.Tensor, masks: torch.Tensor, cfgs: Configs, seed: int = 0, urse_patch: int = 32,
              say: Callable[[str], None] = lambda s: None) -> dict:
    """Every network on the given crops (N, B, h, w) and their masks (N, h, w), in this process: what
    `iclr25 psr_sci train` runs on a user's cubes. Returns the state of TrainedModels."""
    say(f"[1/5] GAP-TV starts of {len(cubes)} crops ({cfgs.predictor.gap_iters} iterations each)")
    pool = make_pool(cubes, masks, cfgs.predictor)
    say(f"[2/5] predictor: {cfgs.predictor.steps} steps")
    pred = train_predictor(pool, cfgs.predictor, seed)
    say(f"[3/5] URSe: {cfgs.urse.steps} steps")
    urse = train_urse(cubes, predict_pool(pool, pred, cfgs.predictor), cfgs.urse, seed, urse_patch)
    priors = {}
    for i, prior in enumerate(PRIORS):
        say(f"[{4 + i}/5] {prior} prior: {cfgs.refiner.steps} steps")
        priors[prior] = train_prior(prior, cubes, cfgs, seed, urse if prior == "subspace" else None)
    return {"configs": cfgs.to_dict(), "predictor": pred, "urse": urse, "priors": priors}


# ---- the reproduction's stages (worker tasks: data rebuilt from (sizes, seed)) ----------------------

POOL_PARTS = 2


def _x0_path(sizes: Sizes, seed: int, part: int):
    from iclr25.core.runtime import cache_dir, config_hash

    key = config_hash({"sizes": asdict(sizes), "seed": seed, "code": CODE_VERSION, "part": part,
                       "parts": POOL_PARTS})
    return cache_dir() / "psr_sci" / f"pool-x0-{key}.pt"


def pool_part(item: tuple) -> str:
    """GAP-TV starts of the pool's crops part::POOL_PARTS, written to the cache (a worker task)."""
    import io

    from iclr25.core.runtime import atomic_write, pin_threads

    sizes, seed, part = item
    pin_threads()
    path = _x0_path(sizes, seed, part)
    if not path.exists():
        cubes, masks = training_scenes(sizes, seed)
        x0 = make_pool(cubes[part::POOL_PARTS], masks[part::POOL_PARTS], configs(sizes).predictor).x0
        buf = io.BytesIO()
        torch.save(x0.clone(), buf)
        with atomic_write(path) as f:
            f.write(buf.getvalue())
    return str(path)


def reproduction_pool(sizes: Sizes, seed: int) -> Pool:
    """The pool of (sizes, seed): scenes and masks rebuilt, measurements simulated, GAP-TV starts read
    from the cache (computed by `pool_part` first)."""
    from iclr25.psr_sci.predictor import simulate

    cubes, masks = training_scenes(sizes, seed)
    x0 = torch.empty_like(cubes)
    for part in range(POOL_PARTS):
        x0[part::POOL_PARTS] = torch.load(_x0_path(sizes, seed, part), weights_only=True)
    return Pool(cubes, masks, simulate(cubes, masks, configs(sizes).predictor.step), x0)


def stage(item: tuple) -> dict:
    """One training stage of the reproduction (a worker task): ("predictor" | "urse" | prior, sizes, seed,
    predictor state, URSe state)."""
    from iclr25.core.runtime import pin_threads

    pin_threads()
    what, sizes, seed, pred_state, urse_state = item
    cfgs = configs(sizes)
    if what == "predictor":
        return train_predictor(reproduction_pool(sizes, seed), cfgs.predictor, seed)
    cubes, _ = training_scenes(sizes, seed)
    if what == "urse":
        x_init = predict_pool(reproduction_pool(sizes, seed), pred_state, cfgs.predictor)
        return train_urse(cubes, x_init, cfgs.urse, seed, sizes.urse_patch)
    return train_prior(what, cubes, cfgs, seed, urse_state)
