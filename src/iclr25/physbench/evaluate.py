"""Running a model over PhysBench items: `evaluate(model, items)` for anything with
`qa(images, prompt, mode) -> str`, and `OpenAICompatibleVLM`, a client for a served VLM (vLLM, llama.cpp
server, any /v1/chat/completions endpoint) that sends the images as base64 PNG data URLs."""

from __future__ import annotations

import base64
import io
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.core.runtime import progress
from iclr25.physbench.harness import Item, frames
from iclr25.physbench.scoring import Report, score
from iclr25.physbench.taxonomy import GRID_PREFIX


def ask(model: Any, item: Item, n_frames: int = 8, grid: bool = False) -> str:
    """One item: videos as n_frames uniform frames (with `grid`, tiled into the numbered 2x2 image of
    single-image models, the official prompt prefixed as the official harness does), the official
    prompt; PhysAgent (`qa_item`) reads the whole item."""
    if hasattr(model, "qa_item"):
        return str(model.qa_item(item)).strip()
    prompt = item.prompt()
    if grid and any(item.visual(i).ndim == 4 for i in range(len(item.file_name))):
        prompt = GRID_PREFIX + prompt
    return str(model.qa(frames(item, n_frames, grid=grid), prompt, item.mode)).strip()


def evaluate(
    model: Any,
    items: Sequence[Item],
    answers: list[dict[str, Any]] | None = None,
    n_frames: int = 8,
    lenient: bool = False,
    grid: bool = False,
    skip_failures: bool = False,
) -> tuple[dict[int, str], Report | None]:
    """Ask `model` every item; returns the raw predictions idx -> reply and, when `answers` are given,
    the official `Report`. `skip_failures`: a request that fails (server error, timeout) leaves that item
    without a prediction instead of stopping the run (unless the first three all fail: the server is
    down); the report then counts every question without a prediction as wrong."""
    if not (hasattr(model, "qa") or hasattr(model, "qa_item")):
        raise UserError(f"model {type(model).__name__} has no qa(images, prompt, mode) method")
    preds: dict[int, str] = {}
    failed = 0
    for k, it in enumerate(progress(list(items), "asking the model")):
        try:
            preds[it.idx] = ask(model, it, n_frames, grid)
        except UserError:
            failed += 1
            if not skip_failures or failed == k + 1 == 3:
                raise
    rep = None
    if answers is not None:
        asked = {it.idx for it in items}
        rep = score(preds, [a for a in answers if a["idx"] in asked], lenient=lenient,
                    missing="wrong" if skip_failures else "drop")
    return preds, rep


def _png_data_url(img: np.ndarray) -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(img[..., :3]).astype(np.uint8)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


@dataclass
class OpenAICompatibleVLM:
    """A served VLM behind an OpenAI-compatible chat endpoint. Greedy decoding, short answers, as the
    official harness. `base_url` is e.g. http://127.0.0.1:8000/v1."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    max_tokens: int = 16
    calls: int = 0

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise UserError(f"base URL must start with http:// or https://, got {self.base_url[:80]!r}")
        if not self.model.strip():
            raise UserError("model name is empty")

    def qa(self, images: list[np.ndarray], prompt: str, mode: str) -> str:
        text = (
            prompt.replace("<image>\n", "")
            .replace("<video>\n", "")
            .replace("<image>", "")
            .replace("<video>", "")
        )
        content: list[dict[str, Any]] = [
            {"type": "image_url", "image_url": {"url": _png_data_url(im)}} for im in images
        ]
        content.append({"type": "text", "text": text})
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        req = urllib.request.Request(
            self.base_url.rstrip("/") + "/chat/completions",
            data=json.dumps(body).encode(),
            method="POST",
            headers={
                "Content-Type": "application/json",
                **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}),
            },
        )
        self.calls += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                reply = json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            raise UserError(f"VLM server at {self.base_url} answered HTTP {e.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", e)
            raise UserError(
                f"cannot reach a VLM server at {self.base_url}: {' '.join(str(reason).split())[:120]}"
            ) from None
        try:
            return str(reply["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError):
            raise UserError(f"VLM server at {self.base_url} sent no choices[0].message.content") from None
