"""PhysBench (ICLR 2025): the official scorer and harness for any served VLM, PhysBench-Synth (pymunk
scenes in the official format), BaseQA (our VLM stand-in) and PhysAgent at CPU scale.

The torch-backed parts (BaseQA, DepthNet, PhysAgent, evaluate) load on first use, so importing the
package for scoring stays light."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "experiments": ["CLAIMS", "run"],
    "harness": ["Item", "frames", "load", "sample_indices", "tile_grid"],
    "scoring": ["Report", "answer_true", "lenient_letter", "score", "write_submission"],
    "taxonomy": ["OFFICIAL_END_PROMPT"],
    "baseqa": ["BaseQA", "BaseQAConfig"],
    "depthnet": ["DepthNet", "DepthNetConfig"],
    "agent": ["PhysAgent"],
    "knowledge": ["KnowledgeMemory"],
    "experts": ["BlobDetector"],
    "evaluate": ["evaluate", "OpenAICompatibleVLM"],
})
