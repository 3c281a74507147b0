"""Losses and learner updates: AdAlign with beta = 0 is the plain policy gradient; PPO clipping."""

import pytest
import torch

from iclr25.advantage_alignment import (
    IPD,
    FixedAgent,
    Learner,
    LearnerConfig,
    TabularIPDPolicy,
    TabularTimeCritic,
    adalign_loss,
    adap_loss,
    rollout,
)
from iclr25.core.errors import UserError


def _learner(algo: str, beta: float, warmup: int = 0) -> Learner:
    torch.manual_seed(0)
    cfg = LearnerConfig(algo=algo, beta=beta, critic_warmup=warmup)
    return Learner(TabularIPDPolicy(init=torch.linspace(-1, 1, 5)), TabularTimeCritic(16), cfg)


def _batch():
    env = IPD()
    return rollout(env, (FixedAgent(env, "random"), FixedAgent(env, "tit_for_tat")), 64,
                   torch.Generator().manual_seed(3))


def test_adalign_with_beta_zero_equals_plain_policy_gradient():
    b = _batch()
    aa, naive = _learner("adalign", 0.0), _learner("naive", 5.0)  # naive ignores beta
    aa.update(b)
    naive.update(b)
    assert torch.equal(aa.policy.theta, naive.policy.theta)
    shaped = _learner("adalign", 1.0)
    shaped.update(b)
    assert not torch.equal(shaped.policy.theta, naive.policy.theta)  # the AA term does change the step


def test_adalign_loss_gradient_is_reinforce():
    logits = torch.randn(2, 3, requires_grad=True)
    adv = torch.randn(2, 3)
    adalign_loss(logits, adv, gamma=0.5).backward()
    expected = -(0.5 ** torch.arange(3.0)) * adv / 2  # d/dlogp of -mean_b sum_t gamma^t A_t logp
    assert torch.allclose(logits.grad, expected)


def test_adap_loss_clips_the_ratio():
    old = torch.zeros(1, 1)
    far = torch.full((1, 1), 0.5, requires_grad=True)  # rho = e^0.5 > 1 + 0.1
    adap_loss(far, old, torch.ones(1, 1), clip=0.1).backward()
    assert far.grad.abs().item() == 0.0  # positive advantage beyond the clip: no push
    near = torch.zeros(1, 1, requires_grad=True)
    adap_loss(near, old, torch.ones(1, 1), clip=0.1).backward()
    assert near.grad.item() == pytest.approx(-1.0)


def test_critic_warmup_freezes_the_actor():
    lr = _learner("adalign", 1.0, warmup=2)
    before = lr.policy.theta.detach().clone()
    lr.update(_batch())
    assert torch.equal(lr.policy.theta, before)


def test_time_aware_critic_learns_the_horizon():
    """Against always-defect with an always-defect policy every step pays -2, so V[t] is the finite
    geometric sum -2 (1 - gamma^(T-t)) / (1 - gamma): a function of t that a timeless critic cannot fit."""
    env = IPD(T=4)
    cfg = LearnerConfig(algo="naive", critic_lr=0.5, gamma=0.5)
    lr = Learner(TabularIPDPolicy(init=-30.0), TabularTimeCritic(4), cfg)
    b = rollout(env, (lr, FixedAgent(env, "defect")), 16, torch.Generator().manual_seed(0))
    for _ in range(300):
        lr.update_critic(b)
    v = lr.critic(b.obs[0])[0, :, 0]
    assert torch.allclose(v, torch.tensor([-3.75, -3.5, -3.0, -2.0]), atol=1e-2)


def test_bad_config():
    with pytest.raises(UserError, match="unknown algo 'sgd'"):
        LearnerConfig(algo="sgd")
    with pytest.raises(UserError, match="gamma"):
        LearnerConfig(gamma=0.0)
