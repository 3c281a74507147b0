"""The estimators: GAE and the Advantage Alignment term A* (Duque et al., ICLR 2025).

All functions are pure, batched over episodes, and work on any PPO / REINFORCE code's tensors.
"""

from __future__ import annotations

import torch

from iclr25.core.errors import UserError

PAST_MODES = ("discounted", "mean")


def _discount_matrix(T: int, factor: float, strict_past: bool = False) -> torch.Tensor:
    """(T, T) W with x @ W a discounted sum over time.

    strict_past=False: W[k, t] = factor^(k-t) for k >= t  (future sums:  sum_{k>=t} factor^(k-t) x_k)
    strict_past=True:  W[k, t] = factor^(t-k) for k < t   (past sums:    sum_{k<t}  factor^(t-k) x_k)
    One matmul instead of a Python loop over t (T <= a few hundred here).
    """
    idx = torch.arange(T)
    lag = idx[:, None] - idx[None, :]  # k - t
    if strict_past:
        lag = -lag
        return torch.where(lag > 0, factor ** lag.clamp_min(0).float(), torch.zeros(()))
    return torch.where(lag >= 0, factor ** lag.clamp_min(0).float(), torch.zeros(()))


def discounted_returns(rewards: torch.Tensor, gamma: float) -> torch.Tensor:
    """G_t = sum_{k>=t} gamma^(k-t) r_k over the last axis (Monte-Carlo critic targets).

    >>> discounted_returns(torch.tensor([1.0, 1.0, 1.0]), 0.5)
    tensor([1.7500, 1.5000, 1.0000])
    """
    return rewards @ _discount_matrix(rewards.shape[-1], gamma)


def gae(rewards: torch.Tensor, values: torch.Tensor, gamma: float, lam: float,
        last_value: torch.Tensor | None = None) -> torch.Tensor:
    """Generalised advantage estimation (Schulman et al. 2016) over the last axis (time).

    rewards, values: (..., T); `last_value` (...,) bootstraps V(s_T) (0 at a terminal state).
    delta_t = r_t + gamma V(s_{t+1}) - V(s_t);  A_t = sum_l (gamma lam)^l delta_{t+l}.

    >>> gae(torch.tensor([[1.0, 1.0]]), torch.zeros(1, 2), gamma=1.0, lam=1.0)
    tensor([[2., 1.]])
    """
    if rewards.shape != values.shape:
        raise UserError(f"rewards {tuple(rewards.shape)} and values {tuple(values.shape)} differ in shape")
    last = torch.zeros_like(values[..., -1:]) if last_value is None else last_value.unsqueeze(-1)
    delta = rewards + gamma * torch.cat([values[..., 1:], last], -1) - values
    return delta @ _discount_matrix(rewards.shape[-1], gamma * lam)


def past_advantage_sum(own_adv: torch.Tensor, gamma: float, past: str = "discounted") -> torch.Tensor:
    """The agent's own past advantages seen at each step t (strictly before t), over the last axis.

    "discounted" (the paper's Eq.):  P_t = sum_{k<t} gamma^(t-k) A1_k, P_0 = 0
    "mean" (official Melting Pot code):  P_t = (sum_{k<t} A1_k) / t, P_0 = 0.

    >>> past_advantage_sum(torch.tensor([1.0, 1.0, 1.0]), gamma=0.5)
    tensor([0.0000, 0.5000, 0.7500])
    """
    if past not in PAST_MODES:
        raise UserError(f"unknown past mode {past!r}; choose from {', '.join(PAST_MODES)}")
    T = own_adv.shape[-1]
    if past == "discounted":
        return own_adv @ _discount_matrix(T, gamma, strict_past=True)
    exclusive = torch.cumsum(own_adv, -1) - own_adv
    return exclusive / torch.arange(T, dtype=own_adv.dtype).clamp_min(1)


def advantage_alignment_term(own_adv: torch.Tensor, opp_adv: torch.Tensor, gamma: float, beta: float,
                             past: str = "discounted") -> torch.Tensor:
    """A*_t = A1_t + beta gamma (sum_{k<t} gamma^(t-k) A1_k) A2_t   (the paper's AA equation).

    own_adv: (B, T) the learner's joint-action advantages A1.
    opp_adv: (B, T), or (B, N-1, T) for N agents (then A2_t := sum_{j != i} A^j_t).
    With beta = 0 this is A1 itself, so AdAlign reduces to the plain policy gradient.

    >>> a1 = torch.tensor([[1.0, 0.0]]); a2 = torch.tensor([[0.0, 2.0]])
    >>> advantage_alignment_term(a1, a2, gamma=0.5, beta=1.0)   # 0 + 1 * 0.5 * (0.5 * 1) * 2
    tensor([[1.0000, 0.5000]])
    """
    if opp_adv.dim() == own_adv.dim() + 1:
        opp_adv = opp_adv.sum(dim=-2)  # N agents: sum the others' advantages
    if opp_adv.shape != own_adv.shape:
        raise UserError(f"own advantages {tuple(own_adv.shape)} and opponent advantages "
                        f"{tuple(opp_adv.shape)} do not match")
    past_sum = past_advantage_sum(own_adv, gamma, past)
    return own_adv + beta * gamma * past_sum * opp_adv


aa_advantages = advantage_alignment_term  # the spec's API name
