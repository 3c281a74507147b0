"""Reproduction of "A Closer Look at Machine Unlearning for LLMs" (ICLR 2025) at CPU scale.

A 4 x 128 TinyGPT with a word vocabulary is fine-tuned on a TOFU world (forget01 authors, retain90
authors, Real Authors / World Facts as question -> original answer); a retain-only model gets the same
recipe minus the forget split. The unlearning learning rate is fixed once on seed 0 (the smallest of
{1e-4, 3e-4, 1e-3, 3e-3} at which plain GA halves forget ROUGE), then methods run on 3 seeds.
Quick decides the first three claims on task 1; full adds splits {1-3}, {1-5} and the 10-task
continual scenario. Criteria are the issue's, fixed before measuring."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from iclr25.core.claims import Claim, Finding, Verdict
from iclr25.core.data import shared_data
from iclr25.core.runtime import RunContext
from iclr25.core.stats import mean_ci, proportion_ci
from iclr25.llm_unlearning.data import TOFU_DIR, World, tofu_world

CLAIMS = [
    Claim(key="retain_model_hallucinates",
          statement="A retain-only model (never trained on the forget authors) does not answer forget "
                    "questions with refusals or gibberish but with fluent, wrong answers, so imitating it "
                    "(the implicit goal of untargeted unlearning) means hallucinating; hence TE and ES.",
          paper="TOFU, Llama-2-7B retain model on forget01: ROUGE 0.4082, 74% of outputs hallucinated "
                "(Sec. 3.1)",
          setup="on the forget questions the retain-only TinyGPT has ROUGE-L recall >= 0.25 and a "
                    "hallucination rate >= 0.5 (non-refusals with TE >= 0.5 and ES = 0); PARTIAL when the "
                    "rate is in [0.3, 0.5)"),
    Claim(key="me_untargeted",
          statement="Maximising entropy on forget tokens (ME+GD) forgets as well as GA+GD and NPO+GD while "
                    "keeping model utility.",
          paper="Fig. 4 (TOFU forget01/05/10): ME+GD highest FE with stable MU; GA+GD collapses MU, NPO+GD "
                "plateaus at low FE",
          setup="means over 3 seeds: FE(ME+GD) >= max(FE(GA+GD), FE(NPO+GD)) - 0.02, MU(ME+GD) >= "
                    "0.85 MU(initial) and MU(ME+GD) > MU(GA+GD). Full: on each split {1}, {1-3}, {1-5}; "
                    "PARTIAL if only 2 of 3 hold"),
    Claim(key="ap_targeted",
          statement="Answer preservation (IDK+AP) makes the model refuse forget questions without spreading "
                    "refusals to retain questions, unlike IDK+GD.",
          paper="Fig. 4: IDK+AP is the only targeted method with stable MU; IDK+GD/DPO leak refusal "
                "templates into the retain set",
          setup="refusal = ROUGE-L F1 >= 0.7 to an IDK template; means over 3 seeds: IDK+AP refuses >= "
                    "80% of forget and <= 10% of retain questions; IDK+GD's retain refusal rate >= max(2 x "
                    "IDK+AP's, 10%); MU(IDK+AP) > MU(IDK+GD). Full: on each split; PARTIAL if 2 of 3 hold"),
    Claim(key="continual",
          statement="Over 10 sequential forget tasks the baselines collapse while ME+GD and IDK+AP keep "
                    "utility; NPO's collapse comes from its moving reference model.",
          paper="Fig. 5 (10 tasks of forget01): ME+GD and IDK+AP keep much higher MU; Fig. 6c: NPO with the "
                "reference fixed to the initial model is stable",
          setup="after 10 tasks: min MU(ME+GD, IDK+AP) > max MU(GA+GD, NPO+GD, IDK+GD, DPO+GD), and "
                    "MU(NPO+GD, fixed reference) > MU(NPO+GD, moving reference); PARTIAL if only one holds"),
    Claim(key="real_world",
          statement="On real celebrities (Llama-3-8B-Instruct) ME+GD and IDK+AP forget while keeping utility "
                    "and downstream accuracy.",
          paper="Table 2: initial MU 0.6145; ME+GD MU 0.4901, FE 0.9312; IDK+AP MU 0.5311 (highest)",
          setup="not testable here: needs Llama-3-8B weights, the celebrity data and lm-eval"),
]

QUICK_METHODS = ("ga+gd", "npo+gd", "me+gd", "idk+gd", "idk+ap")
CONTINUAL_METHODS = ("me+gd", "idk+ap", "ga+gd", "npo+gd", "idk+gd", "dpo+gd")
LR_GRID = (1e-4, 3e-4, 1e-3, 3e-3)
ROUGE_PRECONDITION = 0.8


# ---- verdict rules (pure, unit-tested) -----------------------------------------------------------

def decide_hallucination(rouge: float, rate: float) -> Verdict:
    if not rouge >= 0.25:
        return Verdict.NOT_REPRODUCED
    if rate >= 0.5:
        return Verdict.REPRODUCED
    return Verdict.PARTIAL if rate >= 0.3 else Verdict.NOT_REPRODUCED


def me_holds(fe: dict[str, float], mu: dict[str, float], mu_initial: float) -> bool:
    return bool(fe["me+gd"] >= max(fe["ga+gd"], fe["npo+gd"]) - 0.02
                and mu["me+gd"] >= 0.85 * mu_initial and mu["me+gd"] > mu["ga+gd"])


def ap_holds(forget_refusal: dict[str, float], retain_refusal: dict[str, float],
             mu: dict[str, float]) -> bool:
    return bool(forget_refusal["idk+ap"] >= 0.8 and retain_refusal["idk+ap"] <= 0.1
                and retain_refusal["idk+gd"] >= max(2 * retain_refusal["idk+ap"], 0.1)
                and mu["idk+ap"] > mu["idk+gd"])


def decide_splits(holds: Sequence[bool]) -> Verdict:
    """All splits hold: REPRODUCED; with 3 splits, 2 holding: PARTIAL; else NOT_REPRODUCED."""
    n = sum(map(bool, holds))
    if n == len(holds) and n > 0:
        return Verdict.REPRODUCED
    return Verdict.PARTIAL if len(holds) >= 3 and n == len(holds) - 1 else Verdict.NOT_REPRODUCED


def decide_continual(mu_final: dict[str, float], npo_fixed: float, npo_moving: float) -> Verdict:
    a = min(mu_final["me+gd"], mu_final["idk+ap"]) > max(mu_final[m] for m in ("ga+gd", "npo+gd", "idk+gd",
                                                                                "dpo+gd"))
    b = npo_fixed > npo_moving
    return Verdict.REPRODUCED if a and b else Verdict.PARTIAL if a or b else Verdict.NOT_REPRODUCED


# ---- workers (module level so ctx.map can ship them) --------------------------------------------

_ENCODER = None


def _encoder():
    global _ENCODER
    if _ENCODER is None:
        from iclr25.core.models import sentence_encoder
        _ENCODER = sentence_encoder()
    return _ENCODER


_MODELS: dict = {}  # in-process memo; workers forked after it is filled inherit the loaded models


def _pretrained(world: World, pcfg: dict, with_forget: bool):
    """The fine-tuned world model (cached). It also learns the 100 refusal templates as plain sentences:
    a pretrained LLM can already say "I'm not sure.", while a TinyGPT that never saw them had to learn
    them from scratch inside IDK's 10 steps (refusal NLL 12.5 nats/token before, 5.1 after: 3% refusals)."""
    from iclr25.llm_unlearning.data import idk_templates
    from iclr25.llm_unlearning.model import PretrainConfig, _fingerprint, pretrain
    train, cfg, texts = world.training_qa(with_forget), PretrainConfig(**pcfg), idk_templates()
    key = _fingerprint(train, world.vocab_rows, cfg, texts)
    if key not in _MODELS:
        _MODELS[key] = pretrain(train, cfg, vocab=world.vocab_rows, texts=texts)
    return _MODELS[key]


def pretrain_job(job: dict) -> dict:
    """Fine-tune (or load from cache) the full or retain-only model; returns its training info."""
    m = _pretrained(job["world"], job["pcfg"], job["with_forget"])
    return dict(m.train_info)


def eval_sets(world: World, tasks: Sequence[int], n_eval: int) -> dict[str, list]:
    forget = world.forget(tasks)
    forget = forget[::max(1, len(forget) // n_eval)][:n_eval]  # spread over the tasks
    return {"forget": forget, "retain": world.retain_eval[:n_eval],
            "real_authors": world.real_authors[:n_eval], "world_facts": world.world_facts[:n_eval]}


def _scores(model, world: World, tasks: Sequence[int], n_eval: int, retain_tr=None, sets=None,
            max_new: int = 96) -> dict:
    from iclr25.llm_unlearning.evaluate import evaluate_unlearning, hallucination_rate
    chosen = eval_sets(world, tasks, n_eval)
    if sets is not None:
        chosen = {k: v for k, v in chosen.items() if k in sets}
    rep = evaluate_unlearning(model, chosen, encoder=_encoder(), retain_truth_ratios=retain_tr,
                              max_new_tokens=max_new)
    out = rep.summary()
    for k, r in rep.sets.items():
        out[f"{k}_refusal"] = r.metrics["refusal"]
    if "forget" in rep.sets:
        out["forget_hallucination"] = hallucination_rate(rep.sets["forget"])
        out["forget_tr_raw"] = rep.sets["forget"].items["tr_raw"]
        out["forget_generations"] = rep.sets["forget"].generations[:3]
    return out


def unlearn_job(job: dict) -> dict:
    """One method on one split and seed: unlearn from the full model, evaluate all four sets."""
    from iclr25.llm_unlearning.unlearn import UnlearnConfig, unlearn
    world, tasks = job["world"], job["tasks"]
    model = _pretrained(world, job["pcfg"], True)
    cfg = UnlearnConfig(method=job["method"], lr=job["lr"], seed=job["seed"], epochs=job["epochs"])
    out = unlearn(model, None, world.forget(tasks), world.retain, config=cfg)
    if job.get("forget_rouge_only"):
        from iclr25.llm_unlearning.evaluate import generate_answers
        from iclr25.llm_unlearning.metrics import rouge_l
        rows = world.forget(tasks)
        gens, _ = generate_answers(out, [r["question"] for r in rows], job["max_new"])
        rouge = [rouge_l(r["answer"], g)[0] for r, g in zip(rows, gens, strict=True)]
        return {"forget_rouge": float(np.mean(rouge))}
    return {**job["key"], **_scores(out, world, tasks, job["n_eval"], job.get("retain_tr"),
                                    max_new=job["max_new"])}


def baseline_job(job: dict) -> dict:
    """The initial (full) or retain-only model, evaluated without unlearning."""
    model = _pretrained(job["world"], job["pcfg"], job["with_forget"])
    return _scores(model, job["world"], job["tasks"], job["n_eval"], max_new=job["max_new"])


def continual_job(job: dict) -> dict:
    """One method over all tasks in sequence; MU (retain, RA, WF) after every `every` tasks."""
    from iclr25.llm_unlearning.unlearn import UnlearnConfig, continual_unlearn
    world = job["world"]
    model = _pretrained(world, job["pcfg"], True)
    tasks = sorted(world.forget_tasks)
    mus: dict[int, float] = {}

    def after(i, m):
        if (i + 1) % job["every"] == 0 or i + 1 == len(tasks):
            mus[i + 1] = _scores(m, world, [tasks[0]], job["n_eval"], sets=("retain", "real_authors",
                                                                            "world_facts"),
                                 max_new=job["max_new"])["mu"]

    cfg = UnlearnConfig(method=job["method"], lr=job["lr"], seed=job["seed"], epochs=job["epochs"])
    continual_unlearn(model, None, [world.forget_tasks[t] for t in tasks], world.retain, ref=job["ref"],
                      config=cfg, after_task=after)
    return {"name": job["name"], "mu_by_task": mus}


# ---- the protocol --------------------------------------------------------------------------------

def _sizes(ctx: RunContext) -> dict:
    return ctx.pick(
        smoke=dict(tasks=[1], splits=[[1]], authors=1, n_real=4, n_eval=4, seeds=[1], methods=[QUICK_METHODS],
                   pcfg=dict(n_layer=1, d_model=16, n_head=2, epochs=1, batch=32), epochs=1, forget_cap=4,
                   max_new=8),
        quick=dict(tasks=[1], splits=[[1]], authors=10, n_real=40, n_eval=40, seeds=[3],
                   methods=[QUICK_METHODS], pcfg={}, epochs=5, forget_cap=None, max_new=96),
        # full (CPU budget): on {1} the claims' five methods x 3 seeds and the other eight x 1 seed; on
        # {1-3} and {1-5} the five methods x 1 seed
        full=dict(tasks=list(range(1, 11)), splits=[[1], [1, 2, 3], [1, 2, 3, 4, 5]], authors=10, n_real=40,
                  n_eval=40, seeds=[3, 1, 1], methods=[None, QUICK_METHODS, QUICK_METHODS], pcfg={}, epochs=5,
                  forget_cap=None, extra_seeds=1, max_new=96))


def run(profile: str, ctx: RunContext) -> list[Finding]:
    root = shared_data(TOFU_DIR)
    if root is None:
        reason = f"TOFU data folder shared/data/{TOFU_DIR} not found"
        return [Finding.not_testable(c.key, reason) for c in CLAIMS]
    from iclr25.llm_unlearning.model import PretrainConfig
    from iclr25.llm_unlearning.unlearn import METHODS
    sz = _sizes(ctx)
    pcfg = asdict(PretrainConfig(**sz["pcfg"]))
    world = tofu_world(root, sz["tasks"], sz["authors"], sz["n_real"])
    if sz["forget_cap"]:
        world.forget_tasks = {t: v[:sz["forget_cap"]] for t, v in world.forget_tasks.items()}
    info = ctx.map(pretrain_job, [dict(world=world, pcfg=pcfg, with_forget=w) for w in (True, False)],
                   "fine-tuning TinyGPT (full, retain-only)")
    _warm_up(world, pcfg)
    first = sz["splits"][0]
    base = dict(world=world, pcfg=pcfg, n_eval=sz["n_eval"], max_new=sz["max_new"])
    # one map (no idle worker between two short ones): the two baselines and the GA lr calibration runs
    calib = [dict(base, fn=unlearn_job, tasks=first, method="ga", seed=0, lr=lr, epochs=sz["epochs"],
                  forget_rouge_only=True) for lr in LR_GRID]
    out = ctx.map(_call, [dict(base, fn=baseline_job, with_forget=w, tasks=first) for w in (True, False)]
                  + calib, "initial and retain-only models; lr calibration (GA)")
    initial, retain_model = out[:2]
    lr, lr_trace = pick_lr([r["forget_rouge"] for r in out[2:]], initial["forget_rouge"])
    jobs = [dict(base, tasks=split, method=m, seed=s, lr=lr, epochs=sz["epochs"],
                 retain_tr=retain_model["forget_tr_raw"] if split == first else None,
                 key=dict(split=si, method=m, seed=s))
            for si, split in enumerate(sz["splits"]) for m in (sz["methods"][si] or METHODS)
            for s in range(sz["seeds"][si] if m in QUICK_METHODS else sz.get("extra_seeds", 1))]
    results = ctx.map(unlearn_job, jobs, "unlearning runs")
    common = dict(lr=lr, lr_trace=lr_trace, params=info[0]["params"], train_s_full=info[0]["train_s"],
                  initial_forget_rouge=initial["forget_rouge"], initial_retain_rouge=initial["retain_rouge"],
                  precondition_met=int(min(initial["forget_rouge"], initial["retain_rouge"])
                                       >= ROUGE_PRECONDITION),
                  initial_mu=initial["mu"])
    figs = _figures(ctx, results, initial, retain_model)
    findings = [_finding_hallucination(retain_model, common),
                _finding_me(results, initial, sz, common, figs),
                _finding_ap(results, sz, common, figs)]
    if profile == "full":
        findings.append(_continual(ctx, base, lr, sz, figs))
    else:
        findings.append(Finding.deferred(
            "continual", f"10 sequential tasks run in the full profile only (quick world has task 1); "
                         f"lr {lr:g} from calibration"))
    findings.append(Finding.not_testable(
        "real_world", "needs Llama-3-8B-Instruct weights (hub download), the celebrity forget/neighbour sets "
                      "and lm-eval; not obtainable offline on 2 CPU cores"))
    return findings


def _warm_up(world: World, pcfg: dict) -> None:
    """Load what every job needs (both models from the cache, the sentence encoder, the ROUGE scorer)
    once in this process: the process backend forks its workers per map, and they inherit it all."""
    from iclr25.llm_unlearning.metrics import _scorer
    for with_forget in (True, False):
        _pretrained(world, pcfg, with_forget)
    _encoder()
    _scorer()


def _call(job: dict) -> dict:
    """Run job["fn"] on the job (lets one ctx.map mix kinds of jobs)."""
    return job["fn"](job)


def pick_lr(rouges: Sequence[float], rouge0: float) -> tuple[float, str]:
    """Smallest lr of LR_GRID at which plain GA (seed 0) halved forget ROUGE; the largest if none did."""
    trace = ", ".join(f"{lr:g}:{r:.3f}" for lr, r in zip(LR_GRID, rouges, strict=True))
    ok = [lr for lr, r in zip(LR_GRID, rouges, strict=True) if r <= rouge0 / 2]
    return (ok[0] if ok else LR_GRID[-1]), trace


def _by_method(results: list[dict], split: int, key: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in results:
        if r["split"] == split:
            out.setdefault(r["method"], []).append(float(r[key]))
    return out


def _means(results: list[dict], split: int, key: str) -> dict[str, float]:
    return {m: float(np.mean(v)) for m, v in _by_method(results, split, key).items()}


def _finding_hallucination(retain_model: dict, common: dict) -> Finding:
    rouge, rate = retain_model["forget_rouge"], retain_model["forget_hallucination"]
    n = len(retain_model["forget_tr_raw"])
    ci = proportion_ci(int(round(rate * n)), n)
    v = decide_hallucination(rouge, rate)
    measured = dict(retain_model_forget_rouge=rouge, **ci.to_measured("hallucination_rate"),
                    retain_model_forget_refusal=retain_model["forget_refusal"],
                    retain_model_forget_te=retain_model["forget_te"], retain_model_mu=retain_model["mu"],
                    example_output=retain_model["forget_generations"][0], **common)
    return Finding("retain_model_hallucinates", v, measured,
                   f"retain-only TinyGPT on forget questions: ROUGE {rouge:.3f}, hallucinated {rate:.0%} "
                   f"(95% CI {ci.lo:.0%}-{ci.hi:.0%}); paper 0.4082 and 74%")


def _finding_me(results, initial, sz, common, figs) -> Finding:
    holds, measured = [], {}
    for si, _ in enumerate(sz["splits"]):
        fe, mu = _means(results, si, "fe"), _means(results, si, "mu")
        holds.append(me_holds(fe, mu, initial["mu"]))
        for m in ("me+gd", "ga+gd", "npo+gd"):
            measured[f"split{si}_fe_{m}"] = fe[m]
            ci = mean_ci(_by_method(results, si, "mu")[m])
            measured.update(ci.to_measured(f"split{si}_mu_{m}"))
        measured[f"split{si}_holds"] = int(holds[-1])
        measured[f"split{si}_mu_seed_sd_me+gd"] = float(np.std(_by_method(results, si, "mu")["me+gd"]))
    measured.update(common)
    v = decide_splits(holds)
    s0 = {k: measured[f"split0_{k}"] for k in ("fe_me+gd", "fe_ga+gd", "fe_npo+gd", "mu_me+gd", "mu_ga+gd")}
    return Finding("me_untargeted", v, measured,
                   f"split {{1}}: FE ME+GD {s0['fe_me+gd']:.3f} vs GA+GD {s0['fe_ga+gd']:.3f}, NPO+GD "
                   f"{s0['fe_npo+gd']:.3f}; MU ME+GD {s0['mu_me+gd']:.3f} vs initial {initial['mu']:.3f}, "
                   f"GA+GD {s0['mu_ga+gd']:.3f}; {sum(holds)}/{len(holds)} splits hold", figures=[figs[0]])


def _finding_ap(results, sz, common, figs) -> Finding:
    holds, measured = [], {}
    for si, _ in enumerate(sz["splits"]):
        fr, rr, mu = (_means(results, si, k) for k in ("forget_refusal", "retain_refusal", "mu"))
        holds.append(ap_holds(fr, rr, mu))
        for m in ("idk+ap", "idk+gd"):
            measured.update({f"split{si}_forget_refusal_{m}": fr[m], f"split{si}_retain_refusal_{m}": rr[m],
                             f"split{si}_mu_{m}": mu[m]})
        measured[f"split{si}_holds"] = int(holds[-1])
    measured.update(common)
    m = measured
    return Finding("ap_targeted", decide_splits(holds), measured,
                   f"split {{1}}: IDK+AP refuses {m['split0_forget_refusal_idk+ap']:.0%} forget / "
                   f"{m['split0_retain_refusal_idk+ap']:.0%} retain, IDK+GD "
                   f"{m['split0_forget_refusal_idk+gd']:.0%} / {m['split0_retain_refusal_idk+gd']:.0%}; "
                   f"MU {m['split0_mu_idk+ap']:.3f} vs "
                   f"{m['split0_mu_idk+gd']:.3f}; {sum(holds)}/{len(holds)} splits hold", figures=[figs[1]])


def _continual(ctx: RunContext, base: dict, lr: float, sz: dict, figs: list[str]) -> Finding:
    jobs = [dict(base, method=m, ref="previous", name=m) for m in CONTINUAL_METHODS]
    jobs.append(dict(base, method="npo+gd", ref="initial", name="npo+gd (fixed ref)"))
    for j in jobs:
        j.update(lr=lr, seed=0, epochs=sz["epochs"], every=5)
    res = {r["name"]: r["mu_by_task"] for r in ctx.map(continual_job, jobs, "continual unlearning")}
    final = {k: v[max(v)] for k, v in res.items()}
    v = decide_continual(final, final["npo+gd (fixed ref)"], final["npo+gd"])
    fig = _plot_continual(ctx, res)
    measured = {f"mu_after10_{k}": x for k, x in final.items()}
    measured["lr"] = lr
    return Finding("continual", v, measured,
                   "MU after 10 tasks: " + ", ".join(f"{k} {x:.3f}" for k, x in final.items()), figures=[fig])


# ---- figures -------------------------------------------------------------------------------------

def _figures(ctx: RunContext, results: list[dict], initial: dict, retain_model: dict) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fe, mu = _means(results, 0, "fe"), _means(results, 0, "mu")
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for m in fe:
        ax.scatter(fe[m], mu[m], s=40)
        ax.annotate(m.upper(), (fe[m], mu[m]), fontsize=8, xytext=(3, 3), textcoords="offset points")
    for name, r, mk in (("initial", initial, "k*"), ("retain-only", retain_model, "kx")):
        ax.plot(r["fe"], r["mu"], mk, ms=9)
        ax.annotate(name, (r["fe"], r["mu"]), fontsize=8, xytext=(3, -10), textcoords="offset points")
    ax.set(xlabel="Forget Efficacy (FE)", ylabel="Model Utility (MU)", title="TinyGPT on TOFU forget task 1")
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "mu_fe_scatter.png", dpi=120)
    plt.close(fig)
    fr, rr = _means(results, 0, "forget_refusal"), _means(results, 0, "retain_refusal")
    names = [m for m in fr if m.startswith(("idk", "dpo"))] or list(fr)
    fig, ax = plt.subplots(figsize=(6, 4))
    x = np.arange(len(names))
    ax.bar(x - 0.2, [fr[m] for m in names], 0.4, label="forget questions")
    ax.bar(x + 0.2, [rr[m] for m in names], 0.4, label="retain questions")
    ax.set_xticks(x, [m.upper() for m in names])
    ax.set(ylabel="refusal rate", ylim=(0, 1.05), title="Refusals (ROUGE-L F1 >= 0.7 to an IDK template)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "refusal_rates.png", dpi=120)
    plt.close(fig)
    return ["mu_fe_scatter.png", "refusal_rates.png"]


def _plot_continual(ctx: RunContext, res: dict[str, dict[int, float]]) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, curve in res.items():
        ks = sorted(curve)
        ax.plot(ks, [curve[k] for k in ks], "o-", label=name.upper())
    ax.set(xlabel="tasks unlearned", ylabel="Model Utility (MU)", title="Continual unlearning (forget01)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "mu_vs_task.png", dpi=120)
    plt.close(fig)
    return "mu_vs_task.png"
