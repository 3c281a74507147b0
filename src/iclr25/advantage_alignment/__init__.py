"""Advantage Alignment (Duque et al., ICLR 2025): opponent shaping by reweighting one's policy gradient
with A*_t = A1_t + beta gamma (sum_{k<t} gamma^(t-k) A1_k) A2_t; AdAlign, AdAP, baselines and games."""

from iclr25.advantage_alignment.advantage import (
    aa_advantages,
    advantage_alignment_term,
    discounted_returns,
    gae,
    past_advantage_sum,
)
from iclr25.advantage_alignment.agents import FixedAgent, MLPPolicy, TabularIPDPolicy
from iclr25.advantage_alignment.critic import MLPTimeCritic, TabularTimeCritic
from iclr25.advantage_alignment.envs import IPD, CoinGame, NegotiationGame, make_env
from iclr25.advantage_alignment.experiments import CLAIMS, run
from iclr25.advantage_alignment.learner import ALGOS, Learner, LearnerConfig
from iclr25.advantage_alignment.lola import ipd_exact_values, lola_dice_update, train_lola_exact
from iclr25.advantage_alignment.losses import adalign_loss, adap_loss
from iclr25.advantage_alignment.rollout import Batch, rollout
from iclr25.advantage_alignment.train import default_config, evaluate, exploitability, ipd_policy_table, train
from iclr25.core.registry import make_paper

PAPER = make_paper("advantage_alignment", CLAIMS, run)

__all__ = [
    "ALGOS", "CLAIMS", "IPD", "PAPER", "Batch", "CoinGame", "FixedAgent", "Learner", "LearnerConfig",
    "MLPPolicy", "MLPTimeCritic", "NegotiationGame", "TabularIPDPolicy", "TabularTimeCritic",
    "aa_advantages", "adalign_loss", "adap_loss", "advantage_alignment_term", "default_config",
    "discounted_returns", "evaluate", "exploitability", "gae", "ipd_exact_values", "ipd_policy_table",
    "lola_dice_update", "make_env", "past_advantage_sum", "rollout", "train", "train_lola_exact",
]
