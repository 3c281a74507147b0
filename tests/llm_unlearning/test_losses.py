"""The unlearning losses: known values at theta = ref, the AP gradient weight, ME against numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from iclr25.llm_unlearning.losses import (
    IGNORE,
    ap_loss,
    dpo_loss,
    ga_loss,
    gd_loss,
    idk_loss,
    kl_loss,
    me_loss,
    npo_loss,
    sequence_nll,
)


def _batch(seed: int = 0, B: int = 3, T: int = 7, V: int = 11):  # noqa: N803
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(B, T, V, generator=g) * 2
    labels = torch.randint(0, V, (B, T), generator=g)
    labels[:, :2] = IGNORE  # a masked question
    labels[0, -1] = IGNORE  # padding
    return logits, labels


def test_sequence_nll_sums_labelled_tokens():
    logits, labels = _batch()
    logp = torch.log_softmax(logits, -1)
    want = [-sum(float(logp[b, t - 1, labels[b, t]])
                 for t in range(1, labels.shape[1]) if labels[b, t] != IGNORE)
            for b in range(labels.shape[0])]
    assert np.allclose(sequence_nll(logits, labels).numpy(), want, atol=1e-5)


def test_ga_is_minus_gd_and_idk_is_gd():
    logits, labels = _batch()
    assert torch.allclose(ga_loss(logits, labels), -gd_loss(logits, labels))
    assert torch.allclose(idk_loss(logits, labels), gd_loss(logits, labels))


@pytest.mark.parametrize("beta", [0.1, 0.5, 2.0])
def test_npo_and_dpo_equal_2_over_beta_log2_at_reference(beta):
    logits, labels = _batch(1)
    idk_logits, idk_labels = _batch(2)
    want = 2 / beta * math.log(2)
    assert float(npo_loss(logits, labels, logits.clone(), beta)) == pytest.approx(want, rel=1e-6)
    got = dpo_loss(idk_logits, idk_labels, logits, labels, idk_logits.clone(), logits.clone(), beta)
    assert float(got) == pytest.approx(want, rel=1e-6)


def test_npo_decreases_as_the_forget_answer_gets_less_likely():
    logits, labels = _batch(3)
    ref = logits.clone()
    worse = logits.clone()
    worse[:, :-1] -= 5 * torch.nn.functional.one_hot(labels[:, 1:].clamp_min(0), logits.shape[-1])
    assert float(npo_loss(worse, labels, ref)) < float(npo_loss(logits, labels, ref))


def test_ap_gradient_weight_is_sigmoid_of_beta_nll_gap():
    """d L_AP / d logits = (1/B) sum_b sigma(beta (NLL(y_b) - NLL(y_idk_b))) d NLL(y_b) / d logits when only
    the answer's logits move: Eq. 5's adaptive weight, read off ap_loss's own autograd gradient."""
    beta = 0.3
    logits, labels = _batch(4)
    idk_logits, idk_labels = _batch(5)
    logits.requires_grad_(True)
    (got,) = torch.autograd.grad(ap_loss(logits, labels, idk_logits, idk_labels, beta), logits)
    nll_y, nll_idk = sequence_nll(logits, labels), sequence_nll(idk_logits, idk_labels)
    w = torch.sigmoid(beta * (nll_y - nll_idk)).detach()
    want = sum(w[b] / len(w) * torch.autograd.grad(nll_y[b], logits, retain_graph=True)[0]
               for b in range(len(w)))
    assert torch.allclose(got, want, atol=1e-6)
    assert float(w.min()) > 0 and float(w.max()) < 1


def test_me_matches_numpy_is_nonnegative_and_shift_invariant():
    logits, labels = _batch(6, V=13)
    lg, lb = logits[:, :-1].numpy().astype(np.float64), labels[:, 1:].numpy()
    p = np.exp(lg - lg.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    V = p.shape[-1]  # noqa: N806
    kl = (1 / V * (np.log(1 / V) - np.log(p))).sum(-1)  # KL(U || p)
    want = kl[lb != IGNORE].mean()
    assert float(me_loss(logits, labels)) == pytest.approx(want, rel=1e-5)
    assert float(me_loss(logits, labels)) >= 0
    shifted = logits + torch.randn(logits.shape[:2])[..., None] * 10
    assert float(me_loss(shifted, labels)) == pytest.approx(float(me_loss(logits, labels)), rel=1e-5)
    assert float(me_loss(torch.zeros_like(logits), labels)) == pytest.approx(0.0, abs=1e-6)


def test_kl_is_zero_at_reference_and_positive_elsewhere():
    logits, labels = _batch(7)
    mask = labels != IGNORE
    assert float(kl_loss(logits, logits.clone(), mask)) == pytest.approx(0.0, abs=1e-6)
    assert float(kl_loss(logits, logits + torch.randn_like(logits), mask)) > 0
    # direction: KL(p_ref || p_theta), checked on one position against the definition
    a, b = torch.randn(1, 1, 5), torch.randn(1, 1, 5)
    pa, pb = torch.softmax(a, -1), torch.softmax(b, -1)
    want = float((pb * (pb.log() - pa.log())).sum())
    assert float(kl_loss(a, b, torch.ones(1, 1, dtype=torch.bool))) == pytest.approx(want, rel=1e-5)


def test_nll_forms_equal_the_logits_forms():
    """npo/dpo/ap_of_nll on per-sequence NLLs are the same formulas as the (logits, labels) losses."""
    from iclr25.llm_unlearning.losses import ap_of_nll, dpo_of_nll, npo_of_nll
    (lg, lb), (ref, _), (ig, ib), (rig, _) = _batch(8), _batch(9), _batch(10), _batch(11)
    nll, ref_nll, idk, ref_idk = (sequence_nll(x, y) for x, y in ((lg, lb), (ref, lb), (ig, ib), (rig, ib)))
    assert float(npo_loss(lg, lb, ref)) == pytest.approx(float(npo_of_nll(nll, ref_nll)))
    want = float(dpo_of_nll(idk, nll, ref_idk, ref_nll))
    assert float(dpo_loss(ig, ib, lg, lb, rig, ref)) == pytest.approx(want)
    assert float(ap_loss(lg, lb, ig, ib, 0.2)) == pytest.approx(float(ap_of_nll(nll, idk, 0.2)))
