"""ImageFolder's claims and the rules that decide them (pure data: `iclr25 report` reads this without torch).

Each trend claim compares tokenizer arms (rows of the paper's ablation table at our scale) trained on the
same data for the same number of steps; every key holds one value per seed (3 seeds in the full profile),
and comparisons are paired by seed. FD ratios are geometric means of the per-seed ratios."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AnyOf, Diff, Mean, Rule, Test

SETUP = ("Fashion-MNIST (59k train images, 1k held out for the validation curve, the test set for "
         "evaluation), every tokenizer trained 3,000 steps (batch 64), AR models 1,000 steps, rFD on 5,000 "
         "test reconstructions, gFD on 2,000 class-balanced samples against 2,000 test images, in the "
         "features of our FeatureCNN (never called FID); 3 seeds")


def _ratio(a: str, b: str, label: str, op: str, bound: float, by: str = "interval") -> Test:
    return Test(Diff(a, b, label, log=True), op, bound, by=by)


PQ = (_ratio("rfd_pq2", "rfd_pq1", "rFD PQ2 / PQ1", "<=", 0.9),
      Test(Diff("psnr_pq2", "psnr_pq1", "PSNR PQ2 − PQ1 (dB)"), ">", 0),
      _ratio("gfd_pq2", "gfd_pq1", "gFD PQ2 / PQ1", "<=", 1.05))
SEM = (_ratio("gfd_one", "gfd_none", "gFD one branch / none", "<", 1),
       _ratio("gfd_one", "gfd_all", "gFD one branch / all branches", "<", 1))
DROP = (_ratio("mse_2_scales_drop", "mse_2_scales_nodrop", "MSE from 2 of 4 scales, dropout / none", "<=",
               0.9),
        _ratio("gfd_drop", "gfd_nodrop", "gFD dropout / none", "<", 1))
LENGTH = (Test(Mean("rfd_rel_gain", "relative rFD gain 30 -> 66 positions"), ">", 0),
          Test(Mean("tradeoff_margin", "rFD gain − 2 x gFD gain"), ">=", 0))
FOLD_Q = Diff("gfd_folded", "gfd_unfolded", "gFD folded / unfolded", log=True)

CLAIMS = [
    Claim(key="product_quantization",
          statement="Two folded branches (product quantisation) at the same number of AR positions "
                    "reconstruct and generate better than one branch.",
          paper="ablation rows 3->4 (ImageNet 256², 265 positions): rFID 3.24 -> 2.06, gFID 6.56 -> 5.96",
          setup=f"{SETUP}; PQ2 without semantics vs PQ1, both 30 positions",
          rule=Rule(All(*PQ), partial=AnyOf(*PQ))),
    Claim(key="semantic_one_branch",
          statement="Semantic regularisation of one branch generates better than none and than "
                    "regularising every branch.",
          paper="ablation rows 4-6: gFID 5.96 (none) / 5.21 (all branches) / 3.53 (one branch)",
          setup=f"{SETUP}; PQ2 with semantic regularisation on no branch, every branch, the last branch",
          rule=Rule(All(*SEM), partial=AnyOf(*SEM))),
    Claim(key="branch_specialisation",
          statement="The semantically regularised branch carries the class: a linear probe on it beats "
                    "the detail branch.",
          paper="linear probe 40.5% on the semantic branch (row 6, ImageNet)",
          setup=f"{SETUP}; ImageFolder tokenizer, linear probe (mean-pooled f_hat of one branch) trained on "
                "5,000 training images, scored on the 5,000 test images, in percent",
          rule=Rule(Test(Diff("probe_semantic", "probe_detail", "probe accuracy semantic − detail branch "
                              "(points)"), ">=", 5))),
    Claim(key="quantizer_dropout",
          statement="Quantizer dropout makes coarse prefixes decode well and improves generation.",
          paper="ablation rows 1->2 (680 positions): rFID 1.92 -> 1.71, gFID 7.52 -> 6.03",
          setup=f"{SETUP}; PQ1 with vs without quantizer dropout",
          rule=Rule(All(*DROP), partial=AnyOf(*DROP))),
    Claim(key="length_tradeoff",
          statement="Longer token sequences help reconstruction much more than generation.",
          paper="ablation rows 3->2 (265 -> 680 positions): rFID 3.24 -> 1.71, gFID 6.56 -> 6.03",
          setup=f"{SETUP}; PQ1 with K = 6, scales (1,2,3,4,6) = 66 positions, against K = 4 (30 positions); "
                "per seed, gain = (K4 − K6) / K4 of rFD and of gFD",
          rule=Rule(All(*LENGTH), partial=AnyOf(*LENGTH))),
    Claim(key="fold_quality",
          statement="Folding the two tokens of a position into one AR step loses no quality against "
                    "giving each token its own position.",
          paper="ImageFolder generates with 286 positions for 572 tokens (folded)",
          setup=f"{SETUP}; ImageFolder tokenizer, folded AR (30 positions) vs unfolded AR (60 positions); "
                "non-inferiority: folded at most 5% worse (the margin product_quantization allows gFD)",
          rule=Rule(Test(FOLD_Q, "<=", 1.05), partial=Test(FOLD_Q, "<=", 1.1, by="point"))),
    Claim(key="fold_efficiency",
          statement="Folding halves the sequence, so sampling is much cheaper than with one position per "
                    "token.",
          paper="286 positions instead of 572 tokens (680 for VAR): shorter sequence, faster sampling",
          setup="KV-cached sampling of 64 images, equal weights (depth 3, width 128), 1 thread; process CPU "
                "time, the two layouts alternated within each of 7 repeats after a warm-up; per repeat the "
                "ratio unfolded / folded",
          rule=Rule(Test(Mean("time_ratio", "CPU time per image unfolded / folded", over="alternated "
                              "repeats", log=True), ">=", 1.6)),
          timing=True),
    Claim(key="imagenet_scale",
          statement="At ImageNet scale the final ImageFolder model reaches gFID 2.60, rFID 0.80 and a "
                    "58.0% linear probe.",
          paper="ImageNet 256²: gFID 2.60, rFID 0.80, linear probe 58.0 (rows 7-8, 362M VAR, DINOv2, GAN)",
          not_testable="needs ImageNet 256², a DINOv2 encoder and teacher (hub weights), perceptual losses "
                       "and a 362M-parameter VAR trained on 8 GPUs; the paper's numbers are Inception-FID "
                       "numbers that our CNN-feature FD cannot be compared with"),
]
