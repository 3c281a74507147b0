"""The unlearning losses on (logits, labels), as in the paper's code (trainer/losses.py). Logits (B, T, V)
at position t predict labels[:, t + 1]; label -100 carries no loss. A forget set D_F and a retain set D_R
give L = c_f * L_forget + c_r * L_reg.

Untargeted forget losses: GA, NPO, ME (proposed). Targeted: IDK, DPO. Regularisers: GD, KL, AP (proposed).
NPO, DPO and AP compare *summed* NLLs per sequence; GA, IDK and GD use the mean token NLL of the batch.
Each `*_of_nll` / `me_of_logits` is the same formula on per-sequence NLLs (or on the covered positions'
logits), which is what `unlearn` feeds them: it evaluates the output head at labelled positions only.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F  # noqa: N812

IGNORE = -100


def _shift(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return logits[:, :-1], labels[:, 1:]  # (B, T-1, V), (B, T-1)


def sequence_nll(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """NLL(y|x) = -sum_t log p(y_t | x, y_<t) per sequence (B,), over the labelled tokens."""
    lg, lb = _shift(logits, labels)
    nll = F.cross_entropy(lg.transpose(1, 2).float(), lb.clamp_min(0), reduction="none")  # (B, T-1)
    return (nll * (lb != IGNORE)).sum(1)


def mean_token_nll(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """The causal-LM loss: mean NLL over every labelled token of the batch (a scalar)."""
    lg, lb = _shift(logits, labels)
    return F.cross_entropy(lg.reshape(-1, lg.shape[-1]).float(), lb.reshape(-1), ignore_index=IGNORE)


def ga_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Gradient ascent: L_GA = -NLL(y|x) on D_F (mean token NLL)."""
    return -mean_token_nll(logits, labels)


def gd_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Gradient descent on the retain set: L_GD = NLL(y|x) on D_R (mean token NLL)."""
    return mean_token_nll(logits, labels)


def idk_loss(idk_logits: torch.Tensor, idk_labels: torch.Tensor) -> torch.Tensor:
    """L_IDK = NLL(y_idk|x) on forget questions answered with a refusal template (mean token NLL)."""
    return mean_token_nll(idk_logits, idk_labels)


def npo_loss(logits: torch.Tensor, labels: torch.Tensor, ref_logits: torch.Tensor,
             beta: float = 0.1) -> torch.Tensor:
    """L_NPO = -(2/beta) E log sigmoid(beta (NLL_theta(y|x) - NLL_ref(y|x))) on D_F (summed NLLs).
    Equals (2/beta) log 2 at theta = ref."""
    return npo_of_nll(sequence_nll(logits, labels), sequence_nll(ref_logits, labels), beta)


def npo_of_nll(nll: torch.Tensor, ref_nll: torch.Tensor, beta: float = 0.1) -> torch.Tensor:
    """NPO on per-sequence summed NLLs (B,) of the model and the reference."""
    return -(2.0 / beta) * F.logsigmoid(beta * (nll - ref_nll.detach())).mean()


def dpo_loss(idk_logits: torch.Tensor, idk_labels: torch.Tensor, logits: torch.Tensor, labels: torch.Tensor,
             ref_idk_logits: torch.Tensor, ref_logits: torch.Tensor, beta: float = 0.1) -> torch.Tensor:
    """DPO with y_idk preferred over the forget answer y:
    L = -(2/beta) E log sigmoid(beta [(log pi(y_idk) - log pi(y)) - (log ref(y_idk) - log ref(y))])."""
    return dpo_of_nll(sequence_nll(idk_logits, idk_labels), sequence_nll(logits, labels),
                      sequence_nll(ref_idk_logits, idk_labels), sequence_nll(ref_logits, labels), beta)


def dpo_of_nll(nll_idk: torch.Tensor, nll: torch.Tensor, ref_nll_idk: torch.Tensor, ref_nll: torch.Tensor,
               beta: float = 0.1) -> torch.Tensor:
    """DPO on per-sequence summed NLLs (B,): log pi(y) = -NLL(y)."""
    pi = -nll_idk + nll
    ref = (-ref_nll_idk + ref_nll).detach()
    return -(2.0 / beta) * F.logsigmoid(beta * (pi - ref)).mean()


def me_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Maximising entropy (ME, Eq. 3): mean over labelled positions of KL(U || p_theta(.|x_<t)), U uniform
    over the vocabulary. KL(U||p) = -log V - (1/V) sum_v log p_v >= 0, 0 iff p is uniform; adding a
    constant to a position's logits does not change it. Pass labels with the question included."""
    lg, lb = _shift(logits, labels)
    return me_of_logits(lg[lb != IGNORE])


def me_of_logits(logits: torch.Tensor) -> torch.Tensor:
    """ME on the logits (N, V) of the N positions it covers: mean_n KL(U || softmax(logits_n))."""
    logp = F.log_softmax(logits.float(), dim=-1)  # (N, V)
    kl = -math.log(logp.shape[-1]) - logp.mean(-1)  # (N,)
    return kl.mean() if len(kl) else kl.sum()


def kl_loss(logits: torch.Tensor, ref_logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """KL(p_ref || p_theta) per token on retain sequences, averaged over the real positions `mask` (B, T)."""
    logp = F.log_softmax(logits.float(), dim=-1)
    logq = F.log_softmax(ref_logits.float(), dim=-1).detach()
    kl = (logq.exp() * (logq - logp)).sum(-1)  # (B, T)
    return (kl * mask).sum() / mask.sum().clamp_min(1)


def ap_loss(logits: torch.Tensor, labels: torch.Tensor, idk_logits: torch.Tensor, idk_labels: torch.Tensor,
            beta: float = 0.1) -> torch.Tensor:
    """Answer preservation (AP, Eq. 5) on D_R, no reference model:
    L_AP = -(1/beta) E log sigmoid(beta (NLL_theta(y_idk|x) - NLL_theta(y|x))).
    Its gradient weighs each retain example by sigmoid(beta (NLL(y|x) - NLL(y_idk|x))): large when the
    model already prefers refusing that retain question."""
    return ap_of_nll(sequence_nll(logits, labels), sequence_nll(idk_logits, idk_labels), beta)


def ap_of_nll(nll: torch.Tensor, nll_idk: torch.Tensor, beta: float = 0.1) -> torch.Tensor:
    """AP on per-sequence summed NLLs (B,) of the retain answer and the refusal."""
    return -(1.0 / beta) * F.logsigmoid(beta * (nll_idk - nll)).mean()
