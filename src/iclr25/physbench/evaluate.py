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


def evaluate(
    model: Any,
    items: Sequence[Item],
    answers: list[dict[str, Any]] | None = None,
    n_frames: int = 8,
    lenient: bool = False,
) -> tuple[dict[int, str], Report | None]:
    """Ask `model` every item (videos as n_frames uniform frames, the official prompt); returns the raw
    predictions idx -> reply and, when `answers` are given, the official `Report`."""
    if not (hasattr(model, "qa") or hasattr(model, "qa_item")):
        raise UserError(f"model {type(model).__name__} has no qa(images, prompt, mode) method")
    preds: dict[int, str] = {}
    for it in progress(list(items), "asking the model"):
        if hasattr(model, "qa_item"):  # PhysAgent reads the whole item (description, option images)
            reply = model.qa_item(it)
        else:
            reply = model.qa(frames(it, n_frames), it.prompt(), it.mode)
        preds[it.idx] = str(reply).strip()
    return preds, (score(preds, answers, lenient=lenient) if answers is not None else None)


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
