"""The reproduction: IPD reciprocity and exploitability (quick), Coin Game and Negotiation (full),
cost per update against LOLA-DiCE, and Melting Pot (not testable here). Measurements only: each claim's
rule (claims.py) decides."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from iclr25.advantage_alignment.claims import PAPER_IPD_POLICY, PAPER_SPEEDUP
from iclr25.advantage_alignment.envs import make_env
from iclr25.advantage_alignment.envs.ipd import STATES
from iclr25.advantage_alignment.gru import time_gru_updates
from iclr25.advantage_alignment.learner import Learner
from iclr25.advantage_alignment.lola import LolaConfig, train_lola_exact
from iclr25.advantage_alignment.train import default_config, evaluate, exploitability, ipd_policy_table, train
from iclr25.core.claims import Finding
from iclr25.core.runtime import RunContext, child_seeds
from iclr25.core.stats import mean_ci

# full profile, 128 episodes of 50 steps per iteration, 3 seeds each (sized for ~10 min on 2 cores)
COIN_ITERS, NEGOTIATION_ITERS = 600, 320
MELTING_POT_REASON = ("dm-meltingpot 2.4.1 is an sdist whose setup.py downloads assets at build time "
                      "and needs TensorFlow; the paper's scale (GTrXL, GPU) is also out of reach on 2 CPU "
                      "cores")


@dataclass(frozen=True)
class Task:
    env: str
    algo: str
    seed: int
    iters: int
    batch: int
    T: int
    opponent: str = "self"
    warmup: int = 100
    past: str = "discounted"  # the paper's discounted past sum (the library default) or "mean"


def run_task(task: Task) -> dict:
    """One training run (module level, so any ctx.map backend can run it); plain numbers out."""
    torch.set_num_threads(1)
    cfg = replace(default_config(task.env, task.algo), critic_warmup=task.warmup, past=task.past)
    res = train(task.env, task.algo, task.opponent, iters=task.iters, batch=task.batch, seed=task.seed,
                config=cfg, T=task.T)
    out: dict = {"task": task, "history": res.history,
                 "eval": evaluate(res.env, res.agents, seed=task.seed + 1)}
    # every trained seat, frozen, against always-defect
    out["vs_defect"] = [exploitability(a, res.env, "defect", seed=task.seed + 2) for a in res.agents
                        if isinstance(a, Learner)]
    if task.env == "ipd":
        out["policy"] = [ipd_policy_table(res.learner)]
        if task.opponent == "self":
            out["policy"].append(ipd_policy_table(res.agents[1]))  # type: ignore[arg-type]
    return out


def run_lola(seed_iters: tuple[int, int]) -> dict:
    seed, iters = seed_iters
    a, b, hist = train_lola_exact(iters=iters, seed=seed, cfg=LolaConfig())
    env = make_env("ipd")
    return {"history": hist, "eval": evaluate(env, (a, b), seed=seed + 1),
            "policy": [ipd_policy_table(a), ipd_policy_table(b)]}


def _tail(r: dict, key: str) -> np.ndarray:
    """The last 10% of a training curve (at least one iteration)."""
    h = np.asarray(r["history"][key])
    return h[-max(1, len(h) // 10):]


def _peak(r: dict, key: str, window: int = 20) -> float:
    """Highest moving average (over `window` iterations) of a training curve."""
    h = np.asarray(r["history"][key])
    w = min(window, len(h))
    return float(np.convolve(h, np.ones(w) / w, mode="valid").max())


def _tail_ratio(r: dict, num: str, den: str) -> float:
    return float(_tail(r, num).sum() / max(_tail(r, den).sum(), 1e-9))


def run(profile: str, ctx: RunContext) -> list[Finding]:
    seeds = [s % 100_000 for s in child_seeds(ctx.seed, 5)]  # IPD: 5 seeds (cheap); the games: 3
    ipd_iters = ctx.pick(smoke=12, quick=300, full=400)
    ipd_batch = ctx.pick(smoke=32, quick=256, full=256)
    warm = ctx.pick(smoke=4, quick=100, full=100)
    tasks = [Task("ipd", algo, s, ipd_iters, ipd_batch, 16, warmup=warm) for algo in ("adalign", "naive")
             for s in seeds]
    tasks += [Task("ipd", "adalign", s, ipd_iters, ipd_batch, 16, opponent="defect", warmup=warm, past=past)
              for past in ("discounted", "mean") for s in seeds]
    # full-profile games on 3 seeds; quick runs their code path at toy sizes on one seed
    g_seeds = ctx.pick(smoke=seeds[:1], quick=seeds[:1], full=seeds[:3])
    g_batch = ctx.pick(smoke=8, quick=8, full=128)
    g_T = ctx.pick(smoke=6, quick=6, full=50)
    g_warm = ctx.pick(smoke=1, quick=1, full=20)
    for env, algos, iters in (("coin", ("adalign", "naive"), COIN_ITERS),
                              ("negotiation", ("adap", "ppo"), NEGOTIATION_ITERS)):
        tasks += [Task(env, algo, s, ctx.pick(smoke=3, quick=3, full=iters), g_batch, g_T, warmup=g_warm)
                  for algo in algos for s in g_seeds]
    results = ctx.map(run_task, tasks, description="advantage alignment runs")
    lola = ctx.map(run_lola, [(s, ctx.pick(smoke=3, quick=100, full=300)) for s in seeds[:1]],
                   description="exact LOLA")[0]
    batches = ctx.pick(smoke=[64], quick=[64, 256], full=[64, 256, 1024])
    repeats = ctx.pick(smoke=2, quick=5, full=9)
    timing = {b: time_gru_updates(b, repeats, seeds[0]) for b in batches}

    def by(env: str, algo: str, opp: str = "self", past: str = "discounted") -> list[dict]:
        key = (env, algo, opp, past)
        return [r for r in results if (r["task"].env, r["task"].algo, r["task"].opponent, r["task"].past)
                == key]

    figs = _figures(ctx, by("ipd", "adalign"), by("ipd", "naive"), lola)
    coin, neg = (by("coin", "adalign"), by("coin", "naive")), (by("negotiation", "adap"),
                                                               by("negotiation", "ppo"))
    game_figs = _game_figures(ctx, coin, neg)
    ad_trained = {past: by("ipd", "adalign", "defect", past) for past in ("discounted", "mean")}
    return [_ipd_reciprocity(by("ipd", "adalign"), by("ipd", "naive"), lola, ipd_iters, figs),
            _not_exploitable(ctx, by("ipd", "adalign"), ad_trained),
            _coin(*coin, profile, game_figs[:1]),
            _negotiation(*neg, profile, game_figs[1:]),
            _cheaper(timing, repeats),
            Finding.not_testable("melting_pot", MELTING_POT_REASON)]


def _final_reward(r: dict) -> float:
    return (r["eval"]["reward_0"] + r["eval"]["reward_1"]) / 2


def _seat_mean_p(r: dict, state: str) -> float:
    """P(C | state), the mean over the run's learning seats."""
    return float(np.mean([t[state] for t in r["policy"]]))


def _ci(xs: list[float]) -> str:
    """The interval over seeds, or the single value when one seed ran (quick games)."""
    return str(mean_ci(xs)) if len(xs) > 1 else f"{xs[0]:.3f} (1 seed)"


def _per_seed(xs: list[float], fmt: str = ".2f") -> str:
    return ", ".join(f"{x:{fmt}}" for x in xs)


def _ipd_reciprocity(aa: list[dict], naive: list[dict], lola: dict, iters: int, figs: list[str]) -> Finding:
    aa_r, naive_r = [_final_reward(r) for r in aa], [_final_reward(r) for r in naive]
    measured: dict = {"adalign_reward": aa_r, "naive_reward": naive_r,
                      "lola_exact_reward_per_step": _final_reward(lola), "seeds": len(aa),
                      "iterations": iters}
    measured |= {f"adalign_p_coop_{s}": [_seat_mean_p(r, s) for r in aa] for s in STATES}
    measured |= {f"naive_p_coop_{s}": [_seat_mean_p(r, s) for r in naive] for s in STATES}
    p = {s: float(np.mean(measured[f"adalign_p_coop_{s}"])) for s in STATES}
    summary = (f"reward/step AdAlign {_ci(aa_r)} (per seed {_per_seed(aa_r)}) vs naive PG {_ci(naive_r)} "
               f"(exact LOLA {_final_reward(lola):.2f}); AdAlign P(C|CD) per seed "
               f"{_per_seed(measured['adalign_p_coop_CD'])}; mean P(C|start,CC,CD,DC,DD) = "
               + ", ".join(f"{p[s]:.2f}" for s in STATES) + "; paper "
               + ", ".join(f"{PAPER_IPD_POLICY[s]:.2f}" for s in STATES))
    return Finding.measure("ipd_reciprocity", measured, summary, figs)


def _seat_mean_vs_defect(r: dict) -> float:
    return float(np.mean(r["vs_defect"]))


def _not_exploitable(ctx: RunContext, aa: list[dict], ad_trained: dict[str, list[dict]]) -> Finding:
    # the paper's protocol: self-play agents frozen, each seat played against always-defect
    frozen = [_seat_mean_vs_defect(r) for r in aa]
    measured: dict = {"selfplay_frozen_vs_defect": frozen, "library_past_term": "discounted"}
    notes = []
    for past, runs in ad_trained.items():
        rewards = [r["eval"]["reward_0"] for r in runs]
        measured[f"trained_vs_defect_{past}"] = rewards
        for s in STATES:
            measured[f"trained_vs_defect_{past}_p_coop_{s}"] = [r["policy"][0][s] for r in runs]
        dd = float(np.mean(measured[f"trained_vs_defect_{past}_p_coop_DD"]))
        notes.append(f"{_ci(rewards)} with the {'default ' if past == 'discounted' else ''}{past} past term "
                     f"(P(C|DD) {dd:.2f})")
    fig = _vs_defect_figure(ctx, frozen, {p: measured[f"trained_vs_defect_{p}"] for p in ad_trained})
    return Finding.measure(
        "not_exploitable", measured,
        f"judged: self-play AdAlign agents, frozen, vs always-defect {_ci(frozen)} reward/step (per seed "
        f"{_per_seed(frozen, '.3f')}; tit-for-tat -2.06, mutual defection -2). Not judged: an AdAlign "
        "learner trained against always-defect gets " + "; ".join(notes)
        + " (always-cooperate gets -3, alternating C and D -2.5)", [fig])


def _deferred(key: str, profile: str, task: Task, summary: str, measured: dict, figs: list[str]) -> Finding:
    """A claim that needs the full profile's training length: deferred, with the small run's numbers."""
    finding = Finding.deferred(key, f"{profile} profile ran {task.iters} iterations, batch {task.batch}, "
                               f"T={task.T}: {summary}", **measured)
    finding.figures = figs
    return finding


def _coin(aa: list[dict], naive: list[dict], profile: str, figs: list[str]) -> Finding:
    aa_own = [r["eval"]["own_coin_fraction"] for r in aa]
    nv_own = [r["eval"]["own_coin_fraction"] for r in naive]
    measured = {"adalign_own_coin_fraction": aa_own, "naive_own_coin_fraction": nv_own,
                "adalign_reward": [_final_reward(r) for r in aa],
                "naive_reward": [_final_reward(r) for r in naive],
                "adalign_vs_defect": [_seat_mean_vs_defect(r) for r in aa], "iterations": aa[0]["task"].iters,
                "adalign_train_own_coin_fraction_last10pct": [_tail_ratio(r, "own_coins", "coins")
                                                              for r in aa]}
    summary = (f"own-coin fraction AdAlign {_ci(aa_own)} vs naive {_ci(nv_own)} (per seed "
               + ", ".join(f"{x:.2f}/{y:.2f}" for x, y in zip(aa_own, nv_own, strict=True))
               + f"); reward/step {np.mean(measured['adalign_reward']):.3f} vs "
               f"{np.mean(measured['naive_reward']):.3f}; paper: AdAlign self-play 0.28/step")
    if profile != "full":
        return _deferred("coin_game", profile, aa[0]["task"], summary, measured, figs)
    return Finding.measure("coin_game", measured, summary, figs)


def _negotiation(adap: list[dict], ppo: list[dict], profile: str, figs: list[str]) -> Finding:
    w_aa = [r["eval"]["welfare_per_round"] for r in adap]
    w_ppo = [r["eval"]["welfare_per_round"] for r in ppo]
    vs_ad = [_seat_mean_vs_defect(r) for r in adap]
    measured = {"adap_welfare": w_aa, "ppo_welfare": w_ppo, "adap_vs_defect": vs_ad,
                "ppo_vs_defect": [_seat_mean_vs_defect(r) for r in ppo], "iterations": adap[0]["task"].iters,
                "adap_train_welfare_peak_smoothed": [_peak(r, "welfare") for r in adap]}
    summary = (f"self-play welfare/round AdAP {_ci(w_aa)} vs PPO {_ci(w_ppo)} (per seed "
               + ", ".join(f"{x:.2f}/{y:.2f}" for x, y in zip(w_aa, w_ppo, strict=True))
               + f"; greedy 9, cooperative 15); vs always-defect AdAP {_ci(vs_ad)} per round (per seed "
               f"{_per_seed(vs_ad)}), PPO {np.mean(measured['ppo_vs_defect']):.2f} (defecting back gets 4.5, "
               "always-cooperate 3.75)")
    if profile != "full":
        return _deferred("negotiation", profile, adap[0]["task"], summary, measured, figs)
    return Finding.measure("negotiation", measured, summary, figs)


def _cheaper(timing: dict[int, dict[str, list[float]]], repeats: int) -> Finding:
    measured: dict = {"repeats": repeats, "gru_hidden": 32, "T": 16}
    parts = []
    for b, t in timing.items():
        ratio = [d / a for a, d in zip(t["adalign"], t["lola_dice"], strict=True)]
        geo = float(np.exp(np.mean(np.log(ratio))))
        measured |= {f"ratio_b{b}": ratio, f"adalign_cpu_s_b{b}": t["adalign"],
                     f"lola_dice_cpu_s_b{b}": t["lola_dice"]}
        parts.append(f"batch {b}: {np.median(t['lola_dice']) * 1e3:.0f} vs "
                     f"{np.median(t['adalign']) * 1e3:.0f} ms ({geo:.1f}x, per repeat "
                     f"{min(ratio):.1f}-{max(ratio):.1f}x)")
    return Finding.measure("cheaper_than_lola", measured,
                           f"GRU policies, CPU time per update, {repeats} alternated repeats, LOLA-DiCE vs "
                           f"AdAlign (medians): " + "; ".join(parts)
                           + f"; paper ~{PAPER_SPEEDUP:.0f}x vs OS methods (A100, JAX)")


def _smooth(h: np.ndarray, window: int = 10) -> np.ndarray:
    """Trailing moving average over `window` iterations (shorter at the start), so seeds stay readable."""
    h = np.asarray(h, dtype=float)
    c = np.cumsum(np.insert(h, 0, 0.0))
    i = np.arange(1, len(h) + 1)
    lo = np.maximum(i - window, 0)
    return (c[i] - c[lo]) / (i - lo)


def _curves(ax, runs: list[dict], curve, color: str, label: str) -> None:
    """One thin line per seed and the mean over seeds in bold."""
    ys = [_smooth(curve(r)) for r in runs]
    for y in ys:
        ax.plot(y, color=color, alpha=0.35, lw=0.8)
    if ys:
        n = len(ys)
        ax.plot(np.mean(ys, axis=0), color=color, lw=2, label=f"{label} ({n} seed{'s' * (n > 1)})")


def _figures(ctx: RunContext, aa: list[dict], naive: list[dict], lola: dict) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def reward(r: dict) -> np.ndarray:
        return (np.asarray(r["history"]["reward_0"]) + np.asarray(r["history"]["reward_1"])) / 2

    fig, ax = plt.subplots(figsize=(6, 3.5))
    _curves(ax, aa, reward, "C0", "AdAlign")
    _curves(ax, naive, reward, "C3", "naive PG")
    ax.plot(reward(lola), color="C2", alpha=0.8, label="exact LOLA (per LOLA step, 1 seed)")
    ax.set(xlabel="iteration (the first 100 train only the critic)", ylabel="reward / step (10-iter mean)",
           title="IPD self-play training curves")
    ax.axhline(-1, ls=":", c="gray")
    ax.axhline(-2, ls=":", c="gray")
    ax.text(0, -1.02, "mutual cooperation", fontsize=7, va="top", color="gray")
    ax.text(0, -1.98, "mutual defection", fontsize=7, va="bottom", color="gray")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.figure_path("ipd_learning_curves.png"), dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    x = np.arange(len(STATES))
    rows = [("AdAlign (ours)", aa), ("naive PG (ours)", naive), ("exact LOLA (ours)", [lola])]
    w = 0.2
    for k, (name, runs) in enumerate(rows):
        tables = [t for r in runs for t in r["policy"]]
        ax.bar(x + (k - 1.5) * w, [float(np.mean([t[s] for t in tables])) for s in STATES], w, label=name)
    ax.bar(x + 1.5 * w, [PAPER_IPD_POLICY[s] for s in STATES], w, label="AdAlign (paper)", color="gray")
    ax.set(xticks=x, xticklabels=STATES, ylabel="P(cooperate | state)", ylim=(0, 1.05),
           title="IPD policies (state = own, opponent last move)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.figure_path("ipd_policy_bars.png"), dpi=100)
    plt.close(fig)
    return ["ipd_learning_curves.png", "ipd_policy_bars.png"]


def _vs_defect_figure(ctx: RunContext, frozen: list[float], trained: dict[str, list[float]]) -> str:
    """Reward per step against always-defect: the judged frozen self-play agents, and learners trained
    against always-defect under both past-term forms (the default discounted one is exploited)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [("self-play AdAlign,\nfrozen (judged)", frozen, "C0"),
            ("AdAlign trained vs AD,\ndiscounted past (default)", trained["discounted"], "C3"),
            ("AdAlign trained vs AD,\nrunning-mean past", trained["mean"], "C1")]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for i, (_, xs, color) in enumerate(rows):
        ax.bar(i, np.mean(xs), color=color, alpha=0.8)
        ax.scatter([i] * len(xs), xs, color="k", s=10, zorder=3)
    refs = ((-2.0, "mutual defection -2"), (-2.0625, "tit-for-tat -2.06"), (-3.0, "always-cooperate -3"))
    for y, txt in refs:
        ax.axhline(y, ls=":", c="gray", lw=0.8)
        ax.text(2.45, y, txt, fontsize=7, va="center", ha="right", color="gray",
                bbox={"fc": "white", "ec": "none", "pad": 0.5})
    ax.set(xticks=range(len(rows)), xticklabels=[r[0] for r in rows], ylim=(-3.1, -1.8),
           ylabel="reward / step vs always-defect", title="IPD, T=16: who is exploited by always-defect")
    ax.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    name = "vs_always_defect.png"
    fig.savefig(ctx.figure_path(name), dpi=100)
    plt.close(fig)
    return name


def _game_figures(ctx: RunContext, coin: tuple[list[dict], list[dict]],
                  neg: tuple[list[dict], list[dict]]) -> list[str]:
    """Training curves, one thin line per seed and the mean: own-coin fraction (Coin Game), welfare per
    round (Negotiation)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def own_fraction(r: dict) -> np.ndarray:
        return np.asarray(r["history"]["own_coins"]) / np.maximum(np.asarray(r["history"]["coins"]), 1e-9)

    names = []
    for runs, labels, curve, ylabel, fname, title, refs in (
        (coin, ("AdAlign", "naive PG"), own_fraction, "own-coin fraction", "coin_learning_curves.png",
         "Coin Game self-play training curves", ((0.5, "random pickup 0.5"),)),
        (neg, ("AdAP", "PPO"), lambda r: np.asarray(r["history"]["welfare"]), "welfare per round",
         "negotiation_learning_curves.png", "Negotiation self-play training curves",
         ((9.0, "greedy 9"), (15.0, "cooperative 15"))),
    ):
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for seed_runs, label, color in zip(runs, labels, ("C0", "C3"), strict=True):
            _curves(ax, seed_runs, curve, color, label)
        for y, txt in refs:
            ax.axhline(y, ls=":", c="gray", lw=0.8)
            ax.text(0, y, txt, fontsize=7, va="bottom", color="gray")
        ax.set(xlabel="iteration", ylabel=f"{ylabel} (10-iter mean)", title=title)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(ctx.figure_path(fname), dpi=100)
        plt.close(fig)
        names.append(fname)
    return names
