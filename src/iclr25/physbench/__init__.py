"""PhysBench (ICLR 2025): the official scorer and harness for any served VLM, PhysBench-Synth (pymunk
scenes in the official format, with held-out wordings and scene ranges), BaseQA (our VLM stand-in),
PhysAgent at CPU scale (its own package: language, pixel experts, physics) and embodied episodes.

The torch-backed parts (BaseQA, PhysAgent, evaluate) load on first use, so importing the package for
scoring stays light."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "harness": ["Item", "frames", "load", "sample_indices", "tile_grid"],
    "scoring": ["Report", "answer_true", "lenient_letter", "score", "write_submission"],
    "taxonomy": ["OFFICIAL_END_PROMPT"],
    "baseqa": ["BaseQA", "BaseQAConfig"],
    "agent": ["PhysAgent"],
    "evaluate": ["evaluate", "OpenAICompatibleVLM"],
})
