"""Reproduction of "A Closer Look at Machine Unlearning for LLMs" (ICLR 2025) at CPU scale. Experiments
measure; the claims' rules (claims.py) decide.

A 4 x 128 TinyGPT with a word vocabulary is fine-tuned on a TOFU world (forget01 tasks, retain90 authors,
Real Authors / World Facts as question -> original answer). Each method's learning rate is calibrated by
one rule on a held-out forget task (the last task of the world): the smallest lr of LR_GRID at which the
method halves forget ROUGE. Methods then run on 3 seeds per split; targeted methods train 3x the paper's
epochs. The retain-only model of the hallucination claim is SmolLM2-135M-Instruct fine-tuned on the retain
data (a language prior a TinyGPT lacks). Quick runs the pipeline at small sizes and defers every claim to
the full profile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.data import shared_data
from iclr25.core.runtime import RunContext, child_seeds
from iclr25.core.stats import mean_ci, proportion_ci
from iclr25.llm_unlearning.claims import BASELINES, CLAIMS
from iclr25.llm_unlearning.data import TOFU_DIR, World, tofu_world

CLAIM_METHODS = ("ga+gd", "npo+gd", "me+gd", "idk+gd", "idk+ap")
OTHER_METHODS = ("ga", "ga+kl", "npo", "npo+kl", "me", "idk", "dpo", "dpo+gd")  # the scatter of Fig. 4
CONTINUAL = ("me+gd", "idk+ap", *BASELINES)
LR_GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
TARGETED_EPOCHS = 3  # x the paper's epochs for IDK / DPO methods (a refusal must be learnt, not only removed)
ROUGE_PRECONDITION = 0.8


def epochs_for(method: str, base: int) -> int:
    return base * (TARGETED_EPOCHS if method.split("+")[0] in ("idk", "dpo") else 1)


# ---- workers (module level so ctx.map can ship them) --------------------------------------------

_ENCODER = None


def _encoder():
    global _ENCODER
    if _ENCODER is None:
        from iclr25.core.models import sentence_encoder
        _ENCODER = sentence_encoder()
    return _ENCODER


_MODELS: dict = {}  # in-process memo; workers forked after it is filled inherit the loaded models


def _pretrained(world: World, pcfg: dict):
    """The fine-tuned world model (cached). It also learns the 100 refusal templates as plain sentences:
    a pretrained LLM can already say "I'm not sure.", while a TinyGPT that never saw them had to learn
    them from scratch inside IDK's steps (refusal NLL 12.5 nats/token before, 5.1 after: 3% refusals)."""
    from iclr25.llm_unlearning.data import idk_templates
    from iclr25.llm_unlearning.model import PretrainConfig, _fingerprint, pretrain
    train, cfg, texts = world.training_qa(True), PretrainConfig(**pcfg), idk_templates()
    memo = world.__dict__.setdefault("_fingerprints", {})  # hashing the data and code takes ~0.2 s a call
    key = memo.get(repr(sorted(pcfg.items())))
    if key is None:
        key = memo[repr(sorted(pcfg.items()))] = _fingerprint(train, world.vocab_rows, cfg, texts)
    if key not in _MODELS:
        _MODELS[key] = pretrain(train, cfg, vocab=world.vocab_rows, texts=texts)
    return _MODELS[key]


def eval_sets(world: World, tasks: Sequence[int], n_eval: int) -> dict[str, list]:
    forget = world.forget(tasks)
    forget = forget[::max(1, len(forget) // n_eval)][:n_eval]  # spread over the tasks
    return {"forget": forget, "retain": world.retain_eval[:n_eval],
            "real_authors": world.real_authors[:n_eval], "world_facts": world.world_facts[:n_eval]}


def _scores(model, world: World, tasks: Sequence[int], n_eval: int, sets=None, max_new: int = 96) -> dict:
    from iclr25.llm_unlearning.evaluate import evaluate_unlearning
    chosen = eval_sets(world, tasks, n_eval)
    if sets is not None:
        chosen = {k: v for k, v in chosen.items() if k in sets}
    rep = evaluate_unlearning(model, chosen, encoder=_encoder(), max_new_tokens=max_new)
    out = rep.summary()
    for k, r in rep.sets.items():
        out[f"{k}_refusal"] = r.metrics["refusal"]
    if "forget" in rep.sets:
        out["forget_generations"] = rep.sets["forget"].generations[:2]
    return out


def _forget_rouge(model, rows: list[dict], max_new: int) -> float:
    from iclr25.llm_unlearning.evaluate import generate_answers
    from iclr25.llm_unlearning.metrics import rouge_l
    gens, _ = generate_answers(model, [r["question"] for r in rows], max_new)
    return float(np.mean([rouge_l(r["answer"], g)[0] for r, g in zip(rows, gens, strict=True)]))


def unlearn_job(job: dict) -> dict:
    """One method on one split and seed: unlearn from the world model, then evaluate all four sets (or,
    for lr calibration, forget ROUGE only)."""
    from iclr25.llm_unlearning.unlearn import UnlearnConfig, unlearn
    world, tasks = job["world"], job["tasks"]
    model = _pretrained(world, job["pcfg"])
    if job["method"] is None:  # the initial model
        out = model
    else:
        cfg = UnlearnConfig(method=job["method"], lr=job["lr"], seed=job["seed"],
                            epochs=epochs_for(job["method"], job["epochs"]))
        out = unlearn(model, None, world.forget(tasks), world.retain, config=cfg)
    if job.get("forget_rouge_only"):
        return {**job["key"], "forget_rouge": _forget_rouge(out, world.forget(tasks), job["max_new"])}
    return {**job["key"], **_scores(out, world, tasks, job["n_eval"], max_new=job["max_new"])}


def continual_job(job: dict) -> dict:
    """One method over all tasks in sequence; MU (retain, RA, WF) after the last task."""
    from iclr25.llm_unlearning.unlearn import UnlearnConfig, continual_unlearn
    world = job["world"]
    model = _pretrained(world, job["pcfg"])
    cfg = UnlearnConfig(method=job["method"], lr=job["lr"], seed=job["seed"],
                        epochs=epochs_for(job["method"], job["epochs"]))
    final = continual_unlearn(model, None, [world.forget_tasks[t] for t in job["tasks"]], world.retain,
                              ref=job["ref"], config=cfg)
    mu = _scores(final, world, job["tasks"][:1], job["n_eval"],
                 sets=("retain", "real_authors", "world_facts"), max_new=job["max_new"])["mu"]
    return {"name": job["name"], "seed": job["seed"], "mu": mu}


def retain_model_job(job: dict) -> dict:
    """A pretrained LM (SmolLM2-135M-Instruct; smoke: an untrained 1 x 16 TinyGPT, for speed) fine-tuned on
    the world without its forget authors; its greedy answers to the forget questions of the first task."""
    from iclr25.llm_unlearning.evaluate import answer_items
    from iclr25.llm_unlearning.model import FinetuneConfig, finetune_qa
    world = job["world"]
    train = world.training_qa(False)[:job["n_train"]]
    if job["base"] == "smollm2":
        from iclr25.core.models import small_lm
        base = small_lm()
    else:
        import torch

        from iclr25.core.models import TinyGPTConfig, tiny_gpt
        from iclr25.llm_unlearning.model import world_tokenizer
        torch.manual_seed(job["seed"])  # the untrained TinyGPT's initial weights follow the run's seed
        tok = world_tokenizer(world.vocab_rows)
        base = tiny_gpt(TinyGPTConfig(vocab_size=tok.vocab_size, block_size=160, n_layer=1, n_head=2,
                                      d_model=16, tokenizer="word"), tok)
    model = finetune_qa(base, train, FinetuneConfig(epochs=job["epochs"], seed=job["seed"]),
                        f"fine-tuning {job['base']} (retain-only)")
    rows = world.forget(job["tasks"])[:job["n_eval"]]
    return {**answer_items(model, rows, job["max_new"]), "train_info": model.train_info, "base": job["base"]}


def _call(job: dict) -> dict:
    """Run job["fn"] on the job (lets one ctx.map mix kinds of jobs)."""
    return job["fn"](job)


# ---- the protocol --------------------------------------------------------------------------------

def _sizes(ctx: RunContext) -> dict:
    return ctx.pick(
        smoke=dict(tasks=list(range(1, 7)), splits=[[1], [1, 2, 3], [1, 2, 3, 4, 5]], authors=1, n_real=4,
                   n_eval=4, seeds=2, others=False,
                   pcfg=dict(n_layer=1, d_model=16, n_head=2, epochs=1, batch=32),
                   epochs=1, forget_cap=2, max_new=8, continual=True,
                   retain_model=dict(base="tinygpt", n_train=4, epochs=1, n_eval=2, max_new=6),
                   full_vocab=False),
        quick=dict(tasks=[1, 2], splits=[[1]], authors=3, n_real=10, n_eval=20, seeds=1, others=False,
                   pcfg=dict(n_layer=2, d_model=64, epochs=60, lr=3e-3), epochs=5, forget_cap=20, max_new=48,
                   continual=False, retain_model=None, full_vocab=False),
        full=dict(tasks=list(range(1, 11)), splits=[[1], [1, 2, 3], [1, 2, 3, 4, 5]], authors=10, n_real=40,
                  n_eval=40, seeds=3, others=True, pcfg={}, epochs=5, forget_cap=None, max_new=96,
                  continual=True,
                  retain_model=dict(base="smollm2", n_train=None, epochs=2, n_eval=40, max_new=64),
                  full_vocab=True))


def run(profile: str, ctx: RunContext) -> list[Finding]:
    root = shared_data(TOFU_DIR)
    if root is None:
        reason = f"TOFU data folder shared/data/{TOFU_DIR} not found"
        return [Finding.not_testable(c.key, reason) for c in CLAIMS]
    from iclr25.llm_unlearning.model import PretrainConfig
    sz = _sizes(ctx)
    pcfg = asdict(PretrainConfig(**{**sz["pcfg"], "seed": ctx.seed}))
    world = tofu_world(root, sz["tasks"], sz["authors"], sz["n_real"], sz["full_vocab"])
    if sz["forget_cap"]:
        world.forget_tasks = {t: v[:sz["forget_cap"]] for t, v in world.forget_tasks.items()}
    run_seeds, calib_seed = child_seeds(ctx.seed, sz["seeds"]), child_seeds(ctx.seed + 1000, 1)[0]
    calib_task = [sz["tasks"][-1]]  # held out: in no split's scored forget set
    _warm_up(world, pcfg)
    base = dict(world=world, pcfg=pcfg, n_eval=sz["n_eval"], max_new=sz["max_new"], epochs=sz["epochs"])
    jobs = [dict(base, fn=unlearn_job, method=None, tasks=split, lr=0.0, seed=0, key=dict(split=si))
            for si, split in enumerate(sz["splits"])]
    jobs.append(dict(base, fn=unlearn_job, method=None, tasks=calib_task, lr=0.0, seed=0,
                     forget_rouge_only=True,
                     key=dict(split="calib")))
    if sz["retain_model"]:
        jobs.append(dict(base, fn=retain_model_job, tasks=sz["splits"][0], seed=ctx.seed,
                         **sz["retain_model"]))
    out = ctx.map(_call, jobs, "initial model; SmolLM2 retain-only model")
    initial = {r["split"]: r for r in out[:len(sz["splits"])]}
    rouge0 = out[len(sz["splits"])]["forget_rouge"]
    retain_model = out[-1] if sz["retain_model"] else None
    methods = CLAIM_METHODS + (OTHER_METHODS if sz["others"] else ())
    calibrated = tuple(dict.fromkeys(methods + (CONTINUAL if sz["continual"] else ())))
    lrs, trace = calibrate(ctx, base, calibrated, calib_task, calib_seed, rouge0)
    jobs = [dict(base, method=m, tasks=split, lr=lrs[m], seed=s, key=dict(split=si, method=m, seed=s))
            for si, split in enumerate(sz["splits"])
            for m in (methods if si == 0 else CLAIM_METHODS)
            for s in (run_seeds if m in CLAIM_METHODS else run_seeds[:1])]
    results = ctx.map(unlearn_job, jobs, "unlearning runs")
    memorised = min(min(r["forget_rouge"], r["retain_rouge"]) for r in initial.values())
    common = dict(params=_pretrained(world, pcfg).train_info["params"], calibration_task=calib_task[0],
                  calibration_rouge0=rouge0, calibration=trace, initial_min_rouge=memorised,
                  precondition_met=int(memorised >= ROUGE_PRECONDITION),
                  epochs_untargeted=sz["epochs"], epochs_targeted=epochs_for("idk", sz["epochs"]),
                  **{f"lr_{m}": lrs[m] for m in CLAIM_METHODS})
    labels = ["-".join(map(str, (s[0], s[-1]))) if len(s) > 1 else str(s[0]) for s in sz["splits"]]
    figs = _figures(ctx, results, initial[0])
    decide = profile != "quick"
    findings = [_hallucination(retain_model, common) if retain_model else Finding.deferred(
                    "retain_model_hallucinates", "the SmolLM2 retain-only model is fine-tuned in the full "
                                                 "profile "
                    "only (minutes of CPU)"),
                _me(results, initial, labels, common, figs, decide),
                _ap(results, labels, common, figs, decide)]
    if sz["continual"]:
        findings.append(_continual(ctx, base, lrs, world, run_seeds, figs))
    else:
        findings.append(Finding.deferred(
            "continual", "10 sequential tasks, 3 seeds per method, run in the full profile only"))
    findings.append(Finding.not_testable(
        "real_world", "needs Llama-3-8B-Instruct weights (hub download), the celebrity forget/neighbour sets "
                      "and lm-eval; not obtainable offline on 2 CPU cores"))
    return findings


def _warm_up(world: World, pcfg: dict) -> None:
    """Load what every job needs (the world model, the sentence encoder, the ROUGE scorer) once in this
    process: the process backend forks its workers per map, and they inherit it all."""
    from iclr25.llm_unlearning.metrics import _scorer
    _pretrained(world, pcfg)
    _encoder()
    _scorer()


def calibrate(ctx: RunContext, base: dict, methods: Sequence[str], task: list[int], seed: int,
              rouge0: float) -> tuple[dict[str, float], str]:
    """Per method, the smallest lr of LR_GRID at which it halves forget ROUGE on the held-out `task`
    (the largest if none does): the grid is walked upwards, all methods still uncalibrated in one map."""
    lrs: dict[str, float] = {}
    seen: dict[str, list[str]] = {m: [] for m in methods}
    todo = list(methods)
    for lr in LR_GRID:
        if not todo:
            break
        jobs = [dict(base, method=m, tasks=task, lr=lr, seed=seed, forget_rouge_only=True, key=dict(method=m))
                for m in todo]
        for r in ctx.map(unlearn_job, jobs, f"lr calibration at {lr:g}"):
            seen[r["method"]].append(f"{lr:g}:{r['forget_rouge']:.3f}")
            if r["forget_rouge"] <= rouge0 / 2:
                lrs[r["method"]] = lr
        todo = [m for m in todo if m not in lrs]
    lrs.update({m: LR_GRID[-1] for m in todo})
    return lrs, "; ".join(f"{m} " + ", ".join(v) for m, v in seen.items())


def _per_seed(results: list[dict], split: int, method: str, key: str) -> list[float]:
    return [float(r[key]) for r in sorted(results, key=lambda r: r["seed"])
            if r["split"] == split and r["method"] == method]


def _ci(xs: list[float]) -> str:
    if len(xs) < 2:
        return f"{np.mean(xs):.3f}"
    c = mean_ci(xs)
    return f"{c.mean:.3f} [{c.lo:.3f}, {c.hi:.3f}]"


def _hallucination(rm: dict, common: dict) -> Finding:
    n = len(rm["hallucinated"])
    rate = float(np.mean(rm["hallucinated"]))
    ci = proportion_ci(int(round(rate * n)), n)
    measured = dict(rouge_items=rm["rouge"], hallucinated=rm["hallucinated"], refused=rm["refused"],
                    te_items=rm["te"], entailed=rm["entailed"], rouge=float(np.mean(rm["rouge"])),
                    hallucination_rate=rate, example_output=rm["generations"][0],
                    retain_model=rm["base"],
                    retain_model_epoch_loss=str(rm["train_info"]["epoch_loss"]),
                    retain_model_train_pairs=rm["train_info"]["train_pairs"])
    return Finding.measure("retain_model_hallucinates", measured,
                           f"retain-only {rm['base']} on forget questions: ROUGE {_ci(rm['rouge'])}, "
                           "hallucinated "
                           f"{rate:.0%} (95% CI {ci.lo:.0%}–{ci.hi:.0%}), refusals "
                           f"{np.mean(rm['refused']):.0%}; "
                           f"paper 0.4082 and 74%")


def _me(results, initial, labels, common, figs, decide: bool) -> Finding:
    measured: dict = {}
    parts = []
    for si, lab in enumerate(labels):
        mu0 = initial[si]["mu"]
        for m in ("me+gd", "ga+gd", "npo+gd"):
            for key in ("fe", "mu", "forget_te", "forget_rouge"):
                measured[f"{key}_{m}_{lab}"] = _per_seed(results, si, m, key)
        measured[f"mu_rel_me+gd_{lab}"] = [x / mu0 if mu0 > 0 else float("nan")
                                           for x in measured[f"mu_me+gd_{lab}"]]
        measured[f"initial_mu_{lab}"] = mu0
        measured[f"initial_forget_te_{lab}"] = initial[si]["forget_te"]
        parts.append(f"{{{lab}}}: FE ME+GD {_ci(measured[f'fe_me+gd_{lab}'])} vs GA+GD "
                     f"{_ci(measured[f'fe_ga+gd_{lab}'])}, NPO+GD {_ci(measured[f'fe_npo+gd_{lab}'])}; "
                     "forget TE "
                     f"{np.mean(measured[f'forget_te_me+gd_{lab}']):.2f} / "
                     f"{np.mean(measured[f'forget_te_ga+gd_{lab}']):.2f}"
                     f" / {np.mean(measured[f'forget_te_npo+gd_{lab}']):.2f} (initial "
                     f"{initial[si]['forget_te']:.2f}); MU ME+GD {_ci(measured[f'mu_me+gd_{lab}'])} vs "
                     "initial "
                     f"{mu0:.3f}, GA+GD {_ci(measured[f'mu_ga+gd_{lab}'])}")
    measured.update(common)
    summary = "; ".join(parts) + f"; lr ME+GD {common['lr_me+gd']:g}, GA+GD {common['lr_ga+gd']:g}, NPO+GD " \
                                 f"{common['lr_npo+gd']:g}"
    if decide:
        return Finding.measure("me_untargeted", measured, summary, figures=[figs[0]])
    return Finding.deferred("me_untargeted", "quick: " + summary, **measured)


def _ap(results, labels, common, figs, decide: bool) -> Finding:
    measured: dict = {}
    parts = []
    for si, lab in enumerate(labels):
        for m in ("idk+ap", "idk+gd"):
            measured[f"forget_refusal_{m}_{lab}"] = _per_seed(results, si, m, "forget_refusal")
            measured[f"retain_refusal_{m}_{lab}"] = _per_seed(results, si, m, "retain_refusal")
            measured[f"mu_{m}_{lab}"] = _per_seed(results, si, m, "mu")
        measured[f"retain_refusal_2x_idk+ap_{lab}"] = [2 * x
                                                       for x in measured[f"retain_refusal_idk+ap_{lab}"]]
        g = {k: np.mean(v) for k, v in measured.items() if k.endswith(f"_{lab}")}
        parts.append(f"{{{lab}}}: refusals forget / retain IDK+AP {g[f'forget_refusal_idk+ap_{lab}']:.0%} / "
                     f"{g[f'retain_refusal_idk+ap_{lab}']:.0%}, IDK+GD "
                     f"{g[f'forget_refusal_idk+gd_{lab}']:.0%} / "
                     f"{g[f'retain_refusal_idk+gd_{lab}']:.0%}; MU {g[f'mu_idk+ap_{lab}']:.3f} vs "
                     f"{g[f'mu_idk+gd_{lab}']:.3f}")
    measured.update(common)
    summary = "; ".join(parts) + (f" ({common['epochs_targeted']} epochs; lr IDK+AP {common['lr_idk+ap']:g}, "
                                  f"IDK+GD {common['lr_idk+gd']:g})")
    if decide:
        return Finding.measure("ap_targeted", measured, summary, figures=[figs[1]])
    return Finding.deferred("ap_targeted", "quick: " + summary, **measured)


def _continual(ctx: RunContext, base: dict, lrs: dict[str, float], world: World, seeds: list[int],
               figs: list[str]) -> Finding:
    tasks = sorted(world.forget_tasks)
    jobs = [dict(base, method=m, ref="previous", name=m, lr=lrs[m], seed=s, tasks=tasks)
            for m in CONTINUAL for s in seeds]
    jobs += [dict(base, method="npo+gd", ref="initial", name="npo+gd_fixed", lr=lrs["npo+gd"], seed=s,
                  tasks=tasks) for s in seeds]
    res = ctx.map(continual_job, jobs, "continual unlearning")
    measured: dict = {}
    for r in sorted(res, key=lambda r: r["seed"]):
        measured.setdefault(f"mu_final_{r['name']}", []).append(r["mu"])
    measured["n_tasks"] = len(tasks)
    fig = _plot_continual(ctx, measured)
    return Finding.measure("continual", measured,
                           f"MU after {len(tasks)} tasks (mean over {len(seeds)} seeds): "
                           + ", ".join(f"{k[9:]} {np.mean(v):.3f}" for k, v in measured.items()
                                       if k.startswith("mu_final_")), figures=[fig])


# ---- figures -------------------------------------------------------------------------------------

def _figures(ctx: RunContext, results: list[dict], initial: dict) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in results if r["split"] == 0]
    methods = list(dict.fromkeys(r["method"] for r in rows))

    def mean(m, key):
        return float(np.mean([r[key] for r in rows if r["method"] == m]))

    fig, ax = plt.subplots(1, 2, figsize=(10, 4.2))
    for m in methods:
        for a, x in ((ax[0], "fe"), (ax[1], "forget_te")):
            a.scatter(mean(m, x), mean(m, "mu"), s=40)
            a.annotate(m.upper(), (mean(m, x), mean(m, "mu")), fontsize=8, xytext=(3, 3),
                       textcoords="offset points")
    ax[0].plot(initial["fe"], initial["mu"], "k*", ms=9)
    ax[0].annotate("initial", (initial["fe"], initial["mu"]), fontsize=8, xytext=(3, -10),
                   textcoords="offset points")
    ax[1].plot(initial["forget_te"], initial["mu"], "k*", ms=9)
    ax[0].set(xlabel="Forget Efficacy (FE), higher = more forgotten", ylabel="Model Utility (MU)",
              title="split {1}: MU vs FE")
    ax[1].set(xlabel="forget-set token entropy (low = repetitive output)", ylabel="Model Utility (MU)",
              title="the same runs: MU vs forget TE")
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "mu_fe_scatter.png", dpi=100)
    plt.close(fig)
    names = [m for m in methods if m.startswith(("idk", "dpo"))] or methods
    fig, ax = plt.subplots(figsize=(6, 4))
    x = np.arange(len(names))
    ax.bar(x - 0.2, [mean(m, "forget_refusal") for m in names], 0.4, label="forget questions")
    ax.bar(x + 0.2, [mean(m, "retain_refusal") for m in names], 0.4, label="retain questions")
    ax.axhline(0.8, color="C0", ls=":", lw=1)
    ax.axhline(0.1, color="C1", ls=":", lw=1)
    ax.set_xticks(x, [m.upper() for m in names])
    ax.set(ylabel="refusal rate (mean over seeds)", ylim=(0, 1.05),
           title="Refusals (ROUGE-L F1 >= 0.7 to an IDK template)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "refusal_rates.png", dpi=100)
    plt.close(fig)
    return ["mu_fe_scatter.png", "refusal_rates.png"]


def _plot_continual(ctx: RunContext, measured: dict) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [k for k in measured if k.startswith("mu_final_")]
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for i, k in enumerate(names):
        v = measured[k]
        ax.scatter(np.full(len(v), i), v, s=16)
        ax.plot([i - 0.25, i + 0.25], [np.mean(v)] * 2, "k-", lw=2)
    ax.set_xticks(range(len(names)), [k[9:].upper().replace("_FIXED", "\n(fixed ref)") for k in names],
                  fontsize=7)
    ax.set(ylabel=f"MU after {measured['n_tasks']} tasks", title="Continual unlearning: each seed, and the "
                                                                 "mean")
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "mu_continual.png", dpi=100)
    plt.close(fig)
    return "mu_continual.png"
