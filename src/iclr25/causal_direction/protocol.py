"""The reproduction's units of work, one picklable function each (ctx.map ships them to workers):

- `dataset_task`: one data set and seed; clusters X once, then runs RoCA under the given pre-existing
  noise cells (type, rate) plus a null control (labels permuted, so X carries no information about them).
  It measures statistics only: the calls are made by the experiments with the threshold calibrated on
  synthetic data.
- `baseline_task`: one baseline on one data set and seed, on the same noisy labels as RoCA's base cell.
- `scale_task`: CPU and wall time of one full detection on synthetic data of a given size.
- `embed_task`: RoCA with `embed="pca:32"` on the 8×8 digit images."""

from __future__ import annotations

import time

import numpy as np

from iclr25.causal_direction.baselines import BASELINES
from iclr25.causal_direction.data import Dataset, load, synthetic
from iclr25.causal_direction.noise import KINDS, inject_label_noise
from iclr25.causal_direction.pseudo_labels import align_clusters, cluster, standardise
from iclr25.causal_direction.roca import RoCAConfig, detect_direction, direction_from_pseudo_labels

BASE_CELL = ("idn", 0.2)  # fixed in the issue: 20% pre-existing IDN unless stated
RATES = (0.0, 0.2, 0.4)
CELLS = tuple((kind, rate) for kind in ("sym", "pair", "idn") for rate in RATES)


def get_dataset(spec: dict) -> Dataset:
    """spec: {"name": real name} or {"family", "n", "d", "C"} (synthetic; `seed` picks the draw)."""
    if "family" in spec:
        return synthetic(spec["family"], spec["n"], spec["d"], spec["C"], spec["seed"])
    return load(spec["name"])


def noisy_labels(Z: np.ndarray, y: np.ndarray, kind: str, rate: float, seed: int, C: int) -> np.ndarray:
    """Pre-existing label errors Ỹ for a cell: the same draw wherever the same (data, cell, seed) is used."""
    rng = np.random.default_rng([seed, 101, KINDS.index(kind), round(rate * 1000)])
    return inject_label_noise(Z, y, rate, kind, rng, C)


def dataset_task(task: dict) -> dict:
    """RoCA on every cell of one (data set, seed); k-means runs once (P(X) does not depend on the labels)."""
    spec, seed = task["spec"], task["seed"]
    ds = get_dataset({**spec, "seed": seed})
    Z, C = standardise(ds.X), ds.n_classes  # (n, d)
    config = RoCAConfig(random_state=seed)
    ids = cluster(Z, C, "kmeans", config.n_init, seed)
    classes = np.arange(C)
    cells, base_curve = [], None
    for kind, rate in task["cells"]:
        y_noisy = noisy_labels(Z, ds.y, kind, rate, seed, C)
        r = direction_from_pseudo_labels(Z, y_noisy, align_clusters(ids, y_noisy, C), classes, config)
        cells.append({"kind": kind, "rate": rate, "normalized_slope": r.normalized_slope,
                      "p_value": r.p_value, "agreement": r.agreement})
        if (kind, rate) == BASE_CELL:
            base_curve = r.curve.to_dict(orient="list")
    # null control: the base cell's labels permuted, so no cluster can track them
    y_null = np.random.default_rng([seed, 202]).permutation(noisy_labels(Z, ds.y, *BASE_CELL, seed, C))
    null = direction_from_pseudo_labels(Z, y_null, align_clusters(ids, y_null, C), classes, config)
    return {"name": ds.name, "truth": ds.truth, "seed": seed, "n": len(ds.y), "d": ds.X.shape[1], "C": C,
            "cells": cells, "null_slope": null.normalized_slope, "null_agreement": null.agreement,
            "curve": base_curve}


def baseline_task(task: dict) -> dict:
    """One baseline's call on one (data set, seed), with RoCA's base-cell noisy labels."""
    ds = get_dataset({**task["spec"], "seed": task["seed"]})
    Z = standardise(ds.X)
    y_noisy = noisy_labels(Z, ds.y, *BASE_CELL, task["seed"], ds.n_classes)
    fn = BASELINES[task["method"]]
    kwargs = {"random_state": task["seed"]} if task["method"] in ("CDNL", "agreement", "ANM") else {}
    if task["method"] == "ANM":
        kwargs["max_rows"] = task["anm_rows"]
    r = fn(ds.X, y_noisy, **kwargs)
    return {"name": ds.name, "truth": ds.truth, "seed": task["seed"], "method": task["method"],
            "direction": r.direction, "score": r.score}


def scale_task(task: dict) -> dict:
    """Time one detection (standardise, k-means, injections, slopes) on synthetic data; data generation
    and the pre-existing noise are outside the timer."""
    ds = synthetic(task["family"], task["n"], task["d"], task["C"], task["seed"])
    y_noisy = noisy_labels(standardise(ds.X), ds.y, *BASE_CELL, task["seed"], ds.n_classes)
    t0, c0 = time.perf_counter(), time.process_time()
    r = detect_direction(ds.X, y_noisy, random_state=task["seed"])
    return {**task, "time_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
            "normalized_slope": r.normalized_slope, "truth": ds.truth}


def embed_task(task: dict) -> dict:
    """RoCA on the digit images through an embedding (PCA to 32 components) instead of raw pixels."""
    ds = load("digits")
    y_noisy = noisy_labels(standardise(ds.X), ds.y, *BASE_CELL, task["seed"], ds.n_classes)
    images = ds.X.reshape(-1, 8, 8)  # (n, 8, 8): detect_direction flattens images itself
    r = detect_direction(images, y_noisy, embed=task["embed"], random_state=task["seed"])
    return {"seed": task["seed"], "normalized_slope": r.normalized_slope}
