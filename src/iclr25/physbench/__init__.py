"""PhysBench (ICLR 2025): the official scorer and harness for any served VLM, PhysBench-Synth (pymunk
scenes in the official format), BaseQA (our VLM stand-in) and PhysAgent at CPU scale."""

from iclr25.core.registry import make_paper
from iclr25.physbench.experiments import CLAIMS, run
from iclr25.physbench.harness import Item, frames, load, sample_indices, tile_grid
from iclr25.physbench.scoring import Report, answer_true, lenient_letter, score, write_submission
from iclr25.physbench.taxonomy import OFFICIAL_END_PROMPT

PAPER = make_paper("physbench", CLAIMS, run)

__all__ = [
    "CLAIMS",
    "OFFICIAL_END_PROMPT",
    "PAPER",
    "Item",
    "Report",
    "answer_true",
    "frames",
    "lenient_letter",
    "load",
    "run",
    "sample_indices",
    "score",
    "tile_grid",
    "write_submission",
]
