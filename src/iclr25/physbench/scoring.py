"""The official PhysBench scorer with its quirks kept (spec §8), an opt-in lenient letter extractor, the
per domain / sub-type / ability / mode `Report`, and the EvalAI submission writer.

Official rule (`answer_true`): a prediction is right iff `pred == gt or pred.startswith(gt)`. So "ABCD"
is credited when gt is "A", any prediction is credited when gt is blank (val idx 1011, 17 test rows), and
"The answer is B" is wrong. Accuracy divides by the number of submitted rows."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write
from iclr25.physbench.taxonomy import ABILITIES, MODES, SUB_TYPES, TASK_TYPES

ANSWER_FIELDS = ("idx", "answer", "task_type", "sub_type", "ability_type", "mode")
_LENIENT = (
    re.compile(r"answer\s*(?:is|:)?\s*\(?([ABCD])\b", re.I),  # "The answer is B", "Answer: (c)"
    re.compile(r"^\W*\(?([ABCD])\)?(?:[.:)\s]|$)"),  # "B", "(B)", "B. red", " C"
    re.compile(r"^\W*\(?([abcd])(?:\)|[.:](?:\s|$)|\s*$)"),  # a lone lower-case "d", "(c)", "b. red"
    re.compile(r"\b([ABCD])\b"),
)  # a standalone capital letter anywhere


def answer_true(pred: str, gt: str) -> bool:
    """The official rule: exact match or a prediction that starts with the label."""
    return pred == gt or pred.startswith(gt)


def lenient_letter(text: str) -> str:
    """Opt-in extraction of one letter from a free-form reply ('' when none is found): "the answer is
    b" -> "B", "(C) red" -> "C", "d" -> "D" (a lower-case letter only when it stands alone: "a ball" has
    none). Not the official rule; reported beside it, never instead of it."""
    text = str(text).strip()
    for pattern in _LENIENT:
        m = pattern.search(text)
        if m:
            return m.group(1).upper()
    return ""


@dataclass
class Report:
    """Accuracy overall and per task_type / sub_type / ability_type / mode. Each table maps a name to
    (correct, rows); `accuracy()` gives the percentages."""

    correct: int
    total: int
    missing: int = 0  # answer rows with no prediction, counted wrong (score(..., missing="wrong"))
    by_task: dict[str, tuple[int, int]] = field(default_factory=dict)
    by_sub: dict[str, tuple[int, int]] = field(default_factory=dict)
    by_ability: dict[str, tuple[int, int]] = field(default_factory=dict)
    by_mode: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def overall(self) -> float:
        return 100.0 * self.correct / self.total if self.total else float("nan")

    @staticmethod
    def accuracy(table: dict[str, tuple[int, int]]) -> dict[str, float]:
        return {k: 100.0 * c / n for k, (c, n) in table.items() if n}

    def to_dict(self) -> dict[str, Any]:
        acc = self.accuracy
        return {
            "overall": self.overall,
            "correct": self.correct,
            "rows": self.total,
            "missing_counted_wrong": self.missing,
            "task_type": acc(self.by_task),
            "sub_type": acc(self.by_sub),
            "ability_type": acc(self.by_ability),
            "mode": acc(self.by_mode),
        }

    def table(self) -> str:
        """A plain-text table in the official order (empty categories left out)."""
        lines = [f"overall  {self.overall:6.2f}  ({self.correct}/{self.total}; chance 25.00)"]
        if self.missing:
            lines[0] += f"  [{self.missing} rows without a prediction counted wrong]"
        for title, tab, order in (
            ("task_type", self.by_task, TASK_TYPES),
            ("sub_type", self.by_sub, SUB_TYPES),
            ("ability_type", self.by_ability, ABILITIES),
            ("mode", self.by_mode, MODES),
        ):
            lines.append(f"-- {title}")
            names = [k for k in order if k in tab] + sorted(k for k in tab if k not in order)
            for k in names:
                c, n = tab[k]
                lines.append(f"{k:<14} {100.0 * c / n:6.2f}  ({c}/{n})")
        return "\n".join(lines)


def check_answers(gt: Any, where: str = "answer file") -> dict[int, dict[str, Any]]:
    """Validate answer records (the official val_answer.json format) -> idx -> record."""
    if not isinstance(gt, list) or not gt:
        raise UserError(f"{where} must be a non-empty JSON list of answer records")
    out: dict[int, dict[str, Any]] = {}
    for r in gt:
        if not isinstance(r, dict):
            raise UserError(f"{where}: every record must be a JSON object")
        missing = [k for k in ANSWER_FIELDS if k not in r]
        if missing:
            raise UserError(
                f"{where}: record {str(r.get('idx', '?'))[:20]} lacks field(s) {', '.join(missing)}"
            )
        idx = r["idx"]
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise UserError(f"{where}: idx must be an integer, got {str(idx)[:40]!r}")
        if not all(isinstance(r[k], str) for k in ANSWER_FIELDS[1:]):
            raise UserError(f"{where}: fields of idx {idx} must be text")
        if idx in out:
            raise UserError(f"{where}: duplicate idx {idx}")
        out[idx] = r
    return out


def check_predictions(pred: Any, where: str = "prediction file") -> dict[int, str]:
    """Validate predictions (EvalAI format: a list of {idx, answer}) -> idx -> answer string."""
    if not isinstance(pred, list) or not pred:
        raise UserError(f"{where} must be a non-empty JSON list of {{idx, answer}} records")
    out: dict[int, str] = {}
    for r in pred:
        if not isinstance(r, dict) or "idx" not in r or "answer" not in r:
            raise UserError(f"{where}: every record needs 'idx' and 'answer'")
        idx, ans = r["idx"], r["answer"]
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise UserError(f"{where}: idx must be an integer, got {str(idx)[:40]!r}")
        if ans is None:
            ans = ""
        if not isinstance(ans, str):
            raise UserError(f"{where}: answer of idx {idx} must be text, got {str(ans)[:40]!r}")
        if idx in out:
            raise UserError(f"{where}: duplicate idx {idx}")
        out[idx] = ans
    return out


def score(pred: Any, gt: Any, lenient: bool = False, missing: str = "drop") -> Report:
    """Score predictions against answer records with the official rule. Every predicted idx must be in
    the answers (unknown idx: UserError). Answers without a prediction: `missing="drop"` leaves them out
    (the official denominator is the submitted rows), `missing="wrong"` counts them wrong (every asked
    question in the denominator; `Report.missing` says how many). `lenient` first extracts a letter with
    `lenient_letter`."""
    if missing not in ("drop", "wrong"):
        raise ValueError(f"missing must be 'drop' or 'wrong', got {missing!r}")
    preds = pred if isinstance(pred, dict) else check_predictions(pred)
    answers = check_answers(gt)
    unknown = [i for i in preds if i not in answers]
    if unknown:
        raise UserError(
            f"prediction idx {unknown[0]} is not in the answer file ({len(unknown)} unknown idx in all)"
        )
    rep = Report(0, 0)
    rows = dict(preds)
    if missing == "wrong":
        absent = [i for i in answers if i not in preds]
        rep.missing = len(absent)
        rows.update({i: None for i in absent})
    for idx, p in rows.items():
        a = answers[idx]
        ok = 0 if p is None else int(answer_true(lenient_letter(p) if lenient else p, a["answer"]))
        rep.correct += ok
        rep.total += 1
        for table, key in (
            (rep.by_task, a["task_type"]),
            (rep.by_sub, a["sub_type"]),
            (rep.by_ability, a["ability_type"]),
            (rep.by_mode, a["mode"]),
        ):
            c, n = table.get(key, (0, 0))
            table[key] = (c + ok, n + 1)
    return rep


def write_submission(predictions: dict[int, str] | list[dict[str, Any]], path: str | Path) -> Path:
    """Write the EvalAI submission file: a JSON list of {"idx": int, "answer": str}, sorted by idx."""
    preds = predictions if isinstance(predictions, dict) else check_predictions(predictions)
    rows = [{"idx": int(i), "answer": str(a)} for i, a in sorted(preds.items())]
    with atomic_write(path, "w") as f:
        json.dump(rows, f)
    return Path(path)
