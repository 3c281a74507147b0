"""The paper's claims and the rules that decide them (pure data: `iclr25 report` reads this without torch).

Every ELBO key holds one value per seed (3 replicas of one batched sampler, each evaluated on 2,000 fresh
paths); a comparison of two samplers is the paired difference over those seeds with its t-interval. Cells
are named `<method>_<target>_K<steps>`."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AnyOf, Diff, Each, KOf, Mean, Named, Rule, Test, Value

PAIRS = ("ula", "dis", "dbs")
TARGETS = ("funnel", "ionosphere")
KS = (8, 16, 32)
CELLS = tuple(f"{m}_{t}_K{k}" for m in PAIRS for t in TARGETS for k in KS)
TEN = ("ULA", "MCD", "CMCD", "DIS", "DBS")
NAMES = tuple(n + s for n in TEN for s in ("", "-UD"))  # the ten methods of Table 1
BRIDGES = ("DBS-UD", "DIS-UD")
DT_NOTE = "initial dt from `Sampler.tune_dt` (the same rule for every method)"


def _beats(cell: str) -> Test:
    return Test(Diff(f"elbo_ud_{cell}", f"elbo_od_{cell}", f"ELBO, UD − OD, {cell}"), ">", 0)


def _best(bridge: str) -> Named:
    """`bridge` above each of the eight methods that are not the two underdamped bridges."""
    others = [n for n in NAMES if n not in BRIDGES]
    return Named(f"{bridge} best", All(*(Test(Diff(f"elbo_{bridge}_{{c}}", f"elbo_{o}_{{c}}",
                                                   f"ELBO, {bridge} − {o}"), ">", 0) for o in others)))


GAIN = Test(Diff("elbo_ud_ula_ionosphere_K16", "elbo_od_ula_ionosphere_K16",
                 "ELBO, ULA-UD − ULA, Ionosphere, K = 16"), ">=", 1)
SLOPE = Value("slope", "slope of the ELBO deficit on the score-matching integral (mean of 3 seeds)",
              se="slope_se")

CLAIMS = [
    Claim(key="elbo_score_matching",
          statement="With noise on the velocity only (a degenerate diffusion), score matching still "
                    "maximises a likelihood bound: a score s loses exactly ½∫E‖σᵀ(s − ∇log p_t)‖²dt of ELBO.",
          paper="§3 theorem (underdamped score matching = ELBO maximisation); proof, no numbers",
          setup="underdamped OU noising of 2-D Gaussian-mixture data (exact marginal scores), 10 "
                "perturbed scores, common random numbers, 3 seeds; per seed the least-squares slope of the "
                "ELBO deficit on the score-matching integral and its standard error, averaged. Quick: "
                "K = 128, 1,000 paths; full: K = 256, 2,000 paths",
          rule=Rule(All(Test(SLOPE, ">=", 0.9), Test(SLOPE, "<=", 1.1),
                        Test(Value("r2_min", "smallest R² of the three regressions"), ">=", 0.98)))),
    Claim(key="ud_beats_od",
          statement="Underdamped samplers reach higher ELBOs than their overdamped counterparts.",
          paper="Table 1: the -UD variants of ULA, DIS, DBS (and MCD, CMCD) above the overdamped ones on "
                "Funnel, Ionosphere and the other targets (K = 128, 10k+ iterations, batch 2,000, 4 seeds)",
          setup="full profile: ULA, DIS and DBS pairs on Funnel and Ionosphere, K ∈ {8, 16, 32}, 1,000 "
                f"iterations of 256 paths, 3 seeds, {DT_NOTE}; UD integrators as in the paper's code (EM "
                "for DBS-UD, OBABO otherwise), OD: Euler–Maruyama; 18 cells, each its own paired comparison",
          rule=Rule(All(GAIN, Named("2/3 of cells", KOf(12, *(_beats(c) for c in CELLS)))),
                    partial=Named("more than half of the cells", KOf(10, *(_beats(c) for c in CELLS))))),
    Claim(key="fewer_steps",
          statement="Underdamped samplers need far fewer discretisation steps for the same ELBO.",
          paper="abstract and Fig. 3: 'significantly fewer discretization steps'",
          setup="full profile, the cells of ud_beats_od: the UD sampler at K = 8 against its OD counterpart "
                "at K = 32 (four times the steps), for DIS and DBS on Funnel and Ionosphere, each separately",
          rule=Each(Rule(Test(Diff("elbo_ud_{c}_K8", "elbo_od_{c}_K32", "ELBO, UD at K = 8 − OD at K = 32"),
                               ">=", 0)),
                    ("dis_funnel", "dis_ionosphere", "dbs_funnel", "dbs_ionosphere"), "pair and target")),
    Claim(key="state_of_the_art",
          statement="The learned underdamped bridges (DBS-UD, DIS-UD) are the best of the ten methods.",
          paper="Table 1: DBS-UD / DIS-UD best on most targets (ten methods, K = 128)",
          setup="full profile, K = 16, 1,000 iterations, 3 seeds, networks 2 × 64: ULA, MCD, CMCD, DIS, "
                "DBS and their -UD versions (DBS-UD with the paper's EM, the other -UD with OBABO) on each "
                "target",
          rule=Each(Rule(AnyOf(_best("DBS-UD"), _best("DIS-UD"))), TARGETS, "target")),
    Claim(key="integrators",
          statement="Splitting integrators of the underdamped dynamics beat Euler–Maruyama.",
          paper="integrator ablation: OBABO ≥ OBAB, BAOAB > EM",
          setup="Ionosphere, K = 16, 3 seeds; EM is the paper's Euler–Maruyama (force in the velocity "
                "kernel, backward kernel at the new state); OBAB, BAOAB and our exactly reversible O·B·A "
                "word are reported beside it. Quick: ULA-UD, 100 iterations; full: DBS-UD, 1,000 iterations",
          rule=Rule(Test(Diff("elbo_obabo", "elbo_em", "ELBO, OBABO − EM"), ">", 0))),
    Claim(key="no_tuning",
          statement="Learning friction, step size, prior and annealing end to end is what makes tuning "
                    "unnecessary.",
          paper="Fig. 5: learned SDE parameters are key (ablation of prior, friction, dt, mass)",
          setup="full profile, Ionosphere, ULA-UD, K = 16, 3 seeds: learned (1,000 iterations) against "
                "frozen at the same initialisation; and from dt₀ = 0.01 × {1/3, 1, 3} (the paper's dt, no "
                "tune_dt) 10,000 iterations each (the paper's count), the spread max − min of the three "
                "learned ELBOs per seed",
          rule=Rule(All(Test(Diff("elbo_learned", "elbo_frozen", "ELBO, learned − frozen"), ">=", 1),
                        Test(Mean("spread", "spread of the learned ELBOs over the three dt₀ (max − min)"),
                             "<=", 1)))),
    Claim(key="lgcp_scale",
          statement="The underdamped bridges scale to the 1,600-dimensional log-Gaussian Cox process.",
          paper="Table 1: LGCP (d = 1,600, K = 128, 10k iterations, batch 2,000)",
          not_testable="~10⁴× our CPU budget; the LGCP target and a K = 4 sampler run as a smoke test",
          timing=True),  # its measurements (s/iteration, CPU-hours) are timings of the smoke run
]
