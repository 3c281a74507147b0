"""The estimators: GAE, discounted sums and the Advantage Alignment term on hand-made sequences."""

import pytest
import torch

from iclr25.advantage_alignment import (
    advantage_alignment_term,
    discounted_returns,
    gae,
    past_advantage_sum,
)
from iclr25.core.errors import UserError


def gae_loop(r, v, gamma, lam):
    """Reference: the textbook backward recursion."""
    adv, running, nxt = torch.zeros_like(r), torch.zeros_like(r[..., 0]), torch.zeros_like(r[..., 0])
    for t in reversed(range(r.shape[-1])):
        delta = r[..., t] + gamma * nxt - v[..., t]
        running = delta + gamma * lam * running
        adv[..., t] = running
        nxt = v[..., t]
    return adv


def test_aa_term_on_a_hand_computed_sequence():
    # A1 = [1, 2, 0], A2 = [0, 1, 3], gamma = 0.5, beta = 2
    # past sums P_t = sum_{k<t} gamma^(t-k) A1_k = [0, 0.5, 0.5 * (0.5 + 2)] = [0, 0.5, 1.25]
    # A*_t = A1_t + beta gamma P_t A2_t = [1, 2 + 2*0.5*0.5*1, 0 + 2*0.5*1.25*3] = [1, 2.5, 3.75]
    a1, a2 = torch.tensor([[1.0, 2.0, 0.0]]), torch.tensor([[0.0, 1.0, 3.0]])
    assert torch.allclose(past_advantage_sum(a1, 0.5), torch.tensor([[0.0, 0.5, 1.25]]))
    shaped = advantage_alignment_term(a1, a2, gamma=0.5, beta=2.0)
    assert torch.allclose(shaped, torch.tensor([[1.0, 2.5, 3.75]]))


def test_beta_zero_is_the_plain_advantage():
    a1, a2 = torch.randn(4, 7), torch.randn(4, 7)
    assert torch.equal(advantage_alignment_term(a1, a2, 0.96, 0.0), a1)


@pytest.mark.parametrize(("past_sign", "opp_sign", "raises"), [(1, 1, True), (1, -1, False), (-1, 1, False),
                                                                (-1, -1, True)])
def test_sign_table(past_sign, opp_sign, raises):
    """++ reciprocate and -- punish raise the probability of a_t; mixed signs lower it."""
    a1 = torch.tensor([[past_sign * 1.0, 0.0]])
    a2 = torch.tensor([[0.0, opp_sign * 1.0]])
    shaped = advantage_alignment_term(a1, a2, 0.9, 1.0)[0, 1]
    assert (shaped > 0) == raises and shaped != 0


def test_n_agents_sum_the_others_advantages():
    a1, others = torch.randn(3, 5), torch.randn(3, 2, 5)
    assert torch.allclose(advantage_alignment_term(a1, others, 0.9, 0.7),
                          advantage_alignment_term(a1, others.sum(1), 0.9, 0.7))


def test_past_only_depends_on_strictly_earlier_steps():
    a1 = torch.randn(2, 6)
    changed = a1.clone()
    changed[:, 3:] += 5.0  # changing A1 at t >= 3 must not move P_0..P_3
    assert torch.allclose(past_advantage_sum(a1, 0.9)[:, :4], past_advantage_sum(changed, 0.9)[:, :4])


def test_mean_past_mode_is_the_running_mean_of_earlier_advantages():
    a1 = torch.tensor([[2.0, 4.0, 6.0, 8.0]])
    assert torch.allclose(past_advantage_sum(a1, 0.9, "mean"), torch.tensor([[0.0, 2.0, 3.0, 4.0]]))


@pytest.mark.parametrize("lam", [0.0, 0.5, 0.95, 1.0])
def test_gae_matches_the_backward_recursion(lam):
    g = torch.Generator().manual_seed(0)
    r, v = torch.randn(5, 11, generator=g), torch.randn(5, 11, generator=g)
    assert torch.allclose(gae(r, v, 0.96, lam), gae_loop(r, v, 0.96, lam), atol=1e-5)


def test_gae_limits():
    g = torch.Generator().manual_seed(1)
    r, v = torch.randn(3, 8, generator=g), torch.randn(3, 8, generator=g)
    # lambda = 1: Monte-Carlo return minus value; lambda = 0: one-step TD error
    assert torch.allclose(gae(r, v, 0.9, 1.0), discounted_returns(r, 0.9) - v, atol=1e-5)
    td = r + 0.9 * torch.cat([v[:, 1:], torch.zeros(3, 1)], 1) - v
    assert torch.allclose(gae(r, v, 0.9, 0.0), td, atol=1e-6)


def test_discounted_returns_known_answer():
    got = discounted_returns(torch.tensor([1.0, 0.0, 2.0]), 0.5)
    assert torch.allclose(got, torch.tensor([1.5, 1.0, 2.0]))


def test_bad_input():
    with pytest.raises(UserError, match="differ in shape"):
        gae(torch.zeros(2, 3), torch.zeros(2, 4), 0.9, 0.9)
    with pytest.raises(UserError, match="do not match"):
        advantage_alignment_term(torch.zeros(2, 3), torch.zeros(2, 4), 0.9, 1.0)
    with pytest.raises(UserError, match="unknown past mode 'sum'"):
        past_advantage_sum(torch.zeros(2, 3), 0.9, "sum")
