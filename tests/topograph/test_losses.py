"""Topograph, Dice, clDice and PH losses: zero iff topology matches, gradients only in critical regions,
batching, multi-class one-vs-rest, and bad input."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.topograph import component_graph
from iclr25.topograph.losses import (
    DiceClDiceLoss,
    DiceLoss,
    DiceTopographLoss,
    TopographLoss,
    soft_cldice_loss,
)
from iclr25.topograph.ph import PHLoss, persistence_pairs


def line_with_gap():
    gt = torch.zeros(1, 9, 9)
    gt[0, 4, 1:8] = 1
    logits = (gt * 8 - 4).unsqueeze(1).clone()
    logits[0, 0, 4, 4] = -3.0                 # the prediction breaks the line here
    return logits, gt


def test_loss_is_zero_when_topology_matches():
    gt = torch.zeros(2, 12, 12)
    gt[:, 3:9, 3:9] = 1
    logits = (gt * 6 - 3).unsqueeze(1)
    logits[:, :, 3, 3:9] = -3.0               # a boundary row missed: Dice error, no topology error
    assert float(TopographLoss(alpha=1.0)(logits, gt)) == 0.0


def test_gap_gives_the_gap_probability_and_gradient_only_there():
    logits, gt = line_with_gap()
    x = logits.requires_grad_(True)
    loss = TopographLoss(alpha=1.0)(x, gt)
    p_gap = 1 - torch.sigmoid(torch.tensor(-3.0))  # probability of the predicted (wrong) class
    assert float(loss.detach()) == pytest.approx(float(p_gap), rel=1e-5)
    loss.backward()
    nz = torch.nonzero(x.grad[0, 0]).tolist()
    assert nz == [[4, 4]]
    assert float(x.grad[0, 0, 4, 4]) < 0        # raising the logit (filling the gap) lowers the loss


def test_gradients_flow_only_into_critical_regions():
    rng = np.random.default_rng(3)
    gt = torch.from_numpy((rng.random((2, 16, 16)) < 0.4).astype(np.int64))
    x = torch.randn(2, 1, 16, 16, requires_grad=True)
    TopographLoss(alpha=1.0)(x, gt).backward()
    for b in range(2):
        pred = (torch.sigmoid(x[b, 0]) > 0.5).numpy()
        crit = component_graph(pred, gt[b].numpy()).critical_mask()
        assert ((x.grad[b, 0].abs() > 0).numpy() <= crit).all()
        assert crit.any()


def test_batch_loss_is_the_mean_of_sample_losses():
    rng = np.random.default_rng(4)
    gt = torch.from_numpy((rng.random((3, 10, 10)) < 0.5).astype(np.int64))
    x = torch.randn(3, 1, 10, 10)
    loss = TopographLoss(alpha=1.0)
    whole = float(loss(x, gt))
    parts = [float(loss(x[i:i + 1], gt[i:i + 1])) for i in range(3)]
    assert whole == pytest.approx(np.mean(parts), rel=1e-5)


def test_multiclass_is_one_vs_rest_over_foreground_classes():
    gt = torch.zeros(1, 9, 9, dtype=torch.long)
    gt[0, 2, 1:8] = 1
    gt[0, 6, 1:8] = 2
    logits = torch.nn.functional.one_hot(gt, 3).permute(0, 3, 1, 2).float() * 6
    assert float(TopographLoss(alpha=1.0)(logits, gt)) == 0.0
    logits[0, :, 2, 4] = torch.tensor([6.0, 0.0, 0.0])   # class-1 line broken
    broken = float(TopographLoss(alpha=1.0)(logits, gt))
    assert 0 < broken < 1   # one region out of 2 classes -> normalised by K-1 = 2
    onehot = torch.nn.functional.one_hot(gt, 3).permute(0, 3, 1, 2)
    assert float(TopographLoss(alpha=1.0)(logits, onehot)) == pytest.approx(broken)


@pytest.mark.parametrize("agg", ["mean", "sum", "max", "min", "rms", "ce"])
def test_aggregations_are_positive_on_an_error_and_differentiable(agg):
    logits, gt = line_with_gap()
    x = logits.requires_grad_(True)
    loss = TopographLoss(alpha=1.0, aggregation=agg)(x, gt)
    loss.backward()
    assert float(loss.detach()) > 0 and torch.isfinite(x.grad).all()


def test_alpha_zero_is_pure_dice():
    logits, gt = line_with_gap()
    assert float(DiceTopographLoss(alpha=0.0)(logits, gt)) == pytest.approx(float(DiceLoss()(logits, gt)))


def test_probability_input_and_threshold_noise():
    logits, gt = line_with_gap()
    probs = torch.sigmoid(logits)
    a = TopographLoss(alpha=1.0, activation="none")(probs, gt)
    b = TopographLoss(alpha=1.0)(logits, gt)
    assert float(a) == pytest.approx(float(b))
    assert float(TopographLoss(alpha=1.0, thres_noise=0.1, seed=1)(logits, gt)) >= 0


def test_dice_and_cldice_are_near_zero_for_confident_correct_predictions():
    gt = torch.zeros(1, 16, 16)
    gt[0, 4:12, 7:9] = 1
    logits = (gt * 20 - 10).unsqueeze(1)
    assert float(DiceLoss()(logits, gt)) < 1e-3
    assert float(DiceClDiceLoss()(logits, gt)) < 1e-2
    probs = torch.cat([1 - torch.sigmoid(logits), torch.sigmoid(logits)], 1)
    assert float(soft_cldice_loss(probs, torch.cat([1 - gt[:, None], gt[:, None]], 1))) < 1e-2


def test_ph_backends_give_the_same_diagram_and_loss():
    rng = np.random.default_rng(0)
    from scipy import ndimage
    p = ndimage.gaussian_filter(rng.random((20, 17)), 2)
    p = (p - p.min()) / (p.max() - p.min())

    def values(pairs):
        f = p.ravel()
        return sorted((d, round(f[b], 9), round(f[e], 9) if e >= 0 else None)
                      for d, b, e in pairs if e < 0 or f[b] != f[e])

    assert values(persistence_pairs(p, "gudhi")) == values(persistence_pairs(p, "cripser"))
    gt = torch.from_numpy((rng.random((2, 20, 17)) < 0.5).astype(np.int64))
    x = torch.randn(2, 1, 20, 17)
    assert float(PHLoss(backend="gudhi")(x, gt)) == pytest.approx(float(PHLoss(backend="cripser")(x, gt)))


def test_ph_loss_is_zero_for_a_perfect_binary_prediction_and_grads_are_sparse():
    gt = torch.zeros(1, 10, 10)
    gt[0, 2:8, 2:8] = 1
    gt[0, 4:6, 4:6] = 0                       # a ring: b0 = b1 = 1
    x = (gt * 1e3 - 5e2).unsqueeze(1)
    assert float(PHLoss(alpha=1.0)(x, gt)) == pytest.approx(0.0, abs=1e-6)
    x = torch.randn(1, 1, 10, 10, requires_grad=True)
    PHLoss(alpha=1.0)(x, gt).backward()
    assert 0 < int((x.grad != 0).sum()) < 100  # only birth/death pixels


@pytest.mark.parametrize("make,msg", [
    (lambda: (torch.zeros(2, 1, 8, 8), torch.zeros(2, 8, 9)), "shape mismatch"),
    (lambda: (torch.zeros(2, 1, 8, 8), torch.full((2, 8, 8), 0.5)), "fractional"),
    (lambda: (torch.zeros(2, 1, 8, 8), torch.full((2, 8, 8), 2)), "target values"),
    (lambda: (torch.zeros(0, 1, 8, 8), torch.zeros(0, 8, 8)), "empty"),
    (lambda: (torch.zeros(8, 8), torch.zeros(8, 8)), "(B, C, H, W)"),
])
def test_bad_input_is_a_one_line_user_error(make, msg):
    x, y = make()
    for loss in (TopographLoss(), PHLoss(), DiceLoss()):
        with pytest.raises(UserError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            loss(x, y)


def test_probabilities_outside_unit_interval_are_rejected():
    with pytest.raises(UserError, match=r"\[0, 1\]"):
        TopographLoss(activation="none")(torch.full((1, 1, 4, 4), 1.5), torch.zeros(1, 4, 4))


@pytest.mark.parametrize("kwargs", [{"aggregation": "median"}, {"alpha": -1.0}, {"thres_noise": 0.7}])
def test_bad_config(kwargs):
    with pytest.raises(UserError):
        TopographLoss(**kwargs)


def test_descending_the_loss_on_free_logits_reaches_zero_topological_error():
    from iclr25.topograph import diu
    from iclr25.topograph.bench import make_batch
    x, y = make_batch(32, 4, seed=3)
    assert sum(diu((x[i, 0] > 0).numpy(), y[i].numpy()) for i in range(4)) > 0
    x = x.clone().requires_grad_(True)
    opt = torch.optim.SGD([x], lr=50.0)
    loss_fn = TopographLoss(alpha=1.0)
    for _ in range(20):
        loss = loss_fn(x, y)
        if loss_fn.last_n_regions == 0:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss_fn.last_n_regions == 0
    assert all(diu((x[i, 0] > 0).detach().numpy(), y[i].numpy()) == 0 for i in range(4))
