"""MuSE (the paper's benchmark, 100 queries) and the 10 shipped PDDL domains, read in place from the
shared data folder (no license: never packaged). Media paths are fixed for the snapshot's quirks
(spec §8: `image_1.jpeg` is `image_1.jpg`, `image_19.png` is `image_19.jpg`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from iclr25.core.errors import UserError
from iclr25.hive.pddl import Domain
from iclr25.hive.tasks import LABEL_ACTION, gold_flows

DATA_NAME = "07-hive"
# A media path is a whole run of path characters ending in a media extension. The match starts only at
# the start of a run and the run has one split, so a long word costs linear time (a lazy prefix before
# [\w-]+ had cubic backtracking: 5,000 letters took minutes).
MEDIA = re.compile(r"(?<![\w./-])[\w./-]*[\w-]\.(?:wav|mp3|ogg|flac|jpe?g|png|bmp|gif|webp)\b", re.IGNORECASE)
AUDIO_EXT = (".wav", ".mp3", ".ogg", ".flac")
IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".gif", ".webp")


@dataclass(frozen=True)
class Query:
    idx: int
    text: str
    input_type: tuple[str, ...]
    output_type: str
    domains: tuple[str, ...]
    tasks: tuple[str, ...]  # unordered gold labels

    @property
    def actions(self) -> list[str]:
        return [LABEL_ACTION[t] for t in self.tasks]

    @property
    def setting(self) -> str:
        """The input -> output modality setting (the paper's Table 2 rows)."""
        return f"{'+'.join(self.input_type)}->{self.output_type}"

    @property
    def gold_flow(self) -> list[tuple[str, str]]:
        return [(LABEL_ACTION[a], LABEL_ACTION[b]) for a, b in gold_flows().get(self.idx, [])]


def data_root(root: str | Path | None = None) -> Path | None:
    """The 07-hive data folder (None when absent)."""
    if root is not None:
        return Path(root)
    from iclr25.core.data import shared_data

    return shared_data(DATA_NAME)


def load_queries(root: str | Path | None = None) -> list[Query]:
    base = data_root(root)
    path = (base or Path(DATA_NAME)) / "MuSE_Benchmark" / "queries.json"
    if not path.is_file():
        raise UserError(f"MuSE queries not found: {path}")
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        Query(
            int(q["idx"]),
            q["input"],
            tuple(q["input_type"].split(",")),
            q["output_type"],
            tuple(q["domains"]),
            tuple(q["tasks"]),
        )
        for q in raw
    ]


def load_domains(folder: str | Path | None = None) -> dict[str, Domain]:
    """Every `*-domain.pddl` (or `*.pddl`) of a folder, by domain name."""
    if folder is None:
        base = data_root()
        if base is None:
            raise UserError(f"the {DATA_NAME} data folder is absent; pass --domain-dir")
        folder = base / "PDDL-domain-files"
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"domain folder not found: {folder}")
    files = sorted(folder.glob("*.pddl"))
    if not files:
        raise UserError(f"no .pddl files in {folder}")
    out: dict[str, Domain] = {}
    for f in files:
        d = Domain.load(f)
        out[d.name] = d
    return out


def media_in(text: str, base: str | Path = ".") -> list[Path]:
    """Media files the query names, resolved against `base`; a missing file whose stem exists with
    another extension of the same kind (the snapshot's quirks) resolves to that file."""
    out = []
    for m in MEDIA.findall(text):
        p = Path(base) / m
        if not p.is_file():
            kind = AUDIO_EXT if p.suffix.lower() in AUDIO_EXT else IMAGE_EXT
            alt = next((p.with_suffix(e) for e in kind if p.with_suffix(e).is_file()), None)
            if alt is None:
                raise UserError(f"missing media: {m} (looked in {Path(base).resolve()})")
            p = alt
        out.append(p)
    return out


def modality_of(path: Path) -> str:
    return "audio" if path.suffix.lower() in AUDIO_EXT else "image"
