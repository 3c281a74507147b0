"""Yu & Sun's claims and the rules that decide them (pure data). Lower Q̂ is better (Q̂ < 0: the model
beats predicting zero effect). The benchmark's rates are judged by intervals from a bootstrap over data
sets (the variants of one RCT share its covariates and outcome, so they are not independent)."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, Diff, Each, Mean, Named, Not, Rule, Test, Value

JUDGED_SIZES = ("4000", "16000", "64000")  # evaluation sizes from 4,000 up (Fig. 1's range)
ORTHOGONAL_BASE_RATE = 8 / 15  # 8 of the 15 candidate learners are orthogonal: a random winner's share
BIAS_MARGIN = 0.1  # |bias| below a tenth of one evaluation's standard deviation: irrelevant for ranking


def _rate(key: str, label: str) -> Value:
    return Value(key, label, se=f"{key}_se")


def _bias(form: str) -> Named:
    b = Value(f"bias_{form}_sd", f"bias of Q̂-{form.upper()} in units of one evaluation's SD",
              se=f"bias_{form}_sd_se")
    return Named(f"{form.upper()} unbiased", All(Test(b, ">", -BIAS_MARGIN), Test(b, "<", BIAS_MARGIN)))


ORTHOGONAL = Value("orthogonal_win_share", "orthogonal win share", se="orthogonal_win_share_se")
MRR_HT = Mean("rr_q_ht_{c}", "reciprocal rank of the oracle-best model by Q̂-HT", over="repetitions")
# Correction (null check of #42, before any rerun): the old "MRR ≥ 0.8 at its point estimate" passed ~50%
# of simulations whose true MRR sits at 0.8, so REPRODUCED now needs the whole interval ≥ 0.8 and the
# point-estimate form only earns PARTIAL; "not below plug-in" alone (met whenever the two are equal) no
# longer earns PARTIAL.
MRR_A = Named("the MRR", Test(MRR_HT, ">=", 0.8))
MRR_POINT = Named("the MRR's point estimate",
                  All(Test(MRR_HT, ">=", 0.8, by="point"), Test(MRR_HT, ">", 0.75)))
MRR_B = Named("not below plug-in", Not(Test(Diff("rr_q_ht_{c}", "rr_plugin_{c}", "Q̂-HT − plug-in τ-risk MRR",
                                                   over="repetitions"), "<", 0)))

CLAIMS = [
    Claim("q_hat_unbiased",
          "Q̂ is an unbiased estimate of Q(τ̂) = MSE(τ̂) − E[τ²] when e is known (Lemma 3.1), for the HT "
          "form and the control-variate (DR) family.",
          "Lemma 3.1, Props. 3.9-3.11 (proof)",
          setup="synthetic trial with analytic Q, n = 2,000 per evaluation, 2,000 evaluations (quick 500): "
                "an equivalence test, the bias's 95% interval inside ±0.1 SD of a single evaluation's Q̂",
          rule=Rule(All(_bias("ht"), _bias("dr")))),
    Claim("q_hat_ranks_models",
          "Ranking models by Q̂ on the evaluation set recovers the model with the lowest true MSE.",
          "Fig. 1, semi-synthetic Hillstrom: MRR > 0.8 at every evaluation size 1k-64k; "
          "alternatives 0.45-0.75",
          setup="semi-synthetic (real RandHIE covariates, simulated τ), 11 models, 64 repetitions (full), "
                "evaluation sizes 1k-64k, judged from 4,000 up (0.75 is the alternatives' best in the "
                "paper); "
                "a low-signal design is reported beside, not judged. Quick (8 repetitions) defers",
          rule=Each(Rule(All(MRR_A, MRR_B), partial=MRR_POINT), JUDGED_SIZES, "evaluation size")),
    Claim("most_estimates_degenerate",
          "Most CATE estimates on real RCTs are degenerate: no better than predicting zero effect (Q̂ ≥ 0).",
          "62% of (model, variant) estimates have Q̂ ≥ 0 (Table 1, 12 RCTs, 43,200 variants)",
          setup="observational-sampling benchmark on the bundled RCTs, 5 repetitions; the heterogeneous "
                "learners' degenerate rate, its SE from a bootstrap over data sets",
          rule=Rule(Test(_rate("degenerate_rate", "degenerate rate"), ">", 0.40),
                    partial=Test(_rate("degenerate_rate", "degenerate rate"), ">", 0.40, by="point"))),
    Claim("worse_than_constant",
          "Where some model is useful, most estimates are still worse than a constant-effect model.",
          "80% worse than τ̂_B = dml.lasso (constant effect), among variants with ≥ 1 useful model (Sec. "
          "4.2)",
          setup="share of heterogeneous estimates with Q̂ above dml.lasso's, on variants with ≥ 1 useful "
                "model, 5 repetitions; its SE from a bootstrap over data sets",
          rule=Rule(Test(_rate("worse_than_constant_rate", "worse-than-constant rate"), ">", 0.50),
                    partial=Test(_rate("worse_than_constant_rate", "worse-than-constant rate"), ">", 0.50,
                                 by="point"))),
    Claim("orthogonal_rarely_best",
          "Orthogonality-based learners (R / DR / DML / causal forest) are rarely the best model.",
          "the winner is orthogonality-based 30% of the time (Sec. 4.2)",
          setup="share of variants whose lowest-Q̂ learner is R / DR / DML / forest, 5 repetitions, its SE "
                "from "
                "a bootstrap over data sets; 8 of the 15 candidates are orthogonal, so a uniformly random "
                f"winner is orthogonal {ORTHOGONAL_BASE_RATE:.1%} of the time",
          rule=Rule(All(Test(ORTHOGONAL, "<=", 0.5, by="point"), Test(ORTHOGONAL, "<", ORTHOGONAL_BASE_RATE)),
                    partial=Test(ORTHOGONAL, "<", ORTHOGONAL_BASE_RATE, by="point"))),
]
