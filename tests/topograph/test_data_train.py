"""Synthetic data, the U-Net and the training harness on tiny sizes."""

import numpy as np
import pytest
import torch
from PIL import Image

from iclr25.core.errors import UserError
from iclr25.topograph import train
from iclr25.topograph.data import FAMILIES, DataConfig, load_pairs, make_dataset
from iclr25.topograph.metrics import betti_numbers
from iclr25.topograph.train import (
    JITTER_ARM,
    LOSSES,
    TrainConfig,
    folder_data,
    make_loss,
    run_family,
    synthetic_data,
    warm_start,
)
from iclr25.topograph.unet import UNet


@pytest.mark.parametrize("family", FAMILIES)
def test_families_are_reproducible_binary_and_topology_rich(family):
    x1, y1 = make_dataset(family, 4, seed=5, cfg=DataConfig(size=32))
    x2, y2 = make_dataset(family, 4, seed=5, cfg=DataConfig(size=32))
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2)
    assert x1.shape == (4, 1, 32, 32) and x1.dtype == np.float32
    assert set(np.unique(y1)) <= {0, 1} and 0 < y1.mean() < 1
    assert np.isfinite(x1).all()
    assert sum(sum(betti_numbers(m)) for m in y1) > 4   # components and holes to get right


def test_membranes_have_holes():
    _, y = make_dataset("membranes", 3, seed=0, cfg=DataConfig(size=48))
    assert all(betti_numbers(m)[1] >= 1 for m in y)


def test_unknown_family():
    with pytest.raises(UserError, match="unknown data family 'roads'"):
        make_dataset("roads", 2, seed=0)


def test_unet_shapes():
    assert UNet(out_ch=3, channels=(4, 8))(torch.zeros(2, 1, 16, 20)).shape == (2, 3, 16, 20)


@pytest.mark.parametrize("name", (*LOSSES, JITTER_ARM))
def test_every_arm_gives_a_finite_differentiable_loss(name):
    x = torch.randn(2, 1, 16, 16, requires_grad=True)
    y = (torch.rand(2, 16, 16) > 0.6).long()
    loss = make_loss(name, TrainConfig())(x, y)
    loss.backward()
    assert torch.isfinite(loss.detach()) and torch.isfinite(x.grad).all()


def test_run_family_shares_the_warm_start(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    cfg = TrainConfig(family="blobs", size=16, n_train=8, n_val=3, n_test=3, warm_iters=2, finetune_iters=1,
                      channels=(4, 8))
    metrics, examples, per = run_family(cfg, n_examples=1)
    assert set(metrics) == {"warm", *LOSSES} == set(per)
    assert all(len(v) == 3 for v in per["dice+topograph"].values())  # one value per test image
    assert np.isclose(per["dice"]["diu"].mean(), metrics["dice"]["diu"])
    assert all(np.isfinite(v) for m in metrics.values() for v in m.values())
    assert metrics["warm"]["warm_steps"] == 2
    assert {"diu", "diu_none", "dice"} <= set(metrics["dice+topograph"])
    assert examples["dice"].shape == (1, 16, 16)
    assert len(list((tmp_path / "topograph").glob("warm-*.pt"))) == 1


def _tiny(**kw) -> TrainConfig:
    base = dict(family="curvilinear", size=16, n_train=8, n_val=3, n_test=2, channels=(4, 8))
    return TrainConfig(**(base | kw))


def test_warm_start_stops_at_a_validation_plateau(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    # no gain can exceed min_delta = 1: the first evaluation sets the best, the next is the plateau
    cfg = _tiny(warm_iters=40, min_warm_iters=4, eval_every=2, patience=1, min_delta=1.0)
    _, info = warm_start(cfg, synthetic_data(cfg))
    assert info["warm_steps"] == 4 and info["warm_best_step"] in (2, 4)
    # never before min_warm_iters, even on a plateau
    cfg = _tiny(warm_iters=40, min_warm_iters=10, eval_every=2, patience=1, min_delta=1.0)
    assert warm_start(cfg, synthetic_data(cfg))[1]["warm_steps"] == 10


def test_warm_start_cache_is_keyed_by_data_and_code_version(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    cfg = _tiny(warm_iters=2, eval_every=2)
    assert synthetic_data(cfg).key != synthetic_data(_tiny(warm_iters=2, eval_every=2, size=20)).key
    first = warm_start(cfg, synthetic_data(cfg))
    again = warm_start(cfg, synthetic_data(cfg))                   # served from the cache
    assert all(torch.equal(first[0][k], again[0][k]) for k in first[0])
    assert len(list((tmp_path / "topograph").glob("warm-*.pt"))) == 1
    monkeypatch.setattr(train, "WARM_CODE_VERSION", "changed")
    warm_start(cfg, synthetic_data(cfg))
    assert len(list((tmp_path / "topograph").glob("warm-*.pt"))) == 2


def _write_pairs(folder, n=6, shape=(18, 21)):
    rng = np.random.default_rng(0)
    (folder / "img").mkdir()
    (folder / "gt").mkdir()
    for i in range(n):
        m = np.zeros(shape, np.uint8)
        m[rng.integers(0, shape[0]), :] = 255
        Image.fromarray(m).save(folder / "gt" / f"{i}.png")
        noisy = (m // 2 + rng.integers(0, 60, shape)).astype(np.uint8)
        Image.fromarray(noisy).save(folder / "img" / f"{i}.png")
    return folder / "img", folder / "gt"


def test_load_pairs_matches_names_crops_to_multiples_of_4_and_splits(tmp_path):
    img, gt = _write_pairs(tmp_path)
    Image.fromarray(np.zeros((18, 21), np.uint8)).save(img / "no_mask.png")   # ignored: no mask
    x, y = load_pairs(img, gt)
    assert x.shape == (6, 1, 16, 20) and y.shape == (6, 16, 20) and x.dtype == np.float32
    assert set(np.unique(y)) <= {0, 1}
    d = folder_data(x, y, test_fraction=0.2, seed=0)
    assert len(d.train[0]) + len(d.val[0]) + len(d.test[0]) == 6 and len(d.test[0]) >= 1
    assert d.key == folder_data(x, y, 0.2, 0).key != folder_data(x, y, 0.2, 1).key


@pytest.mark.parametrize("break_it, msg", [
    (lambda img, gt: [p.unlink() for p in gt.iterdir()], "has a mask of the same name"),
    (lambda img, gt: Image.fromarray(np.zeros((18, 22), np.uint8)).save(gt / "0.png"), "but its mask is"),
    (lambda img, gt: Image.fromarray(np.full((18, 21), 7, np.uint8)).save(gt / "0.png"), "must be binary"),
    (lambda img, gt: [Image.fromarray(np.zeros((20, 20), np.uint8)).save(d / "0.png") for d in (img, gt)],
     "one size"),
    (lambda img, gt: [Image.fromarray(np.zeros((600, 20), np.uint8)).save(d / "0.png") for d in (img, gt)],
     "up to 512x512"),
])
def test_load_pairs_bad_folders(tmp_path, break_it, msg):
    img, gt = _write_pairs(tmp_path)
    break_it(img, gt)
    with pytest.raises(UserError, match=msg):
        load_pairs(img, gt)
    with pytest.raises(UserError, match="too few"):
        folder_data(np.zeros((2, 1, 16, 16), np.float32), np.zeros((2, 16, 16), np.uint8), 0.2, 0)
