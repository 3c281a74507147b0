"""One training run per task dict (module level, so `ctx.map` can ship it to a worker process): build
the task's data, build the model by name, train with the fixed protocol, evaluate on fresh test data.
Results are cached by the task and the source of the modules that compute them, so the full profile
reuses the runs it shares with quick (same seeds, same result) and a re-run costs nothing."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from iclr25.core.runtime import atomic_write, cache_dir, config_hash
from iclr25.ssm_selection.models import build_model
from iclr25.ssm_selection.saliency import saliency, selection_sparsity, top_k_share, window_share
from iclr25.ssm_selection.tasks import (
    SeqData,
    load_splice,
    make_associative_recall,
    make_copy,
    make_motif_dna,
    make_selection_regression,
)
from iclr25.ssm_selection.train import TrainConfig, evaluate, train

N_KEYS = N_VALUES = 32  # associative recall vocabulary (issue: |K| = |V| = 32)
COPY_SYMBOLS = 16
SPLICE_TOP_K = 6
TEST_SEED = 1_000_003  # fresh test data never shares a stream with training data
VAL_SEED = 1_000_033  # the regression's validation set: one fixed 2k set for every size and seed
N_VAL_REGRESSION = 2000


def _ar(n_pairs: int):
    def sample(n: int, seed) -> SeqData:
        return make_associative_recall(n, n_pairs, N_KEYS, N_VALUES, seed=seed)
    return sample


def _copy(length: int):
    def sample(n: int, seed) -> SeqData:
        return make_copy(n, length, COPY_SYMBOLS, ngram=3, seed=seed)
    return sample


_SOURCES = ("ssm.py", "models.py", "tasks.py", "train.py", "saliency.py", "runs.py")
CODE_VERSION = hashlib.sha256(b"".join((Path(__file__).parent / f).read_bytes()
                                        for f in _SOURCES)).hexdigest()[:12]


def fit_eval_cached(task: dict[str, Any]) -> dict[str, Any]:
    """`fit_eval`, read from the cache when this exact run (task, code version) was done before."""
    key = config_hash({"task": {k: v for k, v in task.items() if k != "cost"}, "code": CODE_VERSION})
    path = cache_dir() / "ssm_selection" / f"{key}.json"
    try:
        return {**json.loads(path.read_text(encoding="utf-8")), **task}
    except (OSError, ValueError):
        pass
    out = fit_eval(task)
    with atomic_write(path, "w") as f:
        json.dump(out, f)
    return out


def fit_eval(task: dict[str, Any]) -> dict[str, Any]:
    """task: {"task": "ar"|"copy"|"regression"|"splice"|"motif", "model", "seed", "steps", sizes...}
    → test metrics, parameter count, steps run and CPU seconds."""
    seed, kind = int(task["seed"]), task["task"]
    t_cpu = time.process_time()
    val = None
    if kind in ("ar", "copy"):  # infinite fresh data: train on a sampler, test on fresh instances
        sample = _ar(task["n_pairs"]) if kind == "ar" else _copy(task["length"])
        test = sample(task["n_test"], [TEST_SEED, seed])
        data = lambda b, rng: sample(b, rng)  # noqa: E731
        if task.get("stop_at"):
            val = sample(512, [TEST_SEED + 1, seed])
    elif kind == "regression":  # n training pairs from the generator; the validation set is fixed
        data = make_selection_regression(task["n"], seed=[seed, task["n"]])
        val = make_selection_regression(task.get("n_val", N_VAL_REGRESSION), seed=VAL_SEED)
        test = make_selection_regression(task["n_test"], seed=[TEST_SEED, seed])
    elif kind == "splice":
        rest, test = load_splice().split(0.2, seed=seed)
        data, val = rest.split(0.1, seed=seed)
    elif kind == "motif":
        length = task["length"]
        data = make_motif_dna(task["n"], length, seed=[seed, 1])
        val = make_motif_dna(500, length, seed=[seed, 2])
        test = make_motif_dna(task["n_test"], length, seed=[TEST_SEED, seed])
    else:
        raise ValueError(f"unknown task kind {kind!r}")
    torch.manual_seed(seed)
    model = build_model(task["model"], vocab=test.vocab, in_features=test.in_features, head=test.kind,
                        n_out=test.n_out, length=test.length, d=task.get("d", 64),
                        pool=task.get("pool", "last"), window=task.get("window"))
    cfg = TrainConfig(steps=task["steps"], seed=seed, eval_every=task.get("eval_every", 0) if val else 0,
                      stop_at=task.get("stop_at"), patience=task.get("patience", 0))
    untrained = {}
    if kind == "motif":  # the control: where the same network, untrained, puts its importance
        init = _saliency_summary(model, test, kind)
        untrained = {f"untrained_{k}": init[k] for k in ("argmax_in_motif", "motif_share", "argmax_std")}
    res = train(model, data, cfg, val=val, description=f"{kind} {task['model']}")
    out = {**{k: v for k, v in task.items()}, **evaluate(model, test), "params": model.n_params(),
           "steps_run": res.steps, "best_step": res.best_step, "losses": res.losses, **untrained}
    if kind == "regression":  # what decides whether a size enters the rate fit: validation data only
        out["val_mse"] = evaluate(model, val)["mse"]
    if kind in ("splice", "motif"):
        out.update(_saliency_summary(model, test, kind))
    out["cpu_s"] = time.process_time() - t_cpu
    return out


def _saliency_summary(model, test: SeqData, kind: str) -> dict[str, Any]:
    """Sparsity and movement of gradient × input on the test set (+ a few profiles for the figure)."""
    s = saliency(model, test.x)
    out: dict[str, Any] = {}
    if kind == "splice":
        out.update(selection_sparsity(s, SPLICE_TOP_K))
        out["profile_mean"] = (s / s.sum(1, keepdim=True)).mean(0).tolist()
        out["profile_by_class"] = {c: (s[test.y == i] / s[test.y == i].sum(1, keepdim=True)).mean(0).tolist()
                                   for i, c in enumerate(test.info["classes"])}
        out["examples"] = (s[:12] / s[:12].sum(1, keepdim=True)).tolist()
        return out
    starts = np.asarray(test.info["motif_start"])
    pos = starts >= 0
    sp = s[torch.from_numpy(pos)]
    width = int(test.info["motif_length"])
    share = window_share(sp, starts[pos], width)
    argmax = sp.argmax(1).double()
    start_t = torch.from_numpy(starts[pos])
    out.update({"motif_share": float(share.mean()), "motif_uniform_share": width / s.shape[1],
                "motif_length": width,
                "argmax_std": float(argmax.std()), "argmax_in_motif": float(
                    ((argmax >= start_t) & (argmax < start_t + width))
                    .double().mean()), "top_k_share": float(top_k_share(sp, width).mean())})
    order = np.argsort(starts[pos])[:: max(1, int(pos.sum()) // 24)][:24]
    out["examples"] = (sp[order] / sp[order].sum(1, keepdim=True)).tolist()
    out["example_starts"] = starts[pos][order].tolist()
    return out
