"""The power study of paper §4 on one reference model: build every endpoint's completion pool, then
estimate each test's power (and false-positive rate) by Monte Carlo at every N and completion length L,
with a null simulated once per (test, L, N) from the reference pool and shared by all alternatives."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from iclr25.core.runtime import RunContext, timer
from iclr25.model_equality.encoding import CompletionSample
from iclr25.model_equality.endpoints import DISTORTIONS, ModelConfig, reference_model
from iclr25.model_equality.pools import PoolRequest, build_pool
from iclr25.model_equality.power import audit_endpoint, estimate_power
from iclr25.model_equality.pvalues import NullSimulator

TESTS = ("hamming", "onehot", "l1", "chi2")
MMD_TESTS = ("hamming", "onehot")  # the two whose statistic has a denominator (Eq. 4 or pairs)


@dataclass(frozen=True)
class StudyConfig:
    """Sizes of one study (paper §4 defaults where they apply: L = 50 tokens, alpha = 0.05, 100
    simulations, B = 1000). Pools hold >= 10x the largest N/m completions per prompt and are sampled
    without replacement, so that no two simulated samples share a row."""

    m: int = 10
    L: int = 50  # noqa: N815 - tokens per completion
    L_sweep: tuple[int, ...] = (1, 2, 3, 5, 10, 20, 50)  # noqa: N815
    n_per_prompt: tuple[int, ...] = (5, 10, 20)  # N / m
    headline_n: int = 10  # N / m of the headline claims (the paper's N = 10m)
    pool: int = 200  # completions per prompt and endpoint
    distortions: tuple[str, ...] = DISTORTIONS
    sims: int = 100  # Monte-Carlo simulations per power estimate
    fpr_sims: int = 400  # simulations of the same-model false-positive rate (its band is narrow)
    b: int = 1000  # null simulations
    alpha: float = 0.05
    perm_sims: int = 100  # simulations of the permutation test's level (Hamming)
    perm_b: int = 200
    audit_alpha: float = 0.01  # §5
    audit_reps: int = 10
    gen_batch: int = 200  # rows sampled together (SmolLM2: 107 tokens per CPU-second at 128, 76 at 32)
    models: ModelConfig = ModelConfig()

    def __post_init__(self) -> None:
        for name, hi in (("m", 400), ("L", 1000), ("pool", 100_000), ("sims", 100_000), ("fpr_sims", 100_000),
                         ("b", 100_000), ("perm_sims", 100_000), ("perm_b", 100_000), ("audit_reps", 10_000),
                         ("gen_batch", 4096), ("headline_n", 10_000)):
            if not 1 <= getattr(self, name) <= hi:
                raise ValueError(f"{name} must be in [1, {hi}], got {getattr(self, name)}")
        for name in ("alpha", "audit_alpha"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must be in (0, 1), got {getattr(self, name)}")
        for name in ("L_sweep", "n_per_prompt"):
            v = getattr(self, name)
            if not v or min(v) < 1 or list(v) != sorted(set(v)):
                raise ValueError(f"{name} must be increasing integers >= 1, got {list(v)}")
        unknown = sorted(set(self.distortions) - set(DISTORTIONS))
        if unknown or not self.distortions or len(set(self.distortions)) != len(self.distortions):
            raise ValueError(f"distortions must be distinct names from {', '.join(DISTORTIONS)}, got "
                             f"{list(self.distortions)}")
        if self.pool < 10 * max(self.n_per_prompt):
            raise ValueError(f"pool {self.pool} < 10 x the largest N/m {max(self.n_per_prompt)}")
        if max(self.L_sweep) != self.L:
            raise ValueError(f"the L sweep must end at L = {self.L}")

    @property
    def sweep_n(self) -> int:
        """N/m of the L sweep: the headline N when this profile has it, else its smallest."""
        return self.headline_n if self.headline_n in self.n_per_prompt else self.n_per_prompt[0]


@dataclass
class Study:
    """What one study measured. power[(test, denominator, L)][n][endpoint] is a rejection rate ("same":
    the false-positive rate); degenerate[(test, denominator, L)][n] flags a null whose (1 - alpha)
    quantile is its maximum (the test cannot reject)."""

    reference: str
    cfg: StudyConfig
    power: dict = field(default_factory=dict)
    degenerate: dict = field(default_factory=dict)
    tv: dict[str, float] = field(default_factory=dict)
    perm_fpr: float = float("nan")
    audit: dict = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    info: dict[str, float] = field(default_factory=dict)

    def at(self, test: str, n: int, L: int | None = None, denominator: str = "pairs") -> dict[str, float]:  # noqa: N803
        return self.power[(test, denominator if test in MMD_TESTS else "-", L or self.cfg.L)][n]


@dataclass(frozen=True)
class Cell:
    """One (test, denominator, L): its null and every endpoint's power at each N (for ctx.map)."""

    test: str
    denominator: str
    L: int  # noqa: N815
    n_per_prompt: tuple[int, ...]
    seed: int
    cfg: StudyConfig
    pools: dict = field(repr=False, hash=False, compare=False)


def power_cell(cell: Cell) -> tuple[dict, dict]:
    """({n: {endpoint: power}}, {n: degenerate}) for one cell."""
    from iclr25.model_equality.encoding import concat
    from iclr25.model_equality.statistics import get_statistic
    cfg = cell.cfg
    stat = get_statistic(cell.test, **({"denominator": cell.denominator} if cell.test in MMD_TESTS else {}))
    ref = cell.pools["ref"]
    null = NullSimulator(ref, stat, b=cfg.b, seed=cell.seed)
    power: dict[int, dict[str, float]] = {n: {} for n in cell.n_per_prompt}
    degenerate: dict[int, bool] = {}
    for n in cell.n_per_prompt:
        stats = null.null_iid(n * cfg.m, n * cfg.m)
        top = float(stats.max())
        degenerate[n] = bool(np.quantile(stats, 1 - cfg.alpha) >= top - 1e-12 * max(1.0, abs(top)))
    for name, alt in cell.pools.items():
        if name == "ref":
            continue
        prep = stat.prepare(concat(ref, alt))
        for n in cell.n_per_prompt:
            sims = cfg.fpr_sims if name == "same" else cfg.sims
            power[n][name] = estimate_power(ref, alt, n * cfg.m, stat, sims=sims, b=cfg.b, alpha=cfg.alpha,
                                            seed=cell.seed, null=null, prepared=prep).power
    return power, degenerate


def permutation_level(ref: CompletionSample, same: CompletionSample, cfg: StudyConfig, seed: int) -> float:
    """FPR of the Hamming test with permutation p-values, reference vs an independent reference sample."""
    from iclr25.model_equality.pvalues import PoolSampler, iid_counts, two_sample_test
    rng = np.random.default_rng([seed, 11])
    sp, sq = PoolSampler(ref), PoolSampler(same)
    n = cfg.sweep_n * cfg.m
    rejects = []
    for s in range(cfg.perm_sims):
        (ip,) = sp.draw([iid_counts(n, cfg.m, rng)], rng)
        (iq,) = sq.draw([iid_counts(n, cfg.m, rng)], rng)
        r = two_sample_test(ref.subset(ip), same.subset(iq), "hamming", "permutation", b=cfg.perm_b,
                            alpha=cfg.alpha, seed=seed + s)
        rejects.append(r.reject)
    return float(np.mean(rejects))


def simulated_audit(pools: dict[str, CompletionSample], cfg: StudyConfig, seed: int) -> dict:
    """§5's audit on our endpoints: composite null {reference (fp32), fp16}, alpha = 0.01, `audit_reps`
    repetitions at N = sweep_n * m; an endpoint fails if rejected in at least half of them."""
    n = cfg.sweep_n * cfg.m
    refs = [pools["ref"], pools["fp16"]] if "fp16" in pools else [pools["ref"]]
    nulls = [NullSimulator(r, "hamming", b=cfg.b, seed=seed + j) for j, r in enumerate(refs)]
    endpoints = [e for e in pools if e not in ("ref", "fp16")]
    flagged = [e for e in endpoints
               if audit_endpoint(refs, pools[e], n, cfg.audit_reps, cfg.audit_alpha, nulls, seed) >= 0.5]
    return {"endpoints": len(endpoints), "failing": len(flagged), "flagged": ", ".join(flagged) or "none"}


def run_study(cfg: StudyConfig, reference: str, prompts: list[str], ctx: RunContext) -> Study:
    """Pools (cached; built in parallel, the slowest first), then every power cell on ctx's backend."""
    models = dataclasses.replace(cfg.models, reference=reference)
    study = Study(reference, cfg)
    with timer() as t:  # a reference trained here is trained once, before every worker needs it
        if reference != "smollm2":
            reference_model(models)
    study.timings["models_s"] = t["s"]
    names = ["ref", "same", *cfg.distortions]
    order = sorted(names, key=lambda e: (e != "swap", e != "finetune"))  # longest first: they train
    reqs = [PoolRequest(e, tuple(prompts), cfg.pool, cfg.L, ctx.seed, models, cfg.gen_batch) for e in order]
    with timer() as t:
        built = dict(zip(order, ctx.map(build_pool, reqs, description=f"{reference} pools"), strict=True))
    study.timings["pools_s"] = t["s"]
    pools = {e: built[e][0] for e in names}
    study.tv = {e: built[e][1] for e in cfg.distortions}
    cells = [Cell(test, "pairs" if test in MMD_TESTS else "-", L,
                  cfg.n_per_prompt if L == cfg.L else (cfg.sweep_n,), ctx.seed, cfg,
                  {e: p.truncate(L) for e, p in pools.items()})
             for test in TESTS for L in cfg.L_sweep]
    cells += [Cell(test, "paper", cfg.L, cfg.n_per_prompt, ctx.seed, cfg, pools) for test in MMD_TESTS]
    with timer() as t:
        results = ctx.map(power_cell, cells, description=f"{reference} power")
    study.timings["power_s"] = t["s"]
    for c, (pw, deg) in zip(cells, results, strict=True):
        study.power[(c.test, c.denominator, c.L)] = pw
        study.degenerate[(c.test, c.denominator, c.L)] = deg
    with timer() as t:
        study.perm_fpr = permutation_level(pools["ref"], pools["same"], cfg, ctx.seed)
        study.audit = simulated_audit(pools, cfg, ctx.seed)
    study.timings["audit_s"] = t["s"]
    study.info["completions_generated"] = float(len(names) * cfg.m * cfg.pool)
    return study
