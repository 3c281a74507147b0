"""The host objectives on cases with known answers: SHOT's centroid pseudo-labels, information
maximisation, NRC's reciprocal affinities, AaD's schedule, MAPU's masking; and every host adapts."""

import math

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.tucker_sfda import (
    AdaptConfig,
    AdaTimeCNN,
    NRCConfig,
    ShotConfig,
    SourceConfig,
    adapt,
    train_source,
    tucker_reparameterize,
)
from iclr25.tucker_sfda.hosts import (
    AaDConfig,
    FeatureBank,
    aad_alpha,
    aad_loss,
    entropy,
    information_maximisation,
    mask_segments,
    nrc_loss,
    shot_pseudo_labels,
)


def test_shot_centroid_step_labels_two_separated_blobs():
    g = torch.Generator().manual_seed(0)
    a = torch.tensor([5.0, 0.0, 0.0]) + 0.3 * torch.randn(50, 3, generator=g)
    b = torch.tensor([0.0, 5.0, 0.0]) + 0.3 * torch.randn(50, 3, generator=g)
    feats = torch.cat([a, b]).clamp_min(0)  # post-ReLU features are non-negative
    truth = torch.cat([torch.zeros(50), torch.ones(50)]).long()
    # a poor classifier: right with probability 0.65 only, 30% of its argmaxes wrong
    p_right = torch.full((100,), 0.65)
    flip = torch.rand(100, generator=g) < 0.3
    p_right[flip] = 0.35
    probs = torch.stack([torch.where(truth == 0, p_right, 1 - p_right),
                         torch.where(truth == 1, p_right, 1 - p_right)], 1)
    assert (probs.argmax(1) != truth).float().mean() > 0.2
    labels = shot_pseudo_labels(feats, probs)
    assert torch.equal(labels, truth)


def test_shot_pseudo_labels_skip_empty_classes():
    feats = torch.rand(20, 4)
    probs = torch.zeros(20, 3)
    probs[:, 0], probs[:, 1] = 0.6, 0.4  # class 2 never predicted
    assert set(shot_pseudo_labels(feats, probs).tolist()) <= {0, 1}


def test_information_maximisation_known_values():
    C = 4
    uniform = torch.full((6, C), 1 / C)
    onehot_diverse = torch.eye(C).repeat(2, 1)
    onehot_collapsed = torch.zeros(8, C)
    onehot_collapsed[:, 0] = 1
    assert float(entropy(uniform)[0]) == pytest.approx(math.log(C), abs=1e-3)
    # confident and diverse: the minimum, −w_im log C
    assert float(information_maximisation(onehot_diverse, 1.0, 1.0)) == pytest.approx(-math.log(C), abs=1e-3)
    assert float(information_maximisation(onehot_collapsed, 1.0, 1.0)) == pytest.approx(0.0, abs=1e-3)
    assert float(information_maximisation(uniform, 1.0, 1.0)) == pytest.approx(0.0, abs=1e-3)


def _bank() -> FeatureBank:
    # two tight pairs far apart: (0, 1) and (2, 3), and a loner 4 closest to 0
    f = torch.tensor([[1.0, 0.0], [0.99, 0.1], [0.0, 1.0], [0.1, 0.99], [0.8, -0.6]])
    s = torch.tensor([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8], [0.5, 0.5]])
    return FeatureBank(f, s)


def test_bank_neighbours_exclude_the_query_itself():
    bank = _bank()
    near = bank.neighbours(bank.features[torch.tensor([0, 2])], 1)
    assert near.tolist() == [[1], [3]]


def test_nrc_reciprocal_neighbours_weigh_one_others_r():
    bank = _bank()
    p = torch.tensor([[1.0, 0.0]])
    cfg = NRCConfig(K=1, M=1, r=0.1)
    # 4's nearest is 0, but 0's nearest is 1: not reciprocal → weight r; its expanded neighbour (1) → r
    loss4 = nrc_loss(p, torch.tensor([4]), bank, cfg)
    expected = -(0.1 * 0.9) - (0.1 * 0.8) + (1.0 * math.log(1.0 + 1e-5))
    assert float(loss4) == pytest.approx(expected, abs=1e-5)
    # 0 and 1 are mutual nearest neighbours → weight 1; 1's nearest (excluding itself) is 0 → expanded r
    loss0 = nrc_loss(p, torch.tensor([0]), bank, cfg)
    assert float(loss0) == pytest.approx(-(1.0 * 0.8) - (0.1 * 0.9) + math.log(1.0 + 1e-5), abs=1e-5)


def test_aad_schedule_and_dispersion():
    cfg = AaDConfig(alpha=1.0, beta=10.0)
    assert aad_alpha(0, 100, cfg) == 1.0
    assert aad_alpha(100, 100, cfg) == pytest.approx(11.0 ** -10)
    bank = _bank()
    p = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    # attraction: ⟨p_0, s_1⟩ = 0.8, ⟨p_2, s_3⟩ = 0.8; dispersion 0 (orthogonal predictions)
    assert float(aad_loss(p, torch.tensor([0, 2]), bank, 1.0, AaDConfig(K=1))) == pytest.approx(-0.8)
    same = torch.tensor([[1.0, 0.0], [1.0, 0.0]])
    assert float(aad_loss(same, torch.tensor([0, 2]), bank, 0.5, AaDConfig(K=1))) == pytest.approx(
        -(0.8 + 0.2) / 2 + 0.5 * 1.0)  # ⟨p, s_3⟩ = 0.2 now; each row has one other row with ⟨·,·⟩ = 1


def test_masking_zeroes_one_of_eight_segments_per_channel():
    x = torch.ones(3, 4, 100)  # 100 is not a multiple of 8: near-equal segments
    out = mask_segments(x, torch.Generator().manual_seed(0))
    zeros = (out == 0).sum(-1)  # (3, 4)
    assert torch.equal(zeros[0], zeros[1]) and torch.equal(zeros[1], zeros[2])  # same mask for the batch
    assert set(zeros[0].tolist()) <= {12, 13}
    assert torch.equal(x, torch.ones(3, 4, 100))  # input untouched


@pytest.fixture(scope="module")
def tiny_source():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3, 32)).astype(np.float32)
    y = np.arange(40) % 2
    X[y == 1] += 1.0
    return X, y


@pytest.mark.parametrize("method", ["shot", "shot_im", "nrc", "aad", "mapu"])
def test_every_host_adapts_the_cores(tiny_source, method):
    X, y = tiny_source
    model, imputer = train_source((X, y), SourceConfig(epochs=1, imputer=method == "mapu"), mid=4, final=8)
    dec = tucker_reparameterize(model, 2)
    res = adapt(dec, X, method, "core", AdaptConfig(epochs=2, batch_size=16, lr=1e-2), imputer=imputer)
    assert len(res.losses) == 2 and all(np.isfinite(res.losses))
    assert not torch.equal(res.model.conv_block2[0].core.weight, dec.conv_block2[0].core.weight)


def test_adapt_bad_input(tiny_source):
    X, _ = tiny_source
    dec = tucker_reparameterize(AdaTimeCNN(3, 32, 2, mid=4, final=8), 2)
    with pytest.raises(UserError, match="unknown method 'tent'"):
        adapt(dec, X, "tent")
    with pytest.raises(UserError, match="imputer"):
        adapt(dec, X, "mapu")
    with pytest.raises(UserError, match="channels"):
        adapt(dec, X[:, :2], "shot")
    with pytest.raises(UserError, match="unknown tune mode"):
        adapt(dec, X, "shot", "cores")
    with pytest.raises(UserError, match="NaN"):
        adapt(dec, np.full((4, 3, 32), np.nan), "shot")
    with pytest.raises(UserError, match="3-D"):
        adapt(dec, X[:, 0], "shot")
    with pytest.raises(UserError, match="takes a ShotConfig"):
        adapt(dec, X, "shot", host=NRCConfig())
    assert adapt(dec, X, "shot", host=ShotConfig(cls_wt=0.0), cfg=AdaptConfig(epochs=1)).trainable > 0
