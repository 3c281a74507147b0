"""Reproduction of ToSS (ICLR 2025) claims at CPU scale: the W₂ bound (Theorem 1), TAC of the W₂ bound
with pseudo-labels against NLL and TIC, time per epoch against TIC, univariate convergence, UCI.

Profiles change sizes only. The paper's tables were not accessible to the spec author (figures only), so
the criteria are ours, fixed before measuring (spec §4)."""

from __future__ import annotations

import math
import time

import numpy as np
import torch

from iclr25.core.claims import (
    Claim,
    Finding,
    Verdict,
    all_of,
    at_most,
    graded,
    ratio_at_most,
)
from iclr25.core.runtime import RunContext, child_seeds
from iclr25.hetero_covariance.data import Dataset, load_uci, multivariate, sinusoid, uci_protocol
from iclr25.hetero_covariance.estimator import HeteroscedasticRegressor
from iclr25.hetero_covariance.linalg import random_spd, sqrtm_spd
from iclr25.hetero_covariance.losses import exact_w2, w2_bound
from iclr25.hetero_covariance.metrics import gaussian_ll, mse, tac
from iclr25.hetero_covariance.pseudo_labels import neighbourhood_pseudo_covariance

CLAIMS = [
    Claim(key="bound_holds",
          statement="‖μ₁−μ₂‖² + ‖Σ₁^½−Σ₂^½‖²_F upper-bounds the squared 2-Wasserstein distance between any "
                    "two Gaussians, with equality when the covariances commute (Theorem 1).",
          paper="Theorem 1 (proof via tr((A^½BA^½)^½) = ‖A^½B^½‖_* ≥ tr(A^½B^½))",
          criterion="bound ≥ exact W₂² (to 1e-9 relative) on all of 1,000 random SPD pairs, k ≤ 10; "
                    "|bound − exact| ≤ 1e-8 on 1,000 commuting pairs"),
    Claim(key="tac_competitive",
          statement="The W₂ bound with neighbourhood pseudo-labels learns the covariance (TAC) as well as or "
                    "better than NLL and TIC on the multivariate synthetic data.",
          paper="multivariate synthetic, k = 4..20: W₂+pseudo-labels gives accurate TAC in fewer epochs "
                "(figures only; numeric tables not accessible)",
          criterion="TAC(W₂+PL) ≤ TAC(NLL) and ≤ 1.1 × TAC(TIC) at every k ∈ {4, 8} (mean over trials; "
                    "TIC on its own trial); PARTIAL when only some of the comparisons hold. The quick "
                    "profile trains TIC at k = 4 only"),
    Claim(key="cheaper_than_tic",
          statement="Training with the W₂ bound and pseudo-labels is much cheaper than TIC, which needs "
                    "per-sample Jacobians and Hessians.",
          paper="lower time and memory than TIC (multivariate synthetic)",
          criterion="time per epoch of W₂+PL (pseudo-label precompute amortised in) ≤ 0.3 × TIC's at k = 8, "
                    "both measured in the same run (quick: TIC timed over one epoch)", timing=True),
    Claim(key="faster_convergence",
          statement="On the univariate sinusoid, self-supervision (W₂ + pseudo-labels) fits the mean in far "
                    "fewer epochs than NLL.",
          paper="univariate sinusoids y = A(x) sin(2πx) + N(0, x²), 50k samples, 100 epochs: W₂+PL "
                "converges in far fewer epochs than NLL and TIC (figures)",
          criterion="W₂+PL's test MSE (to the true mean, averaged over trials) reaches min(NLL's final, "
                    "0.9 × the constant predictor's) within ≤ 50% of the epochs, in every setting run; "
                    "PARTIAL if within 100%. "
                    "Quick: varying amplitude, sin(2π·0.2x) (the paper's sin(2πx) is not fitted by either "
                    "method at CPU scale); full adds the paper's frequency and the constant amplitude"),
    Claim(key="uci",
          statement="On UCI regression sets (TIC-TAC protocol), the W₂ bound with pseudo-labels gives better "
                    "TAC than NLL.",
          paper="12 UCI sets, TAC/MSE in the main text, NLL in the appendix (5 trials)",
          criterion="TAC(W₂+PL) < TAC(NLL) on ≥ 3 of 5 sets (concrete, energy, red wine, abalone, "
                    "Parkinson's; full profile, 40 epochs, 3 trials); PARTIAL on 1-2 of 5. The quick profile "
                    "runs the two smallest sets (concrete, energy) for 20 epochs: REPRODUCED on 2/2, "
                    "PARTIAL on 1/2"),
]

METHODS = ("w2_pseudo", "nll", "beta_nll", "faithful", "tic")
UCI_SETS = ("concrete", "energy", "red_wine", "abalone", "parkinson")
UCI_ABLATION_JITTER = 0.1


# ---- bound_holds ---------------------------------------------------------------------------------

def bound_check(n_pairs: int, seed: int, max_k: int = 10) -> dict[str, float]:
    """Exact W₂² and the bound on random SPD pairs (float64) and on commuting pairs."""
    g = torch.Generator().manual_seed(seed)
    min_gap, max_comm = math.inf, 0.0
    violations = 0
    for _ in range(n_pairs):
        k = int(torch.randint(1, max_k + 1, (1,), generator=g))
        S1, S2 = random_spd(1, k, g), random_spd(1, k, g)
        m1, m2 = torch.randn(1, k, generator=g, dtype=torch.float64), torch.randn(1, k, generator=g,
                                                                                   dtype=torch.float64)
        ex = float(exact_w2(m1, S1, m2, S2))
        bd = float(w2_bound(m1, sqrtm_spd(S1), m2, sqrtm_spd(S2)))
        gap = (bd - ex) / max(1.0, abs(ex))
        min_gap = min(min_gap, gap)
        violations += gap < -1e-9
        # commuting pair: same eigenvectors, different eigenvalues
        U = torch.linalg.qr(torch.randn(k, k, generator=g, dtype=torch.float64))[0]
        a = torch.rand(k, generator=g, dtype=torch.float64) * 5 + 0.01
        b = torch.rand(k, generator=g, dtype=torch.float64) * 5 + 0.01
        C1, C2 = (U * a) @ U.T, (U * b) @ U.T
        ex_c = float(exact_w2(m1, C1[None], m2, C2[None]))
        bd_c = float(w2_bound(m1, sqrtm_spd(C1[None]), m2, sqrtm_spd(C2[None])))
        max_comm = max(max_comm, abs(bd_c - ex_c))
    return {"pairs": n_pairs, "violations": violations, "min_rel_gap": min_gap,
            "max_abs_gap_commuting": max_comm}


# ---- one training run (module level, so ctx.map can ship it to a worker) -------------------------

def _dataset(spec: dict) -> tuple[Dataset, Dataset | None]:
    rng = np.random.default_rng(spec["data_seed"])
    if spec["kind"] == "multivariate":
        return multivariate(spec["k"], n=spec["n"], rng=rng), None
    if spec["kind"] == "sinusoid":
        train = sinusoid(spec["n"], spec["amplitude"], rng, spec["frequency"])
        return train, sinusoid(spec["n_test"], spec["amplitude"], rng, spec["frequency"])
    data = load_uci(spec["name"], spec.get("folder"))
    if spec.get("max_rows") and len(data) > spec["max_rows"]:
        data = data[rng.choice(len(data), spec["max_rows"], replace=False)]
    return uci_protocol(data, rng, spec["name"]), None


def train_eval(task: dict) -> dict:
    """Fit one method on one dataset; TAC/LL/MSE on the training set (the TIC-TAC protocol evaluates on
    the data it trains on) and per-epoch time; for the sinusoid, test MSE to the true mean per epoch."""
    train, test = _dataset(task["data"])
    reg = HeteroscedasticRegressor(loss=task["loss"], epochs=task["epochs"], random_state=task["seed"],
                                   **task.get("params", {}))
    t0 = time.perf_counter()
    if test is not None:
        reg.fit(train.X, train.Y, eval_set=(test.X, test.mean))
        const_test_mse = float(test.mean.var())  # the best constant prediction of E[y|x]
    else:
        reg.fit(train.X, train.Y)
    fit_s = time.perf_counter() - t0
    h = reg.history_
    out = {"loss": task["loss"], "fit_s": fit_s, "epoch_s": float(np.mean(h.epoch_s)),
           "pseudo_label_s": h.pseudo_label_s, "skipped_steps": h.skipped_steps, "val_mse": h.val_mse}
    if test is not None:
        out["const_test_mse"] = const_test_mse
    if train.Y.shape[1] >= 2:
        mu, cov = reg.predict(train.X)
        out.update(tac=tac(mu, cov, train.Y), ll=gaussian_ll(mu, cov, train.Y), mse=mse(mu, train.Y))
        if train.cov is not None:
            out["tac_oracle"] = tac(train.mean, train.cov, train.Y)
        if task["loss"] == "w2_pseudo":  # diagnostic: the pseudo-labels themselves as the covariance
            out["tac_pseudo_labels"] = tac(mu, _pseudo_cov_in_units(reg, train), train.Y)
    return out


def _pseudo_cov_in_units(reg: HeteroscedasticRegressor, data: Dataset) -> np.ndarray:
    """Σ̃ of Algorithm 1 as the fitted estimator computed it (standardised), mapped to Y's units."""
    xs = (data.X - reg.x_mean_) / reg.x_scale_
    ys = (data.Y - reg.y_mean_) / reg.y_scale_
    _, cov, _ = neighbourhood_pseudo_covariance(xs, ys, k=reg.k_neighbours, temperature=reg.pl_temperature,
                                                jitter=reg.pl_jitter)
    return cov * np.outer(reg.y_scale_, reg.y_scale_)


def _tasks(data_specs: list[dict], losses: list[str], epochs: int, trials: int, seed: int,
           params: dict | None = None) -> list[dict]:
    seeds = child_seeds(seed, trials)
    return [{"data": {**d, "data_seed": s}, "loss": loss, "epochs": epochs, "seed": s, "params": params or {},
             "trial": t} for d in data_specs for t, s in enumerate(seeds) for loss in losses]


def _mean_of(results: list[dict], tasks: list[dict], key: str, **match) -> float:
    vals = [r[key] for r, t in zip(results, tasks, strict=True)
            if all(t["data"].get(a, t.get(a)) == b for a, b in match.items())]
    return float(np.mean(vals)) if vals else float("nan")


# ---- the run ---------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    findings = [_bound_finding(ctx)]
    findings += _multivariate_findings(ctx)
    findings.append(_univariate_finding(ctx))
    findings.append(_uci_finding(ctx))
    return findings


def _bound_finding(ctx: RunContext) -> Finding:
    m = bound_check(ctx.pick(smoke=100, quick=1000, full=1000), ctx.seed)
    v = all_of(at_most(m["violations"], 0), at_most(m["max_abs_gap_commuting"], 1e-8))
    return Finding("bound_holds", v, m,
                   f"{m['violations']} violations in {m['pairs']} random SPD pairs (min relative gap "
                   f"{m['min_rel_gap']:.2e}); max |bound − exact| on commuting pairs "
                   f"{m['max_abs_gap_commuting']:.1e}")


def _multivariate_findings(ctx: RunContext) -> list[Finding]:
    ks = (4, 8)
    n_per_k = ctx.pick(smoke=40, quick=150, full=250)  # n = n_per_k · k (paper: 1000 · k)
    epochs = ctx.pick(smoke=2, quick=10, full=30)  # paper: 100
    trials = ctx.pick(smoke=1, quick=1, full=3)  # paper: 10
    # TIC training is the expensive part (~25x a W₂ step): fewer k and trials, compared on the same trials
    tic_ks = ctx.pick(smoke=(4,), quick=(4,), full=ks)
    tic_trials = 1
    specs = [{"kind": "multivariate", "k": k, "n": n_per_k * k} for k in ks]
    tasks = _tasks(specs, ["w2_pseudo", "nll", "beta_nll", "faithful"], epochs, trials, ctx.seed)
    tasks += _tasks([s for s in specs if s["k"] in tic_ks], ["tic"], epochs, tic_trials, ctx.seed)
    # TIC's time per epoch at k = 8 (a timing, not a fit) when its full training is out of budget
    timing_only = [] if 8 in tic_ks else _tasks([specs[1]], ["tic"], 1, 1, ctx.seed + 1)
    results = ctx.map(train_eval, tasks + timing_only, "multivariate fits")
    res, timing = results[:len(tasks)], results[len(tasks):]

    measured: dict[str, float | int | str] = {"n_per_k": n_per_k, "epochs": epochs, "trials": trials}
    checks: list[Verdict] = []
    parts = []
    for k in ks:
        for loss in METHODS:
            for key in ("tac", "mse", "ll", "epoch_s"):
                v = _mean_of(res, tasks, key, k=k, loss=loss)
                if not math.isnan(v):
                    measured[f"{key}_{loss}_k{k}"] = v
        measured[f"tac_oracle_k{k}"] = _mean_of(res, tasks, "tac_oracle", k=k, loss="nll")
        w2, nll = measured[f"tac_w2_pseudo_k{k}"], measured[f"tac_nll_k{k}"]
        checks.append(at_most(w2, nll))
        part = f"k={k}: TAC W₂+PL {w2:.3f} vs NLL {nll:.3f}"
        if k in tic_ks:
            tic_v = measured[f"tac_tic_k{k}"]
            w2_same = _mean_of([r for r, t in zip(res, tasks, strict=True) if t["trial"] < tic_trials],
                               [t for t in tasks if t["trial"] < tic_trials], "tac", k=k, loss="w2_pseudo")
            measured[f"tac_w2_pseudo_k{k}_tic_trials"] = w2_same
            checks.append(at_most(w2_same, 1.1 * tic_v))
            part += f", TIC {tic_v:.3f} (W₂+PL {w2_same:.3f} on TIC's {tic_trials} trial)"
        parts.append(part + f" (oracle {measured[f'tac_oracle_k{k}']:.3f})")
    untested = [k for k in ks if k not in tic_ks]
    note = f"; TIC trained only at k ∈ {set(tic_ks)} in this profile (cost)" if untested else ""
    tac_f = Finding("tac_competitive", all_of(*checks), measured,
                    "; ".join(parts) + f"; {epochs} epochs, n = {n_per_k}·k, {trials} trial(s){note}")

    # cheaper_than_tic: W₂+PL epoch time with its one-off pseudo-label cost spread over the epochs
    w2_epoch = _mean_of(res, tasks, "epoch_s", k=8, loss="w2_pseudo")
    pl = _mean_of(res, tasks, "pseudo_label_s", k=8, loss="w2_pseudo")
    tic_epoch = (_mean_of(res, tasks, "epoch_s", k=8, loss="tic") if 8 in tic_ks
                 else float(np.mean([r["epoch_s"] for r in timing])))
    nll_epoch = _mean_of(res, tasks, "epoch_s", k=8, loss="nll")
    w2_total = w2_epoch + pl / epochs
    cost = {"epoch_s_w2_pseudo_k8": w2_epoch, "pseudo_label_s_k8": pl, "epoch_s_tic_k8": tic_epoch,
            "epoch_s_nll_k8": nll_epoch, "ratio_w2_over_tic": w2_total / tic_epoch,
            "ratio_tic_over_w2": tic_epoch / w2_total, "ratio_nll_over_w2": nll_epoch / w2_total}
    cost_f = Finding("cheaper_than_tic", ratio_at_most(w2_total, tic_epoch, 0.3), cost,
                     f"k=8: W₂+PL {w2_total:.3f} s/epoch (incl. {pl:.2f} s pseudo-labels / {epochs} epochs) "
                     f"vs TIC {tic_epoch:.3f} s/epoch: ratio {w2_total / tic_epoch:.3f} (criterion ≤ 0.3)")
    return [tac_f, cost_f]


def epochs_to_reach(curve: list[float], target: float) -> int | None:
    """First epoch (1-based) at which `curve` is at or below `target`, or None."""
    for i, v in enumerate(curve, start=1):
        if v <= target:
            return i
    return None


def _univariate_finding(ctx: RunContext) -> Finding:
    n = ctx.pick(smoke=300, quick=1000, full=5000)  # paper: 50k samples, 100 epochs
    epochs = ctx.pick(smoke=3, quick=20, full=50)
    # (amplitude, frequency f in sin(2π f x)). The paper's f = 1 (10 periods) is not fitted by either
    # method within a CPU budget (test MSE stays at the constant predictor's); f = 0.2 (2 periods) is.
    settings = ctx.pick(smoke=[("varying", 0.2)], quick=[("varying", 0.2)],
                        full=[("constant", 1.0), ("varying", 1.0), ("constant", 0.2), ("varying", 0.2)])
    # paper's univariate setting: MLP latent 50, lr 1e-3, batch 32
    specs = [{"kind": "sinusoid", "amplitude": a, "frequency": f, "n": n, "n_test": 2000}
             for a, f in settings]
    trials = ctx.pick(smoke=1, quick=2, full=2)
    tasks = _tasks(specs, ["w2_pseudo", "nll"], epochs, trials, ctx.seed, params={"lr": 1e-3, "latent": 50})
    res = ctx.map(train_eval, tasks, "univariate fits")
    measured: dict[str, float | int | str] = {"n": n, "epochs": epochs, "trials": trials}
    fractions, parts = [], []
    for a, f in settings:
        key = f"{a}_f{f:g}"

        def mean_of(loss: str, field: str, a=a, f=f):  # averaged over trials, epoch by epoch
            return np.mean([r[field] for r, t in zip(res, tasks, strict=True) if t["loss"] == loss
                            and (t["data"]["amplitude"], t["data"]["frequency"]) == (a, f)], axis=0)

        runs = {loss: {"val_mse": list(mean_of(loss, "val_mse"))} for loss in ("w2_pseudo", "nll")}
        nll_final = float(runs["nll"]["val_mse"][-1])
        const = float(mean_of("nll", "const_test_mse"))
        # the target must also be a real fit (≤ 90% of the constant predictor's MSE): two flat curves
        # crossing by noise prove nothing
        target = min(nll_final, 0.9 * const)
        hit = epochs_to_reach(runs["w2_pseudo"]["val_mse"], target)
        frac = hit / epochs if hit is not None else math.inf
        fractions.append(frac)
        measured.update({f"final_test_mse_nll_{key}": nll_final,
                         f"final_test_mse_w2_{key}": runs["w2_pseudo"]["val_mse"][-1],
                         f"constant_predictor_mse_{key}": const, f"target_mse_{key}": target,
                         f"epochs_to_target_{key}": hit if hit is not None else -1,
                         f"epoch_fraction_{key}": frac if math.isfinite(frac) else "never"})
        parts.append(f"{a} amplitude, f={f:g}: target {target:.2f} (NLL final {nll_final:.2f}, constant "
                     f"{const:.2f}) reached by W₂+PL at epoch {hit if hit is not None else 'never'}/{epochs}")
    parts[-1] += f"; test MSE averaged over {trials} trial(s) per epoch"
    worst = max(fractions)
    fig = _plot_curves(ctx, res, tasks, "univariate_test_mse.png")
    return Finding("faster_convergence", graded(worst, 0.5, 1.0, higher_is_better=False), measured,
                   "; ".join(parts) + f" (n = {n})", figures=[fig])


def _plot_curves(ctx: RunContext, res: list[dict], tasks: list[dict], name: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    for r, t in zip(res, tasks, strict=True):
        ax.plot(range(1, len(r["val_mse"]) + 1), r["val_mse"],
                label=f"{t['loss']} ({t['data']['amplitude']}, f={t['data']['frequency']:g})")
    ax.set(xlabel="epoch", ylabel="test MSE to E[y|x]", yscale="log", title="univariate sinusoid")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.figure_path(name), dpi=120)
    plt.close(fig)
    return name


def _uci_finding(ctx: RunContext) -> Finding:
    from iclr25.hetero_covariance.data import default_uci_dir

    folder = default_uci_dir()
    sets = ctx.pick(smoke=("energy",), quick=("concrete", "energy"), full=UCI_SETS)
    missing = [s for s in sets if not (folder / _first_file(s)).is_file()]
    if missing:
        return Finding.not_testable("uci", f"UCI CSV files not found under {folder} "
                                           f"(missing: {', '.join(missing)}); set ICLR25_SHARED")
    epochs = ctx.pick(smoke=2, quick=20, full=40)
    trials = ctx.pick(smoke=1, quick=1, full=3)
    max_rows = ctx.pick(smoke=150, quick=None, full=None)
    specs = [{"kind": "uci", "name": s, "folder": str(folder), "max_rows": max_rows} for s in sets]
    tasks = _tasks(specs, ["w2_pseudo", "nll"], epochs, trials, ctx.seed)
    # ablation, not part of the verdict: better-conditioned pseudo-labels (jitter 10% of each standardised
    # target's variance instead of 1e-6), to test whether near-singular labels are what hurts TAC
    ablation = _tasks(specs, ["w2_pseudo"], epochs, trials, ctx.seed,
                      params={"pl_jitter": UCI_ABLATION_JITTER})
    results = ctx.map(train_eval, tasks + ablation, "UCI fits")
    res, res_ab = results[:len(tasks)], results[len(tasks):]
    measured: dict[str, float | int | str] = {"epochs": epochs, "trials": trials,
                                              "max_rows": max_rows or "all"}
    wins = []
    for s in sets:
        w2 = _mean_of(res, tasks, "tac", name=s, loss="w2_pseudo")
        nll = _mean_of(res, tasks, "tac", name=s, loss="nll")
        pl = _mean_of(res, tasks, "tac_pseudo_labels", name=s, loss="w2_pseudo")
        ab = _mean_of(res_ab, ablation, "tac", name=s)
        measured.update({f"tac_w2_pseudo_{s}": w2, f"tac_nll_{s}": nll, f"tac_pseudo_labels_{s}": pl,
                         f"tac_w2_pseudo_jitter{UCI_ABLATION_JITTER:g}_{s}": ab})
        wins.append(bool(w2 < nll))
    measured["sets_won"] = sum(wins)
    share = sum(wins) / len(wins)
    scale = "" if ctx.profile == "full" else f" (reduced: {len(sets)} of 5 sets, {epochs} epochs)"
    per_set = ", ".join(f"{s} {measured[f'tac_w2_pseudo_{s}']:.2f} vs {measured[f'tac_nll_{s}']:.2f} "
                        f"(pseudo-labels as Σ̂: {measured[f'tac_pseudo_labels_{s}']:.2f}; "
                        f"W₂+PL with jitter {UCI_ABLATION_JITTER:g}: "
                        f"{measured[f'tac_w2_pseudo_jitter{UCI_ABLATION_JITTER:g}_{s}']:.2f})" for s in sets)
    return Finding("uci", graded(share, 0.6, 0.2), measured,
                   f"W₂+PL TAC < NLL TAC on {sum(wins)}/{len(sets)} sets{scale}; {per_set}")


def _first_file(name: str) -> str:
    from iclr25.hetero_covariance.data import UCI_FILES
    return UCI_FILES[name][0]
