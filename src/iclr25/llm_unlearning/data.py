"""TOFU question-answer data: JSON-lines loading with validation, the 100 refusal ("I don't know")
templates, the prompt format shared by training, unlearning and evaluation, and the "world" a TinyGPT
is fine-tuned on (forget authors + retain authors + Real Authors / World Facts)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from iclr25.core.errors import UserError

QA = dict  # {"question", "answer", optional: "paraphrased_answer", "perturbed_answer", "original_answer",
#           "task_id"}
TOFU_DIR = "16-llm-unlearning"
QA_PER_AUTHOR = 20  # TOFU: 20 questions per fictitious author, stored author by author
MAX_ROWS = 200_000  # a larger file is refused (TOFU's biggest split has 3,600 rows)


def idk_templates() -> list[str]:
    """TOFU's 100 refusal templates (locuslab/tofu `idontknow.jsonl`, MIT), shipped with this package."""
    path = Path(__file__).with_name("idontknow.txt")
    return [t.strip() for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]


def prompt(question: str) -> str:
    """The question as the model sees it; the answer follows after one space."""
    return f"Question: {question} Answer:"


def _check_qa(row: object, where: str, need: Sequence[str]) -> QA:
    if not isinstance(row, dict):
        raise UserError(f"{where}: expected a JSON object with 'question' and 'answer', got "
                        f"{type(row).__name__}")
    for key in need:
        if key not in row:
            raise UserError(f"{where}: missing key {key!r}")
        if not isinstance(row[key], str) or not row[key].strip():
            raise UserError(f"{where}: {key!r} must be a non-empty string")
    if "perturbed_answer" in row:
        pert = row["perturbed_answer"]
        if not isinstance(pert, list) or not pert or not all(isinstance(p, str) and p.strip() for p in pert):
            raise UserError(f"{where}: 'perturbed_answer' must be a non-empty list of strings")
    for key in ("paraphrased_answer", "original_answer"):
        if key in row and (not isinstance(row[key], str) or not row[key].strip()):
            raise UserError(f"{where}: {key!r} must be a non-empty string")
    return dict(row)


def check_qas(rows: Sequence[object], what: str, need: Sequence[str] = ("question", "answer")) -> list[QA]:
    """Validated copies of question-answer records (one-line UserError naming the bad row)."""
    if isinstance(rows, str | bytes) or not isinstance(rows, Sequence):
        raise UserError(f"{what} must be a list of question-answer records")
    if not rows:
        raise UserError(f"{what} is empty")
    return [_check_qa(r, f"{what} row {i}", need) for i, r in enumerate(rows)]


def load_tofu(path: str | os.PathLike, what: str = "TOFU file",
              need: Sequence[str] = ("question", "answer")) -> list[QA]:
    """Records of a TOFU JSON-lines file (one object per line: question, answer, and optionally
    paraphrased_answer, perturbed_answer, original_answer, task_id)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{what} not found or not a file: {path}")
    rows = []
    try:
        with path.open(encoding="utf-8") as f:
            for i, line in enumerate(f):
                if i >= MAX_ROWS:
                    raise UserError(f"{what} {path} has more than {MAX_ROWS} lines")
                if line.strip():
                    rows.append(json.loads(line))
    except UserError:
        raise
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, OSError) as e:
        raise UserError(f"cannot read {what} {path}: {type(e).__name__} at line {len(rows) + 1}") from None
    if not rows:
        raise UserError(f"{what} {path} holds no records")
    return check_qas(rows, f"{what} {path.name}", need)


def real_world_train(rows: Sequence[QA]) -> list[QA]:
    """Real Authors / World Facts rows the model is fine-tuned on: question -> original_answer, kept only
    where the sentence contains the short answer (so the fact is learnable from it)."""
    return [r for r in rows if r["answer"].lower() in r.get("original_answer", "").lower()]


@dataclass
class World:
    """What a TinyGPT learns: forget authors (by continual task), retain authors, Real Authors and World
    Facts; `evaluation` sets carry paraphrased and perturbed answers."""

    forget_tasks: dict[int, list[QA]]  # task id -> 40 QA (2 authors)
    retain: list[QA]  # retain authors' QA (training and the retain regulariser)
    real_authors: list[QA]
    world_facts: list[QA]
    retain_eval: list[QA] = field(default_factory=list)  # retain QA with perturbed answers
    vocab_rows: list[QA] = field(default_factory=list)  # every text the tokenizer must know

    def forget(self, tasks: Sequence[int]) -> list[QA]:
        return [qa for t in tasks for qa in self.forget_tasks[t]]

    def training_qa(self, with_forget: bool = True) -> list[QA]:
        """The fine-tuning set: forget (unless the retain-only model), retain, RA/WF question ->
        original_answer."""
        rw = [{**r, "answer": r["original_answer"]} for r in self.real_authors + self.world_facts]
        return (self.forget(sorted(self.forget_tasks)) if with_forget else []) + self.retain + rw


def tofu_world(root: str | os.PathLike, tasks: Sequence[int], n_retain_authors: int,
               n_real: int | None, full_vocab: bool = True) -> World:
    """The TOFU world from the data folder: forget01 tasks, the first `n_retain_authors` retain90 authors,
    the first `n_real` learnable Real Authors / World Facts rows (None: all). `full_vocab`: the tokenizer
    covers every text of the TOFU files (one vocabulary for every choice of tasks), else only this world's."""
    root = Path(root)
    forget = load_tofu(root / "forget01_perturbed.json", "forget01_perturbed")
    retain = load_tofu(root / "retain90.json", "retain90")[:n_retain_authors * QA_PER_AUTHOR]
    retain_pert = {r["question"]: r for r in load_tofu(root / "retain_perturbed.json", "retain_perturbed")}
    ra = real_world_train(load_tofu(root / "real_authors_perturbed.json", "real_authors"))[:n_real]
    wf = real_world_train(load_tofu(root / "world_facts_perturbed.json", "world_facts"))[:n_real]
    wanted = {int(t) for t in tasks}
    forget_tasks: dict[int, list[QA]] = {}
    for r in forget:
        t = int(r.get("task_id", 1))
        if t in wanted:
            forget_tasks.setdefault(t, []).append(r)
    missing = sorted(wanted - set(forget_tasks))
    if missing:
        raise UserError(f"forget01 has no task {missing[0]}")
    retain_eval = [retain_pert[r["question"]] for r in retain if r["question"] in retain_pert]
    vocab = forget + retain_eval + ra + wf if full_vocab else \
        [r for t in sorted(forget_tasks) for r in forget_tasks[t]] + retain_eval + ra + wf
    return World(forget_tasks, retain, ra, wf, retain_eval, vocab_rows=vocab)
