"""Actor losses that consume A*: AdAlign (REINFORCE form) and AdAP (inside PPO's clipped surrogate)."""

from __future__ import annotations

import torch


def discount_weights(T: int, gamma: float, device: torch.device | None = None) -> torch.Tensor:
    """(T,) gamma^t."""
    return gamma ** torch.arange(T, dtype=torch.float32, device=device)


def adalign_loss(logp: torch.Tensor, adv_star: torch.Tensor, gamma: float) -> torch.Tensor:
    """-E[sum_t gamma^t A*_t log pi(a_t|s_t)]  (AdAlign update; A* is treated as a constant).

    logp, adv_star: (B, T). With A* = A1 this is the plain (naive) policy gradient loss.

    >>> adalign_loss(torch.zeros(2, 3), torch.ones(2, 3), 0.9)
    tensor(-0.)
    """
    w = discount_weights(logp.shape[-1], gamma, logp.device)
    return -(w * adv_star.detach() * logp).sum(-1).mean()


def adap_loss(logp: torch.Tensor, old_logp: torch.Tensor, adv_star: torch.Tensor,
              clip: float = 0.1) -> torch.Tensor:
    """PPO clipped surrogate with A* (Proximal Advantage Alignment):
    -E[min(rho A*, clip(rho, 1-eps, 1+eps) A*)],  rho = pi / pi_old.

    >>> adap_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2))
    tensor(-1.)
    """
    ratio = torch.exp(logp - old_logp.detach())
    a = adv_star.detach()
    pg_loss1 = ratio * a
    pg_loss2 = torch.clamp(ratio, 1.0 - clip, 1.0 + clip) * a
    return -torch.min(pg_loss1, pg_loss2).mean()
