"""The objective terms against closed forms."""

import math

import torch

from iclr25.guided_strategy.losses import (
    constraint_violation,
    discriminator_loss,
    gail_reward,
    gaussian_log_prob,
    gradient_penalty,
    info_gail_reward,
    lagrangian_terms,
    relevance_limit,
)
from iclr25.guided_strategy.networks import Discriminator


def test_gail_reward_is_minus_log_one_minus_d():
    logit = torch.tensor([-3.0, 0.0, 2.5])
    assert torch.allclose(gail_reward(logit), -torch.log(1 - torch.sigmoid(logit)))
    log_q = torch.tensor([-1.0, 0.5, 2.0])
    assert torch.allclose(info_gail_reward(logit, log_q, 0.1), gail_reward(logit) + 0.1 * log_q)


def test_gaussian_log_prob_matches_torch():
    z, mu, ls = torch.randn(5, 2), torch.randn(5, 2), torch.randn(5, 2) * 0.3
    ref = torch.distributions.Normal(mu, ls.exp()).log_prob(z).sum(-1)
    assert torch.allclose(gaussian_log_prob(z, mu, ls), ref, atol=1e-6)


def test_discriminator_loss_at_chance_is_2_log_2():
    loss = discriminator_loss(torch.zeros(4), torch.zeros(4))
    assert math.isclose(float(loss), 2 * math.log(2), rel_tol=1e-6)


def test_gradient_penalty_of_a_linear_logit_is_the_squared_norm_gap():
    w = torch.tensor([3.0, 4.0])  # ‖∇ℓ‖ = 5 everywhere
    real, fake = torch.randn(8, 2), torch.randn(8, 2)
    gp = gradient_penalty(lambda x: x @ w, real, fake, torch.Generator(), center=1.0)
    assert math.isclose(float(gp), 16.0, rel_tol=1e-6)


def test_bounded_logit_lies_in_plus_minus_half_clip():
    d = Discriminator(3, (8,), clip=10.0)
    x = torch.randn(100, 3) * 100
    with torch.no_grad():
        logit = d.logit(x)
    assert float(logit.abs().max()) <= 5.0 and float(logit.std()) > 1.0
    assert torch.allclose(logit, 10.0 * d.relevance(x) - 5.0, atol=1e-5)


def test_constraint_is_slack_when_satisfied_and_negative_when_violated():
    mu, mu_next = torch.zeros(2, 2), torch.tensor([[0.3, 0.4], [3.0, 4.0]])  # moves 0.5 and 5
    limit = relevance_limit(torch.tensor([0.5, 0.5]), torch.tensor([[2.0, 0.0], [2.0, 0.0]]), lambda_c=1.0)
    assert limit.tolist() == [1.0, 1.0]
    v = constraint_violation(mu, mu_next, limit, slack=1e-6)
    assert math.isclose(float(v), (1e-6 + (1.0 - 25.0)) / 2, rel_tol=1e-6)


def test_dual_rises_while_violated_and_the_decoder_is_pushed_back():
    log_lam = torch.nn.Parameter(torch.tensor(math.log(100.0)))
    mu_next = torch.tensor([[3.0, 4.0]], requires_grad=True)
    v = constraint_violation(torch.zeros(1, 2), mu_next, torch.tensor([1.0]), 1e-6)
    dec_term, dual_term = lagrangian_terms(v, log_lam)
    dual_term.backward()
    assert float(log_lam.grad) < 0  # gradient descent increases log λ
    dec_term.backward()
    assert torch.all(mu_next.grad * mu_next > 0)  # descent shrinks the code displacement
