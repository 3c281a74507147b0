"""RM-Bench (ICLR 2025): does a reward model prefer the correct answer, or the longer markdown one?
The style-substance matrix (Easy / Normal / Hard), the benchmark's loader and averaging rules, baseline
and trained reward models, language models as implicit reward models, and the reproduction."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "bt": ["BTConfig", "BTRewardModel"],
    "data": ["DOMAINS", "STYLES", "Item", "load_rmbench"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "implicit": ["DPOImplicitScorer", "HFSequenceClassifierScorer", "LMTokenLogprobs", "SmolLM2Scorer",
        "dpo_scorer", "implicit_reward"],
    "metric": ["aggregate", "difficulty", "evaluate", "evaluate_scores", "item_contributions", "item_scores",
        "per_item", "policy_correlation", "style_matrix"],
    "plots": ["style_heatmap"],
    "scorers": ["Length", "Markdown", "MiniLMRelevance", "NegLength", "Random", "markdown_marks"],
    "style": ["flatten_markdown", "make_style_variants"],
})
