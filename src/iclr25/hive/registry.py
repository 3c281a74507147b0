"""Model selection under the user's preferences (spec §2 step 7): the Capability Knowledge Graph (C-KG)
as a registry of model cards, `Preferences` (licenses, size cap, preferred benchmark per task), and
`Registry.select`: filter by task, license and size, then rank by the preferred benchmark score. An
empty feasible set raises `Infeasible`, naming the constraint that emptied it."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError

# action of the domain files -> the Hugging Face task tags of models that can run it
ACTION_TASKS = {
    "audio_to_text": ("automatic-speech-recognition",),
    "text_to_audio": ("text-to-audio", "text-to-speech"),
    "audio_to_audio": ("audio-to-audio",),
    "text_to_image": ("text-to-image",),
    "image_refinement": ("image-to-image",),
    "image_segmentation": ("image-segmentation",),
    "estimate_depth_of_image": ("depth-estimation",),
    "classify_image": ("image-classification",),
    "detect_objects_in_image": ("object-detection",),
    "caption_image": ("image-to-text",),
    "answer_question_based_on_image": ("visual-question-answering",),
    "get_translation": ("translation",),
    "back_translation": ("translation",),
    "translation_evaluation": ("translation-evaluation",),
    "summarization_evaluation": ("summarization-evaluation",),
    "get_answer_when_context_is_given": ("question-answering",),
    "get_answer_when_data_or_table_is_given": ("table-question-answering", "text2text-generation"),
    "generate_answer_without_context": ("text-generation",),
    "get_extractive_summarization": ("summarization",),
    "get_abstractive_summarization": ("summarization",),
    "get_instruction_based_summary": ("summarization", "text-generation"),
    "classify_text": ("zero-shot-classification", "text-classification"),
    "find_sentiment": ("text-classification",),
    "classify_spam": ("text-classification",),
    "generate_or_write_text": ("text-generation",),
    "generate_or_write_code": ("text-generation",),
    "get_named_entities": ("token-classification",),
    "get_part_of_speech": ("token-classification",),
}
LOWER_IS_BETTER = re.compile(r"error|wer|cer|rmse|loss|perplexity|fid|\bmae\b|\bmse\b|abs", re.IGNORECASE)
ANY_LICENSE = "any_license"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class ModelCard:
    id: str
    task: str  # Hugging Face task tag ("automatic-speech-recognition")
    license: str = UNKNOWN
    params: float | None = None  # parameter count; None = unknown
    downloads: float = 0.0
    scores: tuple[tuple[str, str, float], ...] = ()  # (benchmark dataset, metric, value)
    organisation: str = ""
    code: str = ""  # the C-KG's "Python Code" action name

    def score(self, dataset: str, metric: str) -> float | None:
        return next((v for d, m, v in self.scores if d == dataset and m == metric), None)


@dataclass(frozen=True)
class Preferences:
    """The user's constraints: licenses (None = any), a size cap in parameters (None = none), and per
    task the (benchmark dataset, metric) to rank by."""

    licenses: tuple[str, ...] | None = None
    max_params: float | None = None
    benchmarks: dict[str, tuple[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.licenses is not None and not self.licenses:
            raise UserError("licenses must be a non-empty list or 'any_license'")
        if self.max_params is not None and not (math.isfinite(self.max_params) and self.max_params > 0):
            raise UserError(f"size limit must be a positive number of parameters, got {self.max_params!r}")

    @classmethod
    def from_dict(cls, d: Any) -> Preferences:
        """The paper's JSON: {"licenses": [...] | "any_license", "size": "no_constraints" | 7e9 | "7B",
        "benchmarks": {task: {dataset: metric}}}."""
        if not isinstance(d, dict):
            raise UserError(f"preferences must be a JSON object, got {type(d).__name__}")
        unknown = set(d) - {"licenses", "size", "benchmarks"}
        if unknown:
            raise UserError(f"unknown preference {sorted(unknown)[0]!r} (use licenses, size, benchmarks)")
        lic = d.get("licenses", ANY_LICENSE)
        if lic == ANY_LICENSE or lic == [ANY_LICENSE]:
            licenses = None
        elif isinstance(lic, list) and lic and all(isinstance(x, str) and x for x in lic):
            licenses = tuple(x.lower() for x in lic)
        else:
            raise UserError(f"licenses must be a list of license names or 'any_license', got {lic!r}"[:200])
        bench = d.get("benchmarks", {})
        if not isinstance(bench, dict):
            raise UserError("benchmarks must be an object {task: {dataset: metric}}")
        benchmarks = {}
        for task, v in bench.items():
            if not (
                isinstance(v, dict) and len(v) == 1 and all(isinstance(x, str) for x in (*v, *v.values()))
            ):
                raise UserError(f"benchmarks[{task!r}] must be one {{dataset: metric}} pair"[:200])
            benchmarks[task] = next(iter(v.items()))
        return cls(licenses, parse_size(d.get("size", "no_constraints")), benchmarks)

    @classmethod
    def load(cls, path: str | Path) -> Preferences:
        from iclr25.core.io import read_json

        return cls.from_dict(read_json(Path(path), "preferences", max_bytes=1 << 20))

    def to_dict(self) -> dict[str, Any]:
        return {
            "licenses": list(self.licenses) if self.licenses else ANY_LICENSE,
            "size": self.max_params if self.max_params is not None else "no_constraints",
            "benchmarks": {t: {d: m} for t, (d, m) in self.benchmarks.items()},
        }


def parse_size(size: Any) -> float | None:
    """'no_constraints' -> None; 7e9, '7B', '350M', '1.5k' -> parameters."""
    if size in (None, "no_constraints"):
        return None
    if isinstance(size, bool):
        raise UserError(f"size must be a number of parameters or 'no_constraints', got {size!r}")
    if isinstance(size, int | float):
        value = float(size)
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmbt]?)\s*", str(size), re.IGNORECASE)
        if not m:
            raise UserError(
                f"size must be a number of parameters (7e9, '7B') or 'no_constraints', got {str(size)[:40]!r}"
            )
        value = float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}[m.group(2).lower()]
    if not (math.isfinite(value) and value > 0):
        raise UserError(f"size must be a positive number of parameters, got {size!r}")
    return value


class Infeasible(UserError):
    """No model satisfies the constraints; `constraint` names the one that emptied the set."""

    def __init__(self, task: str, constraint: str) -> None:
        self.task, self.constraint = task, constraint
        super().__init__(f"no model for {task!r} satisfies {constraint}")


@dataclass(frozen=True)
class Selection:
    model: ModelCard
    task: str
    considered: int  # models of this task
    feasible: int  # after the hard constraints
    ranked_by: str  # "squad/f1 (higher is better)" or "downloads"


def violations(m: ModelCard, prefs: Preferences) -> list[str]:
    """The hard constraints `m` breaks (unknown size breaks any size cap)."""
    out = []
    if prefs.licenses is not None and m.license not in prefs.licenses:
        out.append(f"license {m.license!r} not in {list(prefs.licenses)}")
    if prefs.max_params is not None and (m.params is None or m.params > prefs.max_params):
        out.append(f"size {m.params if m.params is not None else 'unknown'} > {prefs.max_params:g}")
    return out


def rank_key(m: ModelCard, bench: tuple[str, str] | None) -> tuple:
    """Sort key, best first: preferred benchmark score (direction by metric name), then downloads, id."""
    s = m.score(*bench) if bench else None
    primary = (1, 0.0) if s is None else (0, s if LOWER_IS_BETTER.search(bench[1]) else -s)
    return (*primary, -m.downloads, m.id)


class Registry:
    """Model cards indexed by task."""

    def __init__(self, models: Iterable[ModelCard]) -> None:
        self.models = list(models)
        ids = [m.id for m in self.models]
        dup = next((i for i in ids if ids.count(i) > 1), None) if len(set(ids)) != len(ids) else None
        if dup is not None:
            raise UserError(f"model {dup!r} appears twice in the registry")
        self._by_task: dict[str, list[ModelCard]] = {}
        for m in self.models:
            self._by_task.setdefault(m.task, []).append(m)

    def __len__(self) -> int:
        return len(self.models)

    @property
    def tasks(self) -> list[str]:
        return sorted(self._by_task)

    def task_tags(self, task: str) -> tuple[str, ...]:
        """A task tag, or the tags of a plan action."""
        return ACTION_TASKS.get(task, (task,))

    def candidates(self, task: str) -> list[ModelCard]:
        return [m for t in self.task_tags(task) for m in self._by_task.get(t, [])]

    def feasible(self, task: str, prefs: Preferences) -> list[ModelCard]:
        return [m for m in self.candidates(task) if not violations(m, prefs)]

    def select(self, task: str, prefs: Preferences | None = None) -> Selection:
        """Filter by task, license and size (in that order), rank by the preferred benchmark."""
        prefs = prefs or Preferences()
        pool = self.candidates(task)
        if not pool:
            raise Infeasible(task, f"task (no model is registered for {task!r})")
        considered = len(pool)
        if prefs.licenses is not None:
            pool = [m for m in pool if m.license in prefs.licenses]
            if not pool:
                raise Infeasible(task, f"licenses {list(prefs.licenses)}")
        if prefs.max_params is not None:
            pool = [m for m in pool if m.params is not None and m.params <= prefs.max_params]
            if not pool:
                raise Infeasible(task, f"size <= {prefs.max_params:g} parameters")
        bench = next(
            (prefs.benchmarks[t] for t in (task, *self.task_tags(task)) if t in prefs.benchmarks), None
        )
        best = min(pool, key=lambda m: rank_key(m, bench))
        how = f"{bench[0]}/{bench[1]}" if bench else "downloads"
        return Selection(best, task, considered, len(pool), how)

    # ---- loaders --------------------------------------------------------------------------------
    @classmethod
    def from_kg(cls, nodes: list[dict], edges: list[dict]) -> Registry:
        """The C-KG's vis.js nodes and edges. Metric nodes are shared between models, so each
        (model, benchmark, metric, score) is rebuilt from edge order: a Benchmark edge opens a
        (model, benchmark), its Metric edge a metric, the next Score edge closes it."""
        value = {}
        for n in nodes:
            value.setdefault(str(n.get("id")), float(n.get("value", 0) or 0))
        cards: dict[str, dict[str, Any]] = {}
        model_of_bench: dict[str, str] = {}
        open_metric: tuple[str, str, str] | None = None
        for e in edges:
            src, dst, kind = str(e.get("from")), str(e.get("to")), str(e.get("title", ""))
            if kind == "organisation":
                cards.setdefault(src, {})["organisation"] = dst
            elif kind == "Main Task":
                cards.setdefault(src, {})["task"] = dst
            elif kind == "License":
                cards.setdefault(src, {})["license"] = dst.lower()
            elif kind == "Python Code":
                cards.setdefault(src, {})["code"] = dst
            elif kind == "Benchmark":
                model_of_bench[dst] = src
                cards.setdefault(src, {})
            elif kind == "Metric":
                if src not in model_of_bench:
                    raise UserError(
                        f"C-KG edge Metric {src!r} -> {dst!r} comes before any Benchmark edge to {src!r}"
                    )
                open_metric = (model_of_bench[src], src, dst)
            elif kind == "Score":
                if open_metric is None or open_metric[2] != src:
                    raise UserError(f"C-KG edge Score {src!r} -> {dst!r} follows no Metric edge to {src!r}")
                try:
                    v = float(dst.rstrip("%"))  # the excerpt writes some scores as "70.5%"
                except ValueError:
                    raise UserError(f"C-KG score {dst!r} of {open_metric[0]} is not a number") from None
                cards[open_metric[0]].setdefault("scores", []).append((open_metric[1], open_metric[2], v))
                open_metric = None
        models = [
            ModelCard(
                mid,
                c["task"],
                c.get("license", UNKNOWN),
                None,
                value.get(mid, 0.0),
                tuple(c.get("scores", [])),
                c.get("organisation", ""),
                c.get("code", ""),
            )
            for mid, c in cards.items()
            if "task" in c
        ]
        return cls(models)

    @classmethod
    def from_kg_files(cls, folder: str | Path) -> Registry:
        """The shipped excerpt: `nodes_*.js` and `edges_*.js` (vis.js arrays) of a folder."""
        folder = Path(folder)
        nodes_f, edges_f = sorted(folder.glob("nodes*.js")), sorted(folder.glob("edges*.js"))
        if not nodes_f or not edges_f:
            raise UserError(f"{folder} lacks nodes*.js / edges*.js")
        return cls.from_kg(_vis_array(nodes_f[-1]), _vis_array(edges_f[-1]))

    @classmethod
    def from_jsonl(cls, path: str | Path) -> Registry:
        """One JSON model card per line: {"id", "task", "license", "params", "downloads",
        "scores": [{"dataset", "metric", "value"}]}."""
        p = Path(path)
        if not p.is_file():
            raise UserError(f"registry file not found: {p}")
        if p.stat().st_size > 64 << 20:
            raise UserError(f"registry file {p} is larger than 64 MiB")
        try:
            lines = p.read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError) as e:
            raise UserError(f"cannot read registry {p}: {type(e).__name__}") from None
        models = []
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except (ValueError, RecursionError):
                raise UserError(f"{p}:{i}: not a JSON object") from None
            models.append(_card(d, f"{p}:{i}"))
        if not models:
            raise UserError(f"registry {p} holds no model cards")
        return cls(models)

    def to_jsonl(self) -> str:
        return "".join(
            json.dumps(
                {
                    "id": m.id,
                    "task": m.task,
                    "license": m.license,
                    "params": m.params,
                    "downloads": m.downloads,
                    "scores": [{"dataset": d, "metric": k, "value": v} for d, k, v in m.scores],
                }
            )
            + "\n"
            for m in self.models
        )


def _card(d: Any, where: str) -> ModelCard:
    if not isinstance(d, dict):
        raise UserError(f"{where}: a model card must be a JSON object")
    for key in ("id", "task"):
        if not isinstance(d.get(key), str) or not d[key].strip():
            raise UserError(f"{where}: model card needs a non-empty string {key!r}")
    params = d.get("params")
    if params is not None:
        params = parse_size(params)
    downloads = d.get("downloads", 0)
    if isinstance(downloads, bool) or not isinstance(downloads, int | float) or not math.isfinite(downloads):
        raise UserError(f"{where}: downloads must be a finite number")
    scores = []
    for s in d.get("scores", []) or []:
        ok = (
            isinstance(s, dict)
            and isinstance(s.get("dataset"), str)
            and isinstance(s.get("metric"), str)
            and isinstance(s.get("value"), int | float)
            and not isinstance(s.get("value"), bool)
            and math.isfinite(s["value"])
        )
        if not ok:
            raise UserError(f"{where}: each score needs a string dataset and metric and a finite value")
        scores.append((s["dataset"], s["metric"], float(s["value"])))
    lic = d.get("license") or UNKNOWN
    if not isinstance(lic, str):
        raise UserError(f"{where}: license must be a string")
    return ModelCard(d["id"], d["task"], lic.lower(), params, float(downloads), tuple(scores))


_VIS_ITEM = re.compile(r"\{(.*?)\}\s*,?\s*$")
_VIS_FIELD = re.compile(r'"?(\w+)"?\s*:\s*("(?:[^"\\]|\\.)*"|[-+0-9.eE]+)')


def _vis_array(path: Path) -> list[dict[str, Any]]:
    """Objects of a `var x = [ {k: v, ...}, ... ];` file (unquoted keys), one per line."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _VIS_ITEM.search(line.strip())
        if not m:
            continue
        item = {}
        for k, v in _VIS_FIELD.findall(m.group(1)):
            item[k] = json.loads(v) if v.startswith('"') else float(v)
        out.append(item)
    if not out:
        raise UserError(f"{path} holds no vis.js objects")
    return out
