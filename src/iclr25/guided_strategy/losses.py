"""The objective terms of InfoGAIL and GSD as pure functions (tensors in, a tensor out)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def gail_reward(logit: torch.Tensor) -> torch.Tensor:
    """Policy reward from the discriminator: −log(1 − σ(ℓ)) = softplus(ℓ)."""
    return F.softplus(logit)


def gaussian_log_prob(z: torch.Tensor, mu: torch.Tensor, log_std: torch.Tensor) -> torch.Tensor:
    """log N(z; μ, diag σ²) summed over latent dimensions: (B, dz) -> (B,)."""
    return (-0.5 * ((z - mu) / log_std.exp()) ** 2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)


def info_gail_reward(logit: torch.Tensor, log_q: torch.Tensor, lambda_info: float) -> torch.Tensor:
    """r_t = −log(1 − σ(ℓ_ψ(s_t, a_t))) + λ_I · log q_φ(z | s_t, a_t)."""
    return gail_reward(logit) + lambda_info * log_q


def discriminator_loss(logit_real: torch.Tensor, logit_fake: torch.Tensor) -> torch.Tensor:
    """BCE with demonstrations labelled 1 and policy samples 0."""
    return (F.binary_cross_entropy_with_logits(logit_real, torch.ones_like(logit_real))
            + F.binary_cross_entropy_with_logits(logit_fake, torch.zeros_like(logit_fake)))


def gradient_penalty(logit_fn, real: torch.Tensor, fake: torch.Tensor,  # noqa: ANN001 - a callable
                     generator: torch.Generator, center: float = 1.0) -> torch.Tensor:
    """E[(‖∇ₓ ℓ(x̂)‖ − center)²] at x̂ = α·real + (1 − α)·fake, α ~ U(0, 1) per row (WGAN-GP)."""
    n = min(len(real), len(fake))
    alpha = torch.rand(n, 1, generator=generator)
    x_hat = (alpha * real[:n] + (1 - alpha) * fake[:n]).requires_grad_(True)
    grad, = torch.autograd.grad(logit_fn(x_hat).sum(), x_hat, create_graph=True)
    return ((grad.norm(dim=1) - center) ** 2).mean()


def relevance_limit(relevance: torch.Tensor, step: torch.Tensor, lambda_c: float) -> torch.Tensor:
    """GSD's allowed code displacement: λ_C · ρ(s, a) · ‖(s', a') − (s, a)‖ (B,)."""
    return lambda_c * relevance * step.norm(dim=-1)


def constraint_violation(mu: torch.Tensor, mu_next: torch.Tensor, limit: torch.Tensor,
                         slack: float) -> torch.Tensor:
    """mean(min(limit² − ‖μ(s', a') − μ(s, a)‖², slack)): negative where the decoder's code moves
    faster than the task relevance allows, `slack` (a constant, no gradient) where it does not."""
    embed_sq = ((mu_next - mu) ** 2).sum(-1)
    return torch.clamp(limit**2 - embed_sq, max=slack).mean()


def lagrangian_terms(violation: torch.Tensor, log_lambda: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(decoder term, dual term) of the Lagrangian. The decoder minimises −λ·v (λ fixed); the dual
    minimises λ·v (v fixed), so log λ rises while the constraint is violated (v < 0) and decays by
    the slack otherwise."""
    lam = log_lambda.exp()
    return -lam.detach() * violation, lam * violation.detach()
