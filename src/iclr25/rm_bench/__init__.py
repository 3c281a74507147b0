"""RM-Bench (ICLR 2025): does a reward model prefer the correct answer, or the longer markdown one?
The style-substance matrix (Easy / Normal / Hard), the benchmark's loader and averaging rules, baseline
and trained reward models, language models as implicit reward models, and the reproduction."""

from iclr25.core.registry import make_paper
from iclr25.rm_bench.bt import BTConfig, BTRewardModel
from iclr25.rm_bench.data import DOMAINS, STYLES, Item, load_rmbench
from iclr25.rm_bench.experiments import CLAIMS, run
from iclr25.rm_bench.implicit import (
    DPOImplicitScorer,
    HFSequenceClassifierScorer,
    SmolLM2Scorer,
    implicit_reward,
)
from iclr25.rm_bench.metric import (
    aggregate,
    difficulty,
    evaluate,
    evaluate_scores,
    item_scores,
    policy_correlation,
    style_matrix,
)
from iclr25.rm_bench.scorers import Length, Markdown, MiniLMRelevance, NegLength, Random, markdown_marks
from iclr25.rm_bench.style import flatten_markdown, make_style_variants

PAPER = make_paper("rm_bench", CLAIMS, run)

__all__ = [
    "CLAIMS", "DOMAINS", "PAPER", "STYLES", "BTConfig", "BTRewardModel", "DPOImplicitScorer",
    "HFSequenceClassifierScorer", "Item", "Length", "Markdown", "MiniLMRelevance", "NegLength", "Random",
    "SmolLM2Scorer", "aggregate", "difficulty", "evaluate", "evaluate_scores", "flatten_markdown",
    "implicit_reward", "item_scores", "load_rmbench", "make_style_variants", "markdown_marks",
    "policy_correlation", "run", "style_matrix",
]
