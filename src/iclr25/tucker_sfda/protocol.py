"""One cell of the reproduction (a scenario and a seed): source model(s) → decompose at each RF →
fine-tune 2 source epochs → adapt with each host (FT, SFT), the matched-capacity baselines (BN-only, LoRA,
a random weight subset) and target subsamples → macro-F1 on the target and ‖ΔW‖_F. A module-level
function of a plain dict, so `ctx.map` can ship it to a worker."""

from __future__ import annotations

import contextlib
import copy
import os
from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from iclr25.core.runtime import pin_threads
from iclr25.tucker_sfda.adapt import AdaptConfig, adapt
from iclr25.tucker_sfda.data import (
    Domain,
    SyntheticConfig,
    basic_motions,
    channel_stats,
    other_wrist,
    rotate_triads,
    synthetic_domain,
    znorm,
)
from iclr25.tucker_sfda.efficiency import delta_norm
from iclr25.tucker_sfda.lora import add_lora, add_random_subset
from iclr25.tucker_sfda.model import AdaTimeCNN
from iclr25.tucker_sfda.training import SourceConfig, evaluate, finetune_source, train_source
from iclr25.tucker_sfda.tucker import tucker_reparameterize

DATA_B_SHIFTS = ("rotation", "other_wrist")


def scenario_name(dataset: str, shift: str | tuple[int, int]) -> str:
    return f"{shift[0]}->{shift[1]}" if dataset == "A" else str(shift)


def scenario_data(task: dict) -> tuple[Domain, Domain, Domain]:
    """Source (labelled), target to adapt on (labels ignored) and target to score, z-normalised by the
    source statistics. Data A: 600/200 fresh series per domain; Data B: BasicMotions train as source,
    the transformed test set as target (transductive: adapted and scored on the same series)."""
    seed = task["seed"]
    if task["dataset"] == "A":
        a, b = task["shift"]
        cfg = SyntheticConfig(shift=task["shift_scale"], tempo=task["tempo"])
        src = synthetic_domain(a, task["n_train"], np.random.default_rng([seed, a]), cfg)
        tgt = synthetic_domain(b, task["n_train"], np.random.default_rng([seed, b, 0]), cfg)
        test = synthetic_domain(b, task["n_test"], np.random.default_rng([seed, b, 1]), cfg)
    else:
        src, test_raw, _ = basic_motions()
        move = rotate_triads if task["shift"] == "rotation" else other_wrist
        tgt = test = move(test_raw)
    mean, std = channel_stats(src.X)
    return znorm(src, mean, std), znorm(tgt, mean, std), znorm(test, mean, std)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """No nested progress bars inside a cell (the runner shows one bar over the cells)."""
    old = os.environ.get("ICLR25_NO_PROGRESS")
    os.environ["ICLR25_NO_PROGRESS"] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("ICLR25_NO_PROGRESS", None)
        else:
            os.environ["ICLR25_NO_PROGRESS"] = old


def _core_budgets(model: AdaTimeCNN, rf: int) -> dict[str, int]:
    """Per-layer trainable count of SFT at `rf` (the LoRA baseline matches it layer by layer)."""
    dec = tucker_reparameterize(model, rf)
    return {name: m.core.weight.numel() for name, m in dec.named_modules() if hasattr(m, "core")}


def run_cell(task: dict) -> dict:
    """Every adaptation run of one (scenario, seed). Returns {"runs": [...], "info": {...}}."""
    pin_threads()
    with _quiet():
        return _run_cell(task)


def _run_cell(task: dict) -> dict:
    seed = task["seed"]
    src, tgt, test = scenario_data(task)
    src_cfg = SourceConfig(epochs=task["source_epochs"], finetune_epochs=task["finetune_epochs"])
    ad_cfg = AdaptConfig(epochs=task["adapt_epochs"])
    scen = scenario_name(task["dataset"], task["shift"])
    runs: list[dict] = []

    def record(host: str, variant: str, rf: int | None, model, base, trainable: int, fraction: float = 1.0,
               sub: int = 0) -> None:
        runs.append({"dataset": task["dataset"], "scenario": scen, "seed": seed, "host": host,
                     "variant": variant, "rf": rf, "fraction": fraction, "sub": sub,
                     "f1": evaluate(model, test), "delta": delta_norm(base, model), "trainable": trainable})

    dense, _ = train_source(src, src_cfg, seed=seed)
    info = {"scenario": scen, "dataset": task["dataset"], "seed": seed,
            "source_f1_on_target": evaluate(dense, test)}
    if task["dataset"] == "B":  # the same test series without the device change
        src_raw, test_raw, _ = basic_motions()
        info["source_f1_unshifted"] = evaluate(dense, znorm(test_raw, *channel_stats(src_raw.X)))
    record("none", "source_only", None, dense, dense, 0)

    decomposed: dict[tuple[str, int], tuple] = {}

    def sft_model(base: AdaTimeCNN, key: str, rf: int, imputer=None) -> tuple:
        """The decomposed, source-fine-tuned model at `rf` (and its own copy of MAPU's imputer, which
        is fine-tuned with it on the decomposed features)."""
        if (key, rf) not in decomposed:
            dec = tucker_reparameterize(base, rf)
            imp = None if imputer is None else copy.deepcopy(imputer)
            finetune_source(dec, src, src_cfg.finetune_epochs, src_cfg, seed=seed, imputer=imp)
            decomposed[key, rf] = dec, imp
        return decomposed[key, rf]

    for host in task["hosts"]:
        base, imputer, key = dense, None, "plain"
        if host == "mapu":  # MAPU's source model is trained jointly with its imputer
            base, imputer = train_source(src, replace(src_cfg, imputer=True), seed=seed)
            key = "mapu"
            record("mapu", "source_only", None, base, base, 0)
        res = adapt(base, tgt, host, "all", ad_cfg, imputer=imputer, seed=seed)
        record(host, "ft", None, res.model, base, res.trainable)
        rfs = list(task["rfs"]) + (list(task["extra_rfs"]) if host == "shot" else [])
        for rf in rfs:
            dec, imp = sft_model(base, key, rf, imputer)
            record(host, "sft_source_only", rf, dec, dec, 0)
            res = adapt(dec, tgt, host, "core", ad_cfg, imputer=imp, seed=seed)
            record(host, "sft", rf, res.model, dec, res.trainable)

    if task["baselines"]:  # on the SHOT host, matched to SFT's trainable count (issue #46)
        budgets = _core_budgets(dense, task["lora_rf"])
        res = adapt(dense, tgt, "shot", "bn", ad_cfg, seed=seed)
        record("shot", "bn", None, res.model, dense, res.trainable)
        lora = add_lora(dense, budgets)
        res = adapt(lora, tgt, "shot", "lora", ad_cfg, seed=seed)
        record("shot", "lora", task["lora_rf"], res.model, dense, res.trainable)
        subset = add_random_subset(dense, sum(budgets.values()), seed=seed)
        res = adapt(subset, tgt, "shot", "subset", ad_cfg, seed=seed)
        record("shot", "random", task["lora_rf"], res.model, dense, res.trainable)

    rng = np.random.default_rng([seed, 77])
    for frac in task["fractions"]:  # few target samples, scored on the full target test set
        n = max(2, round(frac * len(tgt)))
        for sub in range(task["subsamples"]):
            part = tgt.subset(rng.choice(len(tgt), n, replace=False))
            res = adapt(dense, part, "shot", "all", ad_cfg, seed=seed + sub)
            record("shot", "ft", None, res.model, dense, res.trainable, frac, sub)
            dec, _ = sft_model(dense, "plain", task["fraction_rf"])
            res = adapt(dec, part, "shot", "core", ad_cfg, seed=seed + sub)
            record("shot", "sft", task["fraction_rf"], res.model, dec, res.trainable, frac, sub)
    return {"runs": runs, "info": info}
