"""The 19 papers of the seed list by slug. Importing this module imports no paper (and no torch):
a paper's package is imported only when it is loaded."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from iclr25.core.claims import Claim
from iclr25.core.paper import Paper

if TYPE_CHECKING:
    from iclr25.core.claims import Finding
    from iclr25.core.runtime import RunContext

_PKG_DIR = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class PaperInfo:
    number: int
    slug: str
    title: str

    @property
    def has_cli(self) -> bool:
        return (_PKG_DIR / self.slug / "cli.py").is_file()

    @property
    def readme(self) -> Path:
        return _PKG_DIR / self.slug / "README.md"

    @property
    def has_web(self) -> bool:
        return (_PKG_DIR / self.slug / "web.py").is_file()


PAPERS: tuple[PaperInfo, ...] = (
    PaperInfo(1, "ssm_selection",
              "State Space Models are Provably Comparable to Transformers in Dynamic Token Selection"),
    PaperInfo(2, "advantage_alignment", "Advantage Alignment Algorithms"),
    PaperInfo(3, "rm_bench",
              "RM-Bench: Benchmarking Reward Models of Language Models with Subtlety and Style"),
    PaperInfo(4, "imagefolder", "ImageFolder: Autoregressive Image Generation with Folded Tokens"),
    PaperInfo(5, "model_equality", "Model Equality Testing: Which Model Is This API Serving?"),
    PaperInfo(6, "simplicial_oversquashing",
              "Demystifying Topological Message-Passing with Relational Structures: "
              "A Case Study on Oversquashing in Simplicial Message-Passing"),
    PaperInfo(7, "hive", "From an LLM Swarm to a PDDL-empowered Hive: Planning Self-executed "
                         "Instructions in a Multi-modal Jungle"),
    PaperInfo(8, "pattern_cav", "Navigating Neural Space: Revisiting Concept Activation Vectors "
                                "to Overcome Directional Divergence"),
    PaperInfo(9, "guided_strategy", "Generalized Behavior Learning from Diverse Demonstrations"),
    PaperInfo(10, "physbench", "PhysBench: Benchmarking and Enhancing Vision-Language Models "
                               "for Physical World Understanding"),
    PaperInfo(11, "softmatcha",
              "SoftMatcha: A Soft and Fast Pattern Matcher for Billion-Scale Corpus Searches"),
    PaperInfo(12, "tucker_sfda", "Efficient Source-Free Time-Series Adaptation via Parameter "
                                 "Subspace Disentanglement"),
    PaperInfo(13, "cate_benchmark", "Do Contemporary Causal Inference Models Capture Real-World "
                                    "Heterogeneity? Findings from a Large-Scale Benchmark"),
    PaperInfo(14, "hetero_covariance",
              "Towards Self-Supervised Covariance Estimation in Deep Heteroscedastic Regression"),
    PaperInfo(15, "underdamped_bridges", "Underdamped Diffusion Bridges with Applications to Sampling"),
    PaperInfo(16, "llm_unlearning", "A Closer Look at Machine Unlearning for Large Language Models"),
    PaperInfo(17, "psr_sci",
              "Spectral Compressive Imaging via Unmixing-driven Subspace Diffusion Refinement"),
    PaperInfo(18, "topograph", "Topograph: An Efficient Graph-Based Framework for Strictly "
                               "Topology Preserving Image Segmentation"),
    PaperInfo(19, "causal_direction", "A Robust Method to Discover Causal or Anticausal Relation"),
)

BY_SLUG: dict[str, PaperInfo] = {p.slug: p for p in PAPERS}


class UnknownPaper(KeyError):
    def __str__(self) -> str:
        return f"unknown paper {self.args[0]!r}; known: {', '.join(BY_SLUG)}"


def info(slug: str) -> PaperInfo:
    try:
        return BY_SLUG[slug]
    except KeyError:
        raise UnknownPaper(slug) from None


def make_paper(slug: str, claims: Sequence[Claim],
               run: Callable[[str, RunContext], list[Finding]]) -> Paper:
    """What a paper's __init__ calls: `PAPER = make_paper("softmatcha", CLAIMS, run)`."""
    i = info(slug)
    return Paper(slug=i.slug, number=i.number, title=i.title, claims=tuple(claims), run=run)


def load(slug: str) -> Paper:
    """Import the paper's package and return its PAPER."""
    return importlib.import_module(f"iclr25.{info(slug).slug}").PAPER


def claims(slug: str) -> Sequence[Claim]:
    """The paper's claims as its code states them now, from its light `claims` module (pure data: no
    torch), or from the whole paper where it has none."""
    name = f"iclr25.{info(slug).slug}.claims"
    try:
        return importlib.import_module(name).CLAIMS
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return load(slug).claims
