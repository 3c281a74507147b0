"""PhysAgent at CPU scale, built only from what a deployed agent has: the item (question text, pixels,
the official record's marked points), a sentence encoder for language, pixel experts, textbook physics,
and the wrapped VLM. It imports nothing from any benchmark generator (a test runs it in a fresh process
and inspects sys.modules).

Stages, as in the paper: (i) the question's tool is chosen by meaning (`language`), (ii) the experts
measure (`perception`) and the knowledge memory reasons (`knowledge`, `tools`), (iii) self-verification
re-runs the tool on perturbed views and keeps a strict majority. Two ways to answer:

- `mode="direct"`: the agent's conclusion is the answer when the runs agree; otherwise the VLM answers
  (our CPU stand-in, BaseQA, cannot read notes).
- `mode="prompted"`: the VLM always answers, with the agent's notes (facts, the option they point to)
  added to the prompt — PhysAgent's way with an instruction-following VLM (`physbench eval --agent`).

`answer(item) -> (letter, Trace)`; `qa_item(item) -> letter`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from iclr25.physbench.agent.language import Language, default_language
from iclr25.physbench.agent.tools import TOOLS, Context, Unavailable, clip_times
from iclr25.physbench.harness import Item, frames
from iclr25.physbench.taxonomy import GRID_PREFIX

MODES = ("direct", "prompted")


class VLM(Protocol):
    def qa(self, images: list[np.ndarray], prompt: str, mode: str) -> str: ...


@dataclass
class Trace:
    tool: str = ""
    similarity: float = 0.0
    letter: str = ""
    source: str = "model"  # 'agent' (its own conclusion) or 'model' (the wrapped VLM answered)
    conclusions: list[str | None] = field(default_factory=list)
    votes: list[str | None] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    model_calls: int = 0
    note: str = ""


def question_text(item: Item) -> str:
    """What the router reads: the question and its text options (image options and placeholders left
    out), as PhysAgent's classifier sees the whole question."""
    opts = [t for t in item.options.values() if t.strip() and t.strip() != "<image>"]
    return item.stem + (" Options: " + "; ".join(opts) if opts else "")


def perturb(visuals: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """A self-verification view: brightness x U(0.92, 1.08) and uniform pixel noise in [-8, 8]."""
    out = []
    for v in visuals:
        noisy = v.astype(np.float32) * rng.uniform(0.92, 1.08) + rng.integers(-8, 9, v.shape, dtype=np.int8)
        out.append(np.clip(noisy, 0, 255).astype(np.uint8))
    return out


class PhysAgent:
    """`PhysAgent(vlm, perception=True, knowledge=True, verify=3).answer(item)`.

    `perception`: the pixel experts; `knowledge`: physics rules and material sense (either False is an
    ablation); `verify`: runs voted on (1 = none); `language`: a `Language` (one is built on first use);
    `mode`: 'direct' or 'prompted' (see the module); `n_frames`, `grid`: how the model sees videos (8
    frames, or the official numbered 2x2 grid for single-image models)."""

    def __init__(self, vlm: VLM, perception: bool = True, knowledge: bool = True, verify: int = 3,
                 seed: int = 0, language: Language | None = None, mode: str = "direct",
                 n_frames: int = 8, grid: bool = False) -> None:
        if verify < 1:
            raise ValueError(f"verify must be >= 1, got {verify}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.vlm, self.perception, self.knowledge, self.verify = vlm, perception, knowledge, verify
        self.seed, self.mode, self.n_frames, self.grid = seed, mode, n_frames, grid
        self._language = language

    @property
    def language(self) -> Language:
        if self._language is None:
            self._language = default_language()
        return self._language

    def _views(self, item: Item) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
        visuals, times = [], []
        for i in range(len(item.file_name)):
            v = item.visual(i)
            if v.ndim == 4:
                idx, t = clip_times(len(v), self.n_frames)
                visuals.append(v[idx])
                times.append(t)
            else:
                visuals.append(v)
                times.append(None)
        return visuals, times

    def _run(self, item: Item, visuals, times, tool: str, arg: str, facts: dict
             ) -> tuple[str | None, str | None]:
        """One run of the tool: (option letter, conclusion in words), either None when it cannot tell."""
        ctx = Context(item, visuals, times, arg, self.language, self.perception, self.knowledge)
        try:
            result = TOOLS[tool](ctx)
        except Unavailable:
            return None, None
        facts.update(ctx.facts)
        if result is None:
            return None, None
        kind, value = result
        if kind == "letter":
            return (value if value in item.options else None), None
        return self.language.choose(value, item.options), value

    def answer(self, item: Item) -> tuple[str, Trace]:
        trace = Trace()
        pictures = len(item.options) == 4 and all(t.strip() == "<image>" for t in item.options.values())
        intent, trace.similarity = self.language.intent(question_text(item), pictures)
        if intent is not None:
            trace.tool = intent.tool + (f":{intent.arg}" if intent.arg else "")
            visuals, times = self._views(item)
            rng = np.random.default_rng([self.seed, item.idx])
            for run in range(self.verify):
                facts: dict[str, Any] = {}
                view = visuals if run == 0 else perturb(visuals, rng)
                letter, said = self._run(item, view, times, intent.tool, intent.arg, facts)
                trace.votes.append(letter)
                trace.conclusions.append(said)
                trace.facts.append(facts)
        votes = Counter(v for v in trace.votes if v is not None)
        agreed = None
        if votes:
            letter, n = votes.most_common(1)[0]
            if n > self.verify // 2:  # a strict majority of the runs agree
                agreed = letter
        if self.mode == "direct" and agreed is not None:
            trace.letter, trace.source = agreed, "agent"
            return agreed, trace
        prompt = item.prompt()
        if self.mode == "prompted" and trace.facts:
            trace.note = self._note(trace, agreed)
            prompt = item.question + "\n" + trace.note + prompt[len(item.question):]
        has_video = any(item.visual(i).ndim == 4 for i in range(len(item.file_name)))
        if self.grid and has_video:  # single-image models: the official 2x2 grid and its prefix
            prompt = GRID_PREFIX + prompt
        reply = self.vlm.qa(frames(item, self.n_frames, grid=self.grid), prompt, item.mode)
        trace.model_calls += 1
        trace.letter, trace.source = str(reply).strip(), "model"
        return trace.letter, trace

    @staticmethod
    def _note(trace: Trace, agreed: str | None) -> str:
        facts = "; ".join(f"{k}: {v}" for k, v in trace.facts[0].items()) or "none"
        said = next((c for c in trace.conclusions if c), None)
        text = (f"Notes from vision tools and physics rules (may be wrong) — tool: {trace.tool}; facts: "
                f"{facts}")
        if said:
            text += f"; conclusion: {said}"
        if agreed:
            text += f"; this points to option {agreed}"
        return text + "."

    def qa_item(self, item: Item) -> str:
        return self.answer(item)[0]
