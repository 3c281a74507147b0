"""PhysBench (ICLR 2025): the official scorer and harness for any served VLM, PhysBench-Synth (pymunk
scenes in the official format), BaseQA (our VLM stand-in) and PhysAgent at CPU scale.

The torch-backed parts (BaseQA, DepthNet, PhysAgent, evaluate) load on first use, so importing the
package for scoring stays light."""

from importlib import import_module

from iclr25.core.registry import make_paper
from iclr25.physbench.experiments import CLAIMS, run
from iclr25.physbench.harness import Item, frames, load, sample_indices, tile_grid
from iclr25.physbench.scoring import Report, answer_true, lenient_letter, score, write_submission
from iclr25.physbench.taxonomy import OFFICIAL_END_PROMPT

PAPER = make_paper("physbench", CLAIMS, run)

_LAZY = {"BaseQA": "baseqa", "BaseQAConfig": "baseqa", "DepthNet": "depthnet", "DepthNetConfig": "depthnet",
         "PhysAgent": "agent", "KnowledgeMemory": "knowledge", "BlobDetector": "experts",
         "evaluate": "evaluate", "OpenAICompatibleVLM": "evaluate", "synth": "synth"}


def __getattr__(name: str):
    if name in _LAZY:
        mod = import_module(f"iclr25.physbench.{_LAZY[name]}")
        return mod if name == "synth" else getattr(mod, name)
    raise AttributeError(f"module 'iclr25.physbench' has no attribute {name!r}")


__all__ = ["CLAIMS", "OFFICIAL_END_PROMPT", "PAPER", "Item", "Report", "answer_true", "frames",
           "lenient_letter", "load", "run", "sample_indices", "score", "tile_grid", "write_submission",
           *_LAZY]
