"""Pattern-CAV's claims and the rules that decide them (pure data: `iclr25 report` reads this without
torch or scikit-learn). Cosines are between a CAV and the true concept direction; every rule reads one
value per seed and its 95% interval."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AllOf, Diff, Each, Mean, Named, Rule, Test, Value

FILTERS = ("svm", "ridge", "lasso", "logistic")

# Criteria fixed before measuring (spec 08, Sec. 4).
TOY_PATTERN_MIN_COS = 0.98
TOY_FILTER_45_RANGE = (0.80, 0.90)  # analytic 0.856 (Sec. 2 of the spec)
TOY_FILTER_MIN_COS = 0.85
MIN_SHORTCUT_RATE = 0.15  # the vanilla model must demonstrably use the patch
ALIGN_MARGIN = 0.10  # cos(pattern) - best filter cos
PATTERN_CUT = 0.50  # relative cut of the shortcut rate by RR-ClArC(pattern) ...
SVM_CUT_BELOW = 0.25  # ... at the lambda where RR-ClArC(svm) cuts it by less than this
MAX_CLEAN_DROP = 0.10  # clean-accuracy cost, absolute
LAMBDA = "1e8"  # the spec's pilot lambda (seed 0, before any record): the one comparison judged

# The high-dimensional latent's settings: D x n x distractors x strength (distractor strength >= signal).
HIGH_DIM_SETTINGS = tuple(f"d{d}_n{n}_k{k}_g{g:g}" for d in (32, 256) for n in (50, 500, 2000)
                          for k in (2, 8) for g in (1.0, 2.0))


def _toy_filter(m: str) -> dict:
    return {
        f"{m} at 45°": Rule(All(
            Test(Mean(f"{m}_cos_45", f"{m} cos at 45°"), ">=", TOY_FILTER_45_RANGE[0]),
            Test(Mean(f"{m}_cos_45", f"{m} cos at 45°"), "<=", TOY_FILTER_45_RANGE[1]))),
        f"{m} rotates": Rule(Test(Mean(f"{m}_cos_min", f"{m}'s lowest cos over the angles"), "<=",
                                  TOY_FILTER_MIN_COS)),
    }


SHORTCUT = Named("a usable shortcut", Test(Mean("vanilla_shortcut_rate", "vanilla shortcut rate"), ">=",
                                           MIN_SHORTCUT_RATE))
MARGIN = "align_margin"
CUT_P, CUT_SVM, DROP = f"cut_pattern_lam{LAMBDA}", f"cut_svm_lam{LAMBDA}", f"clean_drop_pattern_lam{LAMBDA}"
CLEAN_OK = Test(Mean(DROP, "clean-accuracy drop, RR-ClArC(pattern)"), "<=", MAX_CLEAN_DROP)

CLAIMS = [
    Claim(key="toy_alignment",
          statement="In the 2-D toy with a rotating distractor, the pattern CAV stays on the concept "
                    "direction while filter CAVs (SVM, ridge) rotate with the distractor (directional "
                    "divergence).",
          paper="Animation/Fig. 1 of the paper: pattern fixed at (1, 0); filters rotate; analytic LS filter "
                "cos 0.856 at 45 deg, min 0.797 near 65 deg",
          setup="the official notebook's toy (1,000 points, class means (1,0) and (4,0), distractor sd 0.7) "
                "at every 5° from 0 to 180° (quick: 15°), 5 seeds (quick: 3); per seed, each filter's cos at "
                "45° and its lowest cos over the angles",
          rule=AllOf({
              "pattern": Rule(Test(Value("pattern_cos_min", "pattern's lowest cos over all angles and seeds"),
                                   ">=", TOY_PATTERN_MIN_COS)),
              **_toy_filter("svm"), **_toy_filter("ridge")})),
    Claim(key="high_dim_alignment",
          statement="With distractors in a high-dimensional latent, pattern CAVs align better with the true "
                    "concept direction than every filter CAV, while filters may separate as well or better "
                    "(AUC).",
          paper="Paper (ISIC, Bone Age, FunnyBirds; VGG, ResNet, EfficientNet, ViT): pattern CAVs have the "
                "highest cosine alignment across datasets, architectures and layers; filter AUC comparable "
                "or slightly higher",
          setup="a = h t + sum_k g u_k + noise with k distractors of strength g >= the signal, D in "
                "{32, 256}, n in {50, 500, 2000}, k in {2, 8}, g in {1, 2} (setting dD_nN_kK_gG), 3 seeds "
                "per setting; quick runs 4 of the settings; held-out AUC reported, not judged",
          rule=Each(Rule(All(*(Test(Diff("pattern_cos_{c}", f"{m}_cos_{{c}}", f"cos, pattern − {m}"), ">", 0)
                               for m in FILTERS))),
                    HIGH_DIM_SETTINGS, "setting", measured_only=True)),
    Claim(key="shortcut_removal",
          statement="On a CNN that uses an injected shortcut, the pattern CAV aligns better with the true "
                    "artifact direction, and RR-ClArC with it removes the shortcut where RR-ClArC with an "
                    "SVM CAV does not.",
          paper="Paper (ISIC timestamp, Bone Age brightness artifacts): RR-ClArC with pattern CAVs lowers "
                "artifact sensitivity most at similar clean accuracy",
          setup="sklearn digits 16x16 with a bright corner patch in 90% of class-3 training images, a small "
                "CNN per seed (5 seeds, full profile), CAVs on the max-pooled conv3 of class-3 training "
                "images; alignment margin = cos(pattern) − the best filter's cos in that seed; RR-ClArC at "
                f"lambda {LAMBDA} (the spec's pilot value), cut = 1 − corrected / vanilla shortcut rate "
                "(poisoned non-3 test images called '3'). The other lambdas are reported, not judged",
          rule=AllOf({
              "alignment": Rule(All(SHORTCUT, Test(Mean(MARGIN, "alignment margin"), ">=", ALIGN_MARGIN)),
                                partial=All(SHORTCUT, Test(Mean(MARGIN, "alignment margin"), ">", 0))),
              "correction": Rule(
                  All(SHORTCUT, Test(Mean(CUT_P, "shortcut cut by RR-ClArC(pattern)"), ">=", PATTERN_CUT),
                      Test(Mean(CUT_SVM, "shortcut cut by RR-ClArC(svm)"), "<", SVM_CUT_BELOW), CLEAN_OK),
                  partial=All(SHORTCUT, Test(Diff(CUT_P, CUT_SVM, "shortcut cut, pattern − svm"), ">", 0),
                              CLEAN_OK)),
          })),
    Claim(key="tcav_fidelity",
          statement="TCAV computed with pattern CAVs is closer to the ground-truth TCAV (sensitivity along "
                    "the true per-sample concept direction) than TCAV with filter CAVs.",
          paper="Paper (FunnyBirds forced concepts): pattern-CAV TCAV closest to TCAV_gt",
          setup="the shortcut CNN above, class-3 clean test images, 5 seeds: per image the sensitivity "
                "grad f_3 · v (gradient averaged over positions) for each CAV v and for the image's own true "
                "direction a(x with patch) − a(x); per seed and CAV the Pearson correlation over images of "
                "the CAV's sensitivities with the true ones. Best filter: the highest mean correlation over "
                "seeds. TCAV scores (per position and position-averaged) are reported, not judged: they sit "
                "at chance per position and near the ceiling averaged, for every CAV",
          rule=Rule(Test(Diff("sens_corr_pattern", "sens_corr_best_filter",
                              "sensitivity correlation with the truth, pattern − best filter"), ">", 0),
                    partial=Test(Diff("sens_corr_pattern", "sens_corr_filter_mean",
                                      "sensitivity correlation with the truth, pattern − filters' mean"),
                                 ">", 0))),
]
