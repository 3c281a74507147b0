"""Advantage Alignment (Duque et al., ICLR 2025): opponent shaping by reweighting one's policy gradient
with A*_t = A1_t + beta gamma (sum_{k<t} gamma^(t-k) A1_k) A2_t; AdAlign, AdAP, baselines and games."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "advantage": ["aa_advantages", "advantage_alignment_term", "discounted_returns", "gae",
        "past_advantage_sum"],
    "agents": ["FixedAgent", "MLPPolicy", "TabularIPDPolicy"],
    "critic": ["MLPTimeCritic", "TabularTimeCritic"],
    "envs": ["IPD", "CoinGame", "NegotiationGame", "make_env"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "learner": ["ALGOS", "Learner", "LearnerConfig"],
    "lola": ["ipd_exact_values", "lola_dice_update", "train_lola_exact"],
    "losses": ["adalign_loss", "adap_loss"],
    "rollout": ["Batch", "rollout"],
    "train": ["default_config", "evaluate", "exploitability", "ipd_policy_table", "train"],
})
