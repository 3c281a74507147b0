"""PhysBench-Synth: pymunk-simulated 2-D scenes drawn with Pillow, emitted in the official PhysBench record
format (test.json + val_answer.json + image/ + video/) with answers known from geometry, closed forms or
simulation. 15 sub-types over all 4 domains, 8 abilities and 3 modes; answer letters exactly balanced.
`heldout=True` words the questions with the held-out wordings (`synth.heldout`) and draws every scene's
parameters outside the training ranges, in shifted colour shades: the evaluation set no model or agent
was built on.

>>> s = generate(15, seed=0)
>>> len(s.items), sorted({a["task_type"] for a in s.answers})
(15, ['dynamics', 'property', 'relationships', 'scene'])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write, progress
from iclr25.physbench.harness import Item
from iclr25.physbench.synth.render import Look
from iclr25.physbench.synth.scenes import GENERATORS, SYNTH_SUB_TYPES, Ask, Scene, finish_depth
from iclr25.physbench.taxonomy import LETTERS

PARTS = ("train", "test")
MAX_ITEMS = 200_000


@dataclass
class SynthSet:
    """Items (with in-memory media), their answer records, and per-idx hidden truth (generator state:
    simulation parameters, depth maps) that only tests and training targets may read."""

    items: list[Item]
    answers: list[dict[str, Any]]
    truth: dict[int, dict[str, Any]]

    def subset(self, keep: Sequence[int]) -> SynthSet:
        keep = set(keep)
        return SynthSet(
            [it for it in self.items if it.idx in keep],
            [a for a in self.answers if a["idx"] in keep],
            {k: v for k, v in self.truth.items() if k in keep},
        )


def _placeholder(a: np.ndarray) -> str:
    return "<video>" if a.ndim == 4 else "<image>"


def make_item(
    i: int, seed: int, sub: str, letter: str, part: str, idx0: int = 0, heldout: bool = False
) -> tuple[Item, dict[str, Any], dict[str, Any]]:
    """Item number i of a set: its own RNG streams (scene, wording, colours), so any item can be rebuilt
    alone. `heldout`: held-out wording and scene parameters."""
    from iclr25.physbench.synth.heldout import HELDOUT
    from iclr25.physbench.synth.wording import TEMPLATE

    gen, task, ability, mode = GENERATORS[sub]
    p = PARTS.index(part)
    rng = np.random.default_rng([seed, i, p])
    if heldout:
        ask = Ask(HELDOUT, np.random.default_rng([seed, i, p, 77]), True,
                  Look.heldout(np.random.default_rng([seed, i, p, 5])), part)
    else:
        ask = Ask(TEMPLATE, None, False, Look.train(), part)
    scene: Scene = gen(rng, ask)
    correct = LETTERS.index(letter)
    rest = list(rng.permutation(3) + 1)
    order = rest[:correct] + [0] + rest[correct:]  # order[slot] = scene option index
    idx = idx0 + i
    if sub == "depth":
        scene.points = [scene.points[j] for j in order]
        finish_depth(scene, list(LETTERS), ask)
        options = scene.options
    else:
        options = [scene.options[j] for j in order]
    media = list(scene.media)
    names = [f"synth_{idx:06d}_{k}.{'mp4' if m.ndim == 4 else 'png'}" for k, m in enumerate(media)]
    head = "".join(f"{_placeholder(m)}\n" for m in media)
    if isinstance(options[0], np.ndarray):  # interleaved (general mode): image options
        names += [f"synth_{idx:06d}_opt{k}.png" for k in LETTERS]
        media += options
        opts = "".join(f"\n{k}. <image>" for k in LETTERS)
    else:
        opts = "".join(f"\n{k}. {o}" for k, o in zip(LETTERS, options, strict=True))
    objects = [scene.objects[j] for j in order] if scene.objects else None
    item = Item(
        idx=idx,
        question=f"{head}{scene.stem}{opts}",
        file_name=names,
        mode=mode,
        split="val",
        description=scene.description,
        object=objects,
        scene="PhysBench-Synth 2-D" + (" (held-out)" if heldout else ""),
        source="simulation",
        media=media,
    )
    answer = {
        "idx": idx,
        "answer": letter,
        "task_type": task,
        "sub_type": sub,
        "ability_type": ability,
        "mode": mode,
    }
    return item, answer, {**scene.truth, "sub_type": sub}


def generate(
    n: int, seed: int = 0, part: str = "test", sub_types: Sequence[str] | None = None, idx0: int = 0,
    heldout: bool = False,
) -> SynthSet:
    """n items, sub-types and answer letters each spread evenly (counts differ by at most one) in a
    seeded random order. `part` picks the half of the attribute table's objects ('train' / 'test':
    disjoint) so a model trained on one part cannot memorise the other. `heldout`: held-out wordings and
    scene parameters outside the training ranges (evaluation only)."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise UserError(f"n must be a positive integer, got {n!r}")
    if n > MAX_ITEMS:
        raise UserError(f"n must be at most {MAX_ITEMS:,}, got {n}")
    if part not in PARTS:
        raise UserError(f"unknown part {part!r}; choose from {', '.join(PARTS)}")
    subs = list(sub_types or SYNTH_SUB_TYPES)
    unknown = [s for s in subs if s not in GENERATORS]
    if unknown or not subs:
        raise UserError(
            f"unknown sub-type {unknown[0] if unknown else ''!r}; choose from {', '.join(SYNTH_SUB_TYPES)}"
        )
    rng = np.random.default_rng([seed, 7919, PARTS.index(part)])
    sub_of = rng.permutation(np.resize(np.array(subs), n))
    letter_of = rng.permutation(np.resize(np.array(LETTERS), n))
    items, answers, truth = [], [], {}
    for i in progress(range(n), "PhysBench-Synth" + (" (held-out)" if heldout else ""), total=n):
        it, ans, tr = make_item(i, seed, str(sub_of[i]), str(letter_of[i]), part, idx0, heldout)
        items.append(it)
        answers.append(ans)
        truth[it.idx] = tr
    return SynthSet(items, answers, truth)


def _write_video(path: Path, video: np.ndarray, fps: int = 16) -> None:
    import av

    with atomic_write(path) as f, av.open(f, mode="w", format="mp4") as out:
        stream = out.add_stream("mpeg4", rate=fps)
        stream.width, stream.height = video.shape[2], video.shape[1]
        stream.pix_fmt = "yuv420p"
        stream.options = {"qscale": "2"}
        for frame in video:
            for packet in stream.encode(
                av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            ):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)


def write(synth: SynthSet, out_dir: str | Path) -> Path:
    """Write the official layout: test.json, val_answer.json, image/*.png, video/*.mp4."""
    from PIL import Image

    out = Path(out_dir)
    (out / "image").mkdir(parents=True, exist_ok=True)
    (out / "video").mkdir(parents=True, exist_ok=True)
    for it in progress(synth.items, "writing media"):
        for name, m in zip(it.file_name, it.media or [], strict=True):
            if m.ndim == 4:
                _write_video(out / "video" / name, m)
            else:
                with atomic_write(out / "image" / name) as f:
                    Image.fromarray(m).save(f, format="PNG")
    with atomic_write(out / "test.json", "w") as f:
        json.dump([it.to_record() for it in synth.items], f, indent=1)
    with atomic_write(out / "val_answer.json", "w") as f:
        json.dump(synth.answers, f, indent=1)
    return out


__all__ = ["PARTS", "SYNTH_SUB_TYPES", "SynthSet", "generate", "make_item", "write"]
