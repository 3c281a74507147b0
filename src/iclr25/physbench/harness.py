"""The official PhysBench layout read as items: `load(root, split, mode)`, the prompt each model sees, and
the 8 uniformly sampled video frames (optionally tiled into the numbered 2x2 grid of single-image models).

Layout (HF dataset USC-GVL/PhysBench): `root/test.json` (all questions, val and test), `root/image/*`,
`root/video/*.mp4`; answers in `val_answer.json` (records idx, answer, task_type, sub_type, ability_type,
mode)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.core.io import read_json
from iclr25.physbench.taxonomy import MODES, OFFICIAL_END_PROMPT, SPLITS

VIDEO_EXT = (".mp4", ".avi", ".mov", ".webm", ".mkv")
_OPTION = re.compile(r"\n([ABCD])\.\s?")
_MAX_FRAMES = 100_000  # a video longer than this is refused, not decoded


@dataclass
class Item:
    """One question in the official record format. `media` holds decoded pixels for in-memory items
    (PhysBench-Synth): per file an (H, W, 3) uint8 image or a (T, H, W, 3) uint8 video."""

    idx: int
    question: str
    file_name: list[str]
    mode: str = "image-only"
    split: str = "val"
    description: Any = None
    object: list[str] | None = None
    scene: str | None = None
    source: str | None = None
    root: Path | None = None
    media: list[np.ndarray] | None = field(default=None, repr=False)

    def prompt(self, end_prompt: str = OFFICIAL_END_PROMPT) -> str:
        """The text a model sees: the question (with its <image>/<video> placeholders) + the official
        answer instruction."""
        return self.question + end_prompt

    @property
    def stem(self) -> str:
        """The question before the options, placeholders removed (what PhysAgent's router reads)."""
        head = self.question.split("\nA.")[0]
        return re.sub(r"<(image|video)>\n?", "", head).strip()

    @property
    def options(self) -> dict[str, str]:
        """Option letter -> option text ('<image>' for an image option)."""
        parts = _OPTION.split(self.question)
        return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}

    def to_record(self) -> dict[str, Any]:
        """The official test.json record."""
        return {
            "idx": self.idx,
            "split": self.split,
            "mode": self.mode,
            "question": self.question,
            "file_name": list(self.file_name),
            "description": self.description,
            "object": self.object,
            "scene": self.scene,
            "source": self.source,
        }

    def visual(self, i: int) -> np.ndarray:
        """File i of this item: (H, W, 3) image or (T, H, W, 3) video, uint8."""
        if self.media is not None:
            return self.media[i]
        if self.root is None:
            raise UserError(f"item {self.idx} has neither in-memory media nor a data root")
        return read_visual(media_path(self.root, self.file_name[i]))


def media_path(root: Path, name: str) -> Path:
    """Where the official layout keeps a file: video/ for videos, image/ for the rest."""
    sub = "video" if name.lower().endswith(VIDEO_EXT) else "image"
    path = Path(root) / sub / name
    if not path.is_file():
        alt = Path(root) / name
        if alt.is_file():
            return alt
        raise UserError(f"media file not found: {path}")
    return path


def read_visual(path: Path) -> np.ndarray:
    """An image as (H, W, 3) or a video as (T, H, W, 3), uint8; one-line UserError when unreadable."""
    from PIL import Image

    from iclr25.core.io import read_image

    if path.suffix.lower() in VIDEO_EXT:
        return decode_video(path)
    Image.MAX_IMAGE_PIXELS = 64_000_000
    return read_image(path, "PhysBench image", mode="RGB")


def decode_video(path: Path) -> np.ndarray:
    """All frames of a video (PyAV) as (T, H, W, 3) uint8."""
    import av

    frames = []
    try:
        with av.open(str(path)) as container:
            for frame in container.decode(video=0):
                frames.append(frame.to_ndarray(format="rgb24"))
                if len(frames) > _MAX_FRAMES:
                    raise UserError(f"video {path} has more than {_MAX_FRAMES} frames")
    except UserError:
        raise
    except Exception as e:  # av raises InvalidDataError, OSError, ...
        raise UserError(f"cannot decode video {path}: {' '.join(str(e).split())[:160]}") from None
    if not frames:
        raise UserError(f"video {path} has no frames")
    return np.stack(frames)


def sample_indices(total: int, n: int = 8) -> np.ndarray:
    """n frame indices spread uniformly over [0, total - 1], both ends included (the official
    `test_frame=8` sampler); fewer frames than n gives every frame once."""
    if total < 1 or n < 1:
        raise UserError(f"need at least one frame and n >= 1, got total={total}, n={n}")
    if total <= n:
        return np.arange(total)
    return np.linspace(0, total - 1, n).round().astype(int)


def frames(item: Item, n: int = 8, grid: bool = False) -> list[np.ndarray]:
    """The images a model sees for `item`, in file order: an image as itself, a video as n uniformly
    sampled frames - or, with `grid`, tiled into one numbered 2x2 image (single-image models)."""
    out: list[np.ndarray] = []
    for i in range(len(item.file_name)):
        v = item.visual(i)
        if v.ndim == 4:  # (T, H, W, 3) video
            picked = [v[j] for j in sample_indices(len(v), n)]
            out.extend([tile_grid(picked)] if grid else picked)
        else:
            out.append(v)
    return out


def tile_grid(images: list[np.ndarray], shape: tuple[int, int] = (2, 2)) -> np.ndarray:
    """Tile up to rows*cols frames (sub-sampled uniformly when there are more) into one image, each
    tile numbered in its corner as the official harness does for single-image models."""
    from PIL import Image, ImageDraw

    rows, cols = shape
    picked = [images[j] for j in sample_indices(len(images), rows * cols)]
    h, w = picked[0].shape[:2]
    canvas = Image.new("RGB", (cols * w, rows * h), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    for k, img in enumerate(picked):
        r, c = divmod(k, cols)
        canvas.paste(Image.fromarray(np.ascontiguousarray(img[..., :3])), (c * w, r * h))
        draw.rectangle((c * w, r * h, c * w + 9, r * h + 11), fill=(255, 255, 255))
        draw.text((c * w + 2, r * h), str(k + 1), fill=(0, 0, 0))
    return np.asarray(canvas)


def _check_record(r: Any, where: str) -> dict[str, Any]:
    if not isinstance(r, dict):
        raise UserError(f"{where}: every record must be a JSON object, got {type(r).__name__}")
    for key in ("idx", "question", "file_name"):
        if key not in r:
            raise UserError(f"{where}: record lacks field {key!r}")
    if not isinstance(r["idx"], int) or isinstance(r["idx"], bool):
        raise UserError(f"{where}: idx must be an integer, got {str(r['idx'])[:40]!r}")
    if not isinstance(r["question"], str):
        raise UserError(f"{where}: question of idx {r['idx']} must be text")
    names = r["file_name"]
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise UserError(f"{where}: file_name of idx {r['idx']} must be a list of file names")
    if any(Path(x).is_absolute() or ".." in Path(x).parts for x in names):
        raise UserError(f"{where}: file_name of idx {r['idx']} leaves the data folder")
    return {**r, "file_name": names}


def load(root: str | Path, split: str = "val", mode: str = "general") -> list[Item]:
    """The questions of `split` from `root/test.json`. `mode` selects as the official harness does:
    'image-only' keeps single-image questions, 'image&video' adds single-video ones, 'general' keeps all
    (interleaved included)."""
    if split not in SPLITS:
        raise UserError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    if mode not in MODES:
        raise UserError(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
    root = Path(root)
    if not root.is_dir():
        raise UserError(f"data root is not a folder: {root}")
    path = root / "test.json"
    if not path.is_file():
        raise UserError(f"{root} has no test.json (the official PhysBench layout)")
    records = read_json(path, "PhysBench test.json")
    if not isinstance(records, list):
        raise UserError(f"{path} must hold a JSON list of question records")
    keep = MODES[: MODES.index(mode) + 1]
    items, seen = [], set()
    for r in records:
        r = _check_record(r, str(path))
        if r["idx"] in seen:
            raise UserError(f"{path}: duplicate idx {r['idx']}")
        seen.add(r["idx"])
        if r.get("split", split) != split or r.get("mode", "image-only") not in keep:
            continue
        items.append(
            Item(
                idx=r["idx"],
                question=r["question"],
                file_name=r["file_name"],
                mode=r.get("mode", "image-only"),
                split=r.get("split", split),
                description=r.get("description"),
                object=r.get("object"),
                scene=r.get("scene"),
                source=r.get("source"),
                root=root,
            )
        )
    if not items:
        raise UserError(f"{path} holds no {split!r} questions in mode {mode!r}")
    return items
