"""LOLA baselines: exact IPD values against Monte Carlo, the LOLA step, DiCE's gradient."""

import pytest
import torch

from iclr25.advantage_alignment import IPD, TabularIPDPolicy, ipd_exact_values, rollout
from iclr25.advantage_alignment.critic import TabularTimeCritic
from iclr25.advantage_alignment.learner import Learner, LearnerConfig
from iclr25.advantage_alignment.lola import (
    LolaConfig,
    _Tab,
    dice_objective,
    lola_exact_step,
    train_lola_exact,
)


def test_exact_values_of_pure_strategies():
    c, d = torch.full((5,), 30.0), torch.full((5,), -30.0)
    disc = sum(0.9**t for t in range(4))
    assert torch.allclose(ipd_exact_values(c, c, 4, 0.9), torch.tensor([-disc, -disc]))
    assert torch.allclose(ipd_exact_values(c, d, 4, 0.9), torch.tensor([-3 * disc, 0.0]), atol=1e-5)


def test_exact_values_match_monte_carlo():
    g = torch.Generator().manual_seed(0)
    th1, th2 = torch.randn(5, generator=g), torch.randn(5, generator=g)
    agents = [Learner(TabularIPDPolicy(init=th), TabularTimeCritic(6), LearnerConfig()) for th in (th1, th2)]
    b = rollout(IPD(T=6), tuple(agents), 40000, g)
    disc = 0.96 ** torch.arange(6.0)
    mc = torch.stack([(b.rewards[0] * disc).sum(1).mean(), (b.rewards[1] * disc).sum(1).mean()])
    assert torch.allclose(ipd_exact_values(th1, th2, 6, 0.96), mc, atol=0.05)


def test_lola_step_with_zero_eta_is_naive_gradient_ascent():
    th1, th2 = torch.randn(5), torch.randn(5)
    n1, n2 = lola_exact_step(th1, th2, LolaConfig(lr=0.1, eta=0.0))
    t1 = th1.clone().requires_grad_(True)
    g = torch.autograd.grad(ipd_exact_values(t1, th2, 16, 0.96)[0], t1)[0]
    assert torch.allclose(n1, th1 + 0.1 * g, atol=1e-6)
    assert not torch.allclose(lola_exact_step(th1, th2, LolaConfig(lr=0.1, eta=1.0))[0], n1)


def test_dice_first_order_gradient_is_the_score_function_estimator():
    g = torch.Generator().manual_seed(1)
    th = torch.randn(5, generator=g, requires_grad=True)
    pol = TabularIPDPolicy(init=th.detach())
    b = rollout(IPD(T=5), (Learner(pol, TabularTimeCritic(5), LearnerConfig()),
                           Learner(pol, TabularTimeCritic(5), LearnerConfig())), 32, g)
    lp = _Tab(th).logp(b.obs[0], b.actions[0])  # (B, T) log pi(a_t | s_t), a function of th
    (grad,) = torch.autograd.grad(dice_objective(lp, torch.zeros_like(lp), b.rewards[0], 0.9), th)
    disc = 0.9 ** torch.arange(5.0)
    sf = (disc * b.rewards[0] * torch.cumsum(_Tab(th).logp(b.obs[0], b.actions[0]), 1)).sum(1).mean()
    (ref,) = torch.autograd.grad(sf, th)
    assert torch.allclose(grad, ref, atol=1e-5)


@pytest.mark.slow
def test_exact_lola_finds_reciprocity():
    a, _, hist = train_lola_exact(iters=150, seed=0)
    p = a.policy.p_cooperate()
    assert hist["reward_0"][-1] > -1.3  # mostly mutual cooperation
    assert p[2] < 0.2  # retaliates after being exploited (state CD)
