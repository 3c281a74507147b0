"""A reader for the sample layout of the paper's released dataset (the authors' 37 GB zip, issue #52), so
users who have the files can run our tests on them:

    <root>/samples/<model>-<dataset>-<source>-L=<L>-<prompt id>.pkl

with <model> the Hugging Face name with "/" -> "-" (and spaces, brackets, commas sanitised as the official
code does). Local sources (fp32, fp16, nf4, int8, watermark) hold a list of token-id lists per prompt,
decoded here with the model's own `tokenizer.json` (cut after the first end-of-sequence); API sources
(amazon, azure, ...) hold {"samples": [{"full_completion": str, ...}, ...]}. The files are pickles: they
are read with an unpickler that builds only plain containers, numbers, strings and numpy arrays, and
refuses anything else (a pickle can otherwise run code)."""

from __future__ import annotations

import io
import pickle
import re
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError

SOURCES = ("fp32", "fp16", "nf4", "int8", "watermark", "anyscale", "amazon", "fireworks", "replicate",
           "deepinfra", "groq", "perplexity", "together", "azure")
LOCAL_SOURCES = SOURCES[:5]
_SAFE = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
         ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
         ("numpy._core.multiarray", "scalar"), ("collections", "OrderedDict"), ("collections", "defaultdict"),
         ("builtins", "list"), ("builtins", "dict"), ("builtins", "tuple"), ("builtins", "set"),
         ("builtins", "frozenset"), ("builtins", "str"), ("builtins", "int"), ("builtins", "float")}


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _SAFE:
            raise UserError(f"refusing to load {module}.{name} from a pickle: the dataset's files hold only "
                            "lists, dicts, strings, numbers and arrays")
        return super().find_class(module, name)


def safe_load(path: Path) -> Any:
    """Unpickle `path` allowing only plain data (see module docstring)."""
    try:
        return _SafeUnpickler(io.BytesIO(Path(path).read_bytes())).load()
    except UserError:
        raise
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError,
            KeyError, MemoryError, RecursionError) as e:
        raise UserError(f"{path}: not a readable sample file ({type(e).__name__})") from None


def sanitize(name: str) -> str:
    """The official code's file-name form of a model name.

    >>> sanitize("meta-llama/Meta-Llama-3-8B-Instruct")
    'meta-llama-Meta-Llama-3-8B-Instruct'
    """
    for old, new in ((" ", "-"), ("[", ""), ("]", ""), (",", "_"), ("/", "-"), ("(", ""), (")", "")):
        name = name.replace(old, new)
    return name


def sample_file(root: Path, model: str, dataset: str, source: str, prompt_id: int | str) -> Path:
    """The one file of (model, dataset, source, prompt), whatever its L; a UserError naming the pattern."""
    if source not in SOURCES:
        raise UserError(f"unknown source {source!r}; choose from {', '.join(SOURCES)}")
    folder = Path(root) / "samples"
    if not folder.is_dir():
        raise UserError(f"{root}: expected the dataset's folder with a samples/ subfolder")
    stem = f"{sanitize(model)}-{dataset}-{source}-L="
    pattern = re.compile(re.escape(stem) + r"\d+-" + re.escape(str(prompt_id)) + r"\.pkl")
    hits = sorted(p for p in folder.iterdir() if pattern.fullmatch(p.name))
    if not hits:
        raise UserError(f"no file {stem}<L>-{prompt_id}.pkl in {folder}")
    return hits[0]


def _decode_local(rows: Any, path: Path, tokenizer: Any, eos_id: int) -> list[str]:
    try:
        ids = [[int(t) for t in row] for row in rows]
    except (TypeError, ValueError):
        raise UserError(f"{path}: expected a list of token-id lists") from None
    cut = [row[:row.index(eos_id)] if eos_id in row else row for row in ids]
    return tokenizer.decode_batch(cut, skip_special_tokens=True)


def _api_texts(obj: Any, path: Path) -> list[str]:
    samples = obj.get("samples") if isinstance(obj, dict) else None
    ok = isinstance(samples, list) and all(isinstance(s, dict) and isinstance(s.get("full_completion"), str)
                                           for s in samples)
    if not ok:
        raise UserError(f"{path}: expected {{'samples': [{{'full_completion': str, ...}}, ...]}}")
    return [s["full_completion"] for s in samples]


def read_official(root: str | Path, model: str, source: str, prompts: dict[str, list[int | str]],
                  tokenizer: str | Path | None = None, eos_id: int | None = None) -> list[tuple[str, str]]:
    """(prompt key "<dataset>/<id>", completion text) rows for `source`'s samples of `model`, as
    `read_jsonl` gives them (so `samples_from_rows` and every test take them). Local sources need the
    model's `tokenizer.json` (and its end-of-sequence id, read from it when it names one)."""
    tok = None
    if source in LOCAL_SOURCES:
        if tokenizer is None:
            raise UserError(f"source {source!r} holds token ids: give the model's tokenizer.json to decode "
                            "them")
        from tokenizers import Tokenizer
        try:
            tok = Tokenizer.from_file(str(tokenizer))
        except Exception as e:  # the tokenizers library raises its own exception types
            raise UserError(f"{tokenizer}: not a tokenizer.json file ({type(e).__name__})") from None
        if eos_id is None:
            eos_id = next((tok.token_to_id(t) for t in ("<|eot_id|>", "<|end_of_text|>", "</s>", "<eos>")
                           if tok.token_to_id(t) is not None), None)
        if eos_id is None:
            raise UserError(f"{tokenizer} names no end-of-sequence token: give its id (--eos-id)")
    rows: list[tuple[str, str]] = []
    for dataset, ids in prompts.items():
        for pid in ids:
            path = sample_file(Path(root), model, dataset, source, pid)
            obj = safe_load(path)
            texts = _decode_local(obj, path, tok, eos_id) if tok is not None else _api_texts(obj, path)
            rows += [(f"{dataset}/{pid}", t) for t in texts if t]
    if not rows:
        raise UserError(f"no completions for {model} from {source}")
    return rows


def parse_prompts(spec: str) -> dict[str, list[str]]:
    """"wikipedia_en:0,1,4;wikipedia_es:5" -> {"wikipedia_en": ["0", "1", "4"], "wikipedia_es": ["5"]}.

    >>> parse_prompts("wikipedia_en:0,1;humaneval:3")
    {'wikipedia_en': ['0', '1'], 'humaneval': ['3']}
    """
    out: dict[str, list[str]] = {}
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        if ":" not in part:
            raise UserError(f"--prompts: expected dataset:id,id;dataset:id, got {part!r}")
        ds, ids = part.split(":", 1)
        items = [i.strip() for i in ids.split(",") if i.strip()]
        if not ds.strip() or not items or not all(re.fullmatch(r"[\w.-]+", i) for i in items):
            raise UserError(f"--prompts: expected dataset:id,id;dataset:id, got {part!r}")
        out.setdefault(ds.strip(), []).extend(items)
    if not out:
        raise UserError("--prompts: no prompts given")
    return out
