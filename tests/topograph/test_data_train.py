"""Synthetic data, the U-Net and the training harness on tiny sizes."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.topograph.data import FAMILIES, DataConfig, make_dataset
from iclr25.topograph.metrics import betti_numbers
from iclr25.topograph.train import LOSSES, TrainConfig, make_loss, run_family
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


@pytest.mark.parametrize("name", LOSSES)
def test_every_arm_gives_a_finite_differentiable_loss(name):
    x = torch.randn(2, 1, 16, 16, requires_grad=True)
    y = (torch.rand(2, 16, 16) > 0.6).long()
    loss = make_loss(name, TrainConfig())(x, y)
    loss.backward()
    assert torch.isfinite(loss.detach()) and torch.isfinite(x.grad).all()


def test_run_family_shares_the_warm_start(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    cfg = TrainConfig(family="blobs", size=16, n_train=8, n_test=3, warm_iters=2, finetune_iters=1,
                      channels=(4, 8))
    metrics, examples = run_family(cfg, n_examples=1)
    assert set(metrics) == {"warm", *LOSSES}
    assert all(np.isfinite(v) for m in metrics.values() for v in m.values())
    assert examples["dice"].shape == (1, 16, 16)
    assert len(list((tmp_path / "topograph").glob("warm-*.pt"))) == 1
