"""The source-free adaptation objectives SFT plugs into (the "hosts"), as pure functions of a batch:
SHOT (information maximisation + centroid pseudo-labels), NRC and AaD (neighbourhood consistency over a
persistent feature/score bank) and MAPU (information maximisation + temporal imputation). Defaults are
the MAPU repository's HAR settings (spec §2)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

EPS = 1e-5  # MAPU's epsilon inside the logs


@dataclass(frozen=True)
class ShotConfig:
    ent_wt: float = 0.6709  # w_ent
    im_wt: float = 0.8969  # w_im (diversity)
    cls_wt: float = 0.3312  # w_cls (pseudo-label CE); 0 gives SHOT-IM


@dataclass(frozen=True)
class NRCConfig:
    K: int = 5  # nearest neighbours
    M: int = 5  # neighbours of each neighbour (expanded)
    r: float = 0.1  # affinity of a non-reciprocal neighbour and of every expanded neighbour
    epsilon: float = 1e-5


@dataclass(frozen=True)
class AaDConfig:
    K: int = 5
    alpha: float = 1.0
    beta: float = 10.0  # HAR: 10 (EEG 9, FD 5)


@dataclass(frozen=True)
class MAPUConfig:
    ent_wt: float = 0.05897
    im_wt: float = 0.2759
    tov_wt: float = 0.5  # w_TOV, the temporal-imputation weight
    n_segments: int = 8


HOST_DEFAULTS = {"shot": ShotConfig(), "shot_im": ShotConfig(cls_wt=0.0), "nrc": NRCConfig(),
                 "aad": AaDConfig(), "mapu": MAPUConfig()}
METHODS = tuple(HOST_DEFAULTS)


def entropy(p: torch.Tensor) -> torch.Tensor:
    """H(p_i) per row: −Σ_c p_ic log(p_ic + ε)."""
    return -(p * torch.log(p + EPS)).sum(1)


def information_maximisation(p: torch.Tensor, ent_wt: float, im_wt: float) -> torch.Tensor:
    """w_ent · mean_i H(p_i) − w_im · H(mean_i p_i): confident, yet diverse, predictions."""
    p_bar = p.mean(0)
    return ent_wt * entropy(p).mean() - im_wt * entropy(p_bar[None])[0]


def shot_pseudo_labels(features: torch.Tensor, probs: torch.Tensor) -> torch.Tensor:
    """SHOT's self-supervised pseudo-labels: features ⊕ 1, L2-normalised; soft class centroids weighted by
    the predictions; nearest centroid by cosine distance; then one round of hard centroids and
    re-assignment. Classes left empty by the hard round get no centroid (SHOT's count threshold)."""
    f = torch.cat([features, torch.ones(len(features), 1)], 1)
    f = F.normalize(f, dim=1)  # (N, D+1)
    aff = probs  # (N, K)
    for _ in range(2):  # soft centroids, then one hard round
        c = aff.T @ f / (aff.sum(0)[:, None] + 1e-8)  # (K, D+1)
        sim = f @ F.normalize(c, dim=1).T  # cosine similarity = 1 − cosine distance
        sim[:, aff.sum(0) <= 0] = -torch.inf
        labels = sim.argmax(1)
        aff = F.one_hot(labels, probs.shape[1]).to(f.dtype)
    return labels


def shot_loss(logits: torch.Tensor, pseudo: torch.Tensor, cfg: ShotConfig) -> torch.Tensor:
    """SHOT: w_ent·mean H(p_i) − w_im·H(p̄) + w_cls·CE(p_i, ŷ_i)."""
    loss = information_maximisation(logits.softmax(1), cfg.ent_wt, cfg.im_wt)
    if cfg.cls_wt:
        loss = loss + cfg.cls_wt * F.cross_entropy(logits, pseudo)
    return loss


class FeatureBank:
    """Persistent memory of L2-normalised features and softmax scores of every target series (NRC, AaD),
    filled by one pass before adaptation and refreshed batch by batch."""

    def __init__(self, features: torch.Tensor, scores: torch.Tensor) -> None:
        self.features = F.normalize(features, dim=1)  # (N, D)
        self.scores = scores.clone()  # (N, C)

    def update(self, idx: torch.Tensor, features: torch.Tensor, scores: torch.Tensor) -> None:
        self.features[idx] = F.normalize(features.detach(), dim=1)
        self.scores[idx] = scores.detach()

    def neighbours(self, queries: torch.Tensor, k: int) -> torch.Tensor:
        """Indices (…, k) of the k most similar bank entries, the query's own entry (top-1) dropped."""
        sim = queries @ self.features.T
        k = min(k + 1, self.features.shape[0])
        return sim.topk(k, dim=-1).indices[..., 1:]


def nrc_loss(probs: torch.Tensor, idx: torch.Tensor, bank: FeatureBank, cfg: NRCConfig) -> torch.Tensor:
    """NRC: −Σ_k A_ik ⟨p_i, s_k⟩ − Σ_{k,m} r ⟨p_i, s_km⟩ + Σ_c p̄_c log p̄_c, with A_ik = 1 when i is among
    neighbour k's own M nearest (reciprocal), else r. `bank` already holds this batch's entries."""
    q = bank.features[idx]  # (B, D)
    near = bank.neighbours(q, cfg.K)  # (B, K)
    near_near = bank.neighbours(bank.features[near], cfg.M)  # (B, K, M)
    reciprocal = (near_near == idx[:, None, None]).any(-1)  # (B, K)
    w = torch.where(reciprocal, 1.0, cfg.r)
    s_near = bank.scores[near]  # (B, K, C)
    s_exp = bank.scores[near_near].flatten(1, 2)  # (B, K·M, C)
    attract = (w * torch.einsum("bc,bkc->bk", probs, s_near)).sum(1).mean()
    expanded = (cfg.r * torch.einsum("bc,bkc->bk", probs, s_exp)).sum(1).mean()
    p_bar = probs.mean(0)
    diversity = (p_bar * torch.log(p_bar + cfg.epsilon)).sum()
    return -attract - expanded + diversity


def aad_alpha(t: int, T: int, cfg: AaDConfig) -> float:
    """α_t = α (1 + 10 t/T)^(−β): the dispersion weight decays over the T iterations."""
    return cfg.alpha * (1 + 10 * t / max(T, 1)) ** (-cfg.beta)


def aad_loss(probs: torch.Tensor, idx: torch.Tensor, bank: FeatureBank, alpha_t: float,
             cfg: AaDConfig) -> torch.Tensor:
    """AaD: −mean_i Σ_{k ∈ N_K(i)} ⟨p_i, s_k⟩ + α_t · mean_i Σ_{j ≠ i in batch} ⟨p_i, p_j⟩."""
    near = bank.neighbours(bank.features[idx], cfg.K)  # (B, K)
    attract = torch.einsum("bc,bkc->bk", probs, bank.scores[near]).sum(1).mean()
    dots = probs @ probs.T  # (B, B)
    disperse = (dots.sum(1) - dots.diagonal()).mean()
    return -attract + alpha_t * disperse


def mask_segments(x: torch.Tensor, g: torch.Generator, n_segments: int = 8,
                  n_masked: int = 1) -> torch.Tensor:
    """MAPU's temporal masking: split time into `n_segments` near-equal segments and zero `n_masked` of
    them, chosen per channel (the same for every series of the batch)."""
    B, C, T = x.shape
    bounds = torch.linspace(0, T, n_segments + 1).round().long()
    out = x.clone()
    for c in range(C):
        for s in torch.randperm(n_segments, generator=g)[:n_masked].tolist():
            out[:, c, bounds[s]:bounds[s + 1]] = 0
    return out


def tov_loss(seq: torch.Tensor, seq_masked: torch.Tensor, imputer: torch.nn.Module) -> torch.Tensor:
    """MAPU's temporal imputation loss: MSE(imputer(f(mask(x))), f(x)) on the feature sequences."""
    return F.mse_loss(imputer(seq_masked), seq)
