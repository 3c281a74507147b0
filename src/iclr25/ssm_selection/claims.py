"""The paper's claims and the rules that decide them (pure data: `iclr25 report` reads this without
torch). The paper proves existence and rate theorems and reports no numeric tables, so each rule tests
what a theorem predicts at CPU scale; every accuracy or risk is a list with one value per seed, and a
bound is met only by the whole 95% interval over seeds.

Second round (issue #44), stated before the reruns: copying is decided at L = 24 (the single-SSM bound
≤ 0.50 at L = 16 was mis-set: an additive lag model scores ~0.55 there); the width ladder runs widths
32 and 64 at N = 16 with a 12,000-step cap and every seed; the regression uses n ∈ {2k, 8k, 32k, 128k}
from the generator with a fixed 2k validation set, and the rate is fitted over the sizes where both models
learn; DNA importance is judged by its location (the argmax inside the planted motif)."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AllOf, Diff, Mean, Rule, Test, Value

SSMFNN, SINGLE, TRANSFORMER, TRANSFORMER_BI, MLP = "ssmfnn3", "ssm1", "tf2-causal", "tf2", "mlp4"
COPY_L = 24  # where the copying separation is decided (issue #44: the L = 16 bound was mis-set)
LADDER_N = (4, 16)  # efficient_in_size compares the solving parameter counts at these N
REG_NS = (2000, 8000, 32000, 128000)
REG_TOP = REG_NS[-1]
SLOPE_GAP = 0.15
# A size enters the rate fit when both models "learn" there: the mean over seeds of (validation MSE −
# noise variance 0.01) on the fixed 2k validation set is at most half the constant predictor's risk
# Var F° (fixed before the rerun; validation data only, never the test set).
LEARNS_SHARE_OF_VAR_F = 0.5


def _acc(key: str, label: str) -> Mean:
    return Mean(key, label)


CLAIMS = [
    Claim(key="associative_recall",
          statement="Multi-layer SSM+FNN networks solve associative recall (poly-log(N, |V|) parameters "
                    "suffice); one SSM layer, linear in the tokens, cannot; Transformers can.",
          paper="Theorem on associative recall (§3): SSM+FNN with poly-log(N, |V|) width solves it, a single "
                "SSM layer cannot; no numeric table",
          setup="N = 8 pairs, |K| = |V| = 32, batch 128, AdamW 1e-3, 2,000 fresh test instances, 3 seeds; "
                "3×[two-sided SSM + FNN] up to 3,000 steps, the single SSM layer 1,000 steps, the 2-layer "
                "causal Transformer up to 1,000 steps (SSM+FNN and Transformer stop once 512 fresh "
                "validation instances reach 0.99), d = 64; full profile only",
          rule=AllOf({
              "SSM+FNN": Rule(Test(_acc(f"acc_{SSMFNN}", "3×[SSM+FNN] test accuracy"), ">=", 0.90)),
              "single SSM": Rule(Test(_acc(f"acc_{SINGLE}", "single SSM test accuracy"), "<=", 0.30)),
              "Transformer": Rule(Test(_acc(f"acc_{TRANSFORMER}", "Transformer test accuracy"), ">=", 0.95)),
          })),
    Claim(key="input_copying",
          statement="SSM+FNN copies an input whose copy shift depends on the input (no repeated n-grams), "
                    "which a single SSM layer cannot.",
          paper="Theorem on input copying (§3): 2-layer SSM+FNN with poly-log(L, |V|) parameters copies "
                "strings without repeated m-grams; one SSM layer fails (Jelassi et al. 2024 setting)",
          setup=f"source length ~ U[L/2, L], 16 symbols, no repeated 3-grams, teacher-forced copy, "
                f"prefix-two-sided layers (the source read two-sided, the copy causally, as in the paper's "
                f"construction), L ∈ {{16, {COPY_L}}}, up to 3,000 steps (stop once 512 validation strings "
                f"reach 0.99), 3 seeds, 2,000 fresh test strings; decided at L = {COPY_L} (a correction, "
                "issue #44: the single-SSM bound ≤ 0.50 was mis-set at L = 16, where an additive lag model "
                "reaches ~0.55 on variable-length sources); full profile only",
          rule=Rule(All(Test(_acc(f"acc_{SSMFNN}_L{COPY_L}", f"3×[SSM+FNN] per-token accuracy, L = {COPY_L}"),
                             ">=", 0.90),
                        Test(_acc(f"acc_{SINGLE}_L{COPY_L}", f"single SSM per-token accuracy, L = {COPY_L}"),
                             "<=", 0.50)),
                    partial=Test(Diff(f"acc_{SSMFNN}_L{COPY_L}", f"acc_{SINGLE}_L{COPY_L}",
                                      "SSM+FNN − single SSM"), ">=", 0.30))),
    Claim(key="efficient_in_size",
          statement="The parameters SSM+FNN needs to solve associative recall grow only poly-logarithmically "
                    "with the number of pairs N.",
          paper="poly-log(N, |V|) parameters for associative recall (§3), comparable to attention and "
                "cheaper than the Hyena construction",
          setup="AR at N ∈ {4, 8, 16} (|K| = |V| = 32), 3×[two-sided SSM + FNN] at width 32 (and 64 at "
                "N = 16), every width × 3 seeds (no early exit on one seed), up to 12,000 steps per run (a "
                "run stops once 512 validation instances reach 0.95); parameter counts are exact; the "
                "Transformer at width 32 is shown; full profile only",
          rule=Rule(All(Test(_acc(f"acc_{SSMFNN}_N4_d32", "accuracy at N = 4, d = 32"), ">=", 0.90),
                        Test(_acc(f"acc_{SSMFNN}_N16_d32", "accuracy at N = 16, d = 32"), ">=", 0.90),
                        Test(Value("params_ratio_N16_d32_over_N4_d32",
                                   "parameters at N = 16 / at N = 4 (d = 32)"), "<=", 2.0)),
                    partial=All(Test(_acc(f"acc_{SSMFNN}_N16_d64", "accuracy at N = 16, d = 64"), ">=", 0.90),
                                Test(Value("params_ratio_N16_d64_over_N4_d32",
                                           "parameters at N = 16, d = 64 / at N = 4, d = 32"), "<=", 4.0)))),
    Claim(key="selection_regression",
          statement="SSM+FNN learns a piecewise γ-smooth target whose relevant tokens are chosen by an "
                    "input-dependent importance, which one SSM layer and a fixed-position MLP cannot.",
          paper="Theorem (§5): SSM+FNN estimates piecewise γ-smooth functions (dynamic token selection) "
                "with excess risk → 0",
          setup="32 tokens in [0,1]^4, importance x_4, Y = sin(2π x_(1),1) + x_(2),2·x_(1),3 + 0.1ε; "
                f"n ∈ {{2k, 8k, 32k, 128k}} training pairs from the generator, a fixed 2k validation set "
                f"(early stopping, patience 8 × 100 steps, ≤ 3,000 steps), excess risk E(F̂ − F°)² on 2,000 "
                f"fresh inputs, d = 64, 3 seeds; decided at n = {REG_TOP:,}; full profile only",
          rule=AllOf({
              "SSM+FNN": Rule(Test(Mean(f"excess_risk_{SSMFNN}_n{REG_TOP}", "3×[SSM+FNN] excess risk"),
                                   "<=", 0.15)),
              "single SSM": Rule(Test(Mean(f"excess_risk_{SINGLE}_n{REG_TOP}", "single SSM excess risk"),
                                      ">=", 0.45)),
              "MLP": Rule(Test(Mean(f"excess_risk_{MLP}_n{REG_TOP}", "first-4-token MLP excess risk"),
                               ">=", 0.45)),
          })),
    Claim(key="same_rate_as_transformer",
          statement="SSM+FNN attains the same estimation rate as Transformers for dynamic token selection.",
          paper="E‖F̂ − F°‖² ≲ n^{-2a†/(2a†+1)} polylog(n) for SSM+FNN, the rate Takakura & Suzuki (2023) "
                "proved for Transformers",
          setup="the regression runs of selection_regression with the two-sided 2-layer Transformer; per "
                "seed, the least-squares slope of log excess risk against log n over the sizes where both "
                f"models learn (mean validation MSE − 0.01 ≤ {LEARNS_SHARE_OF_VAR_F} × Var F° for both, "
                "fixed before the rerun; at least two sizes, else no slope); full profile only",
          rule=Rule(All(Test(Diff("slope_ssmfnn3", "slope_tf2", "slope SSM+FNN − slope Transformer"),
                             ">=", -SLOPE_GAP),
                        Test(Diff("slope_ssmfnn3", "slope_tf2", "slope SSM+FNN − slope Transformer"),
                             "<=", SLOPE_GAP),
                        Test(Mean(f"excess_risk_{TRANSFORMER_BI}_n{REG_TOP}",
                                  f"Transformer excess risk at n = {REG_TOP:,}"), "<=", 0.15)))),
    Claim(key="sparse_dynamic_importance",
          statement="On genomic sequences a trained model's token importance is sparse and its location "
                    "moves with the input (the piecewise-smooth assumption).",
          paper="genomic classification (§6): importance concentrates on few tokens whose positions vary "
                "across inputs (figures only)",
          setup="planted motif: 200-nt sequences, an 8-nt motif anywhere in half of them, 2×[SSM + FNN] "
                "(16-lag two-sided window, mean pooling), 3 seeds; on motif-carrying test sequences, the "
                "share whose |gradient × input| argmax lies inside the motif (a location measure, fixed "
                "before the rerun, issue #44; chance 8/200; control: the same network before training) and "
                "the spread of that argmax; real DNA (KEEL "
                "splice, 3,190 × 60 nt, 20% test, 3×[SSM + FNN]) must be learnt; its junctions sit at fixed "
                "positions, so it cannot show movement (its top-6 share and argmax spread are reported); "
                "full profile only",
          rule=Rule(All(Test(Mean("motif_argmax_in_motif", "share of argmax positions inside the motif"),
                             ">=", 0.5),
                        Test(Diff("motif_argmax_in_motif", "motif_argmax_in_motif_untrained",
                                  "argmax-in-motif share, trained − the same network untrained"), ">", 0),
                        Test(Mean("motif_argmax_std", "std of the argmax position (nt)"), ">=", 30.0),
                        Test(Mean("motif_test_acc", "motif test accuracy"), ">=", 0.85),
                        Test(Mean("splice_test_acc", "splice test accuracy"), ">=", 0.85)),
                    partial=Test(Mean("motif_argmax_in_motif", "share of argmax positions inside the motif"),
                                 ">=", 0.5))),
]
