"""The paper's claims and the rules that decide them (pure data: `iclr25 report` reads it without torch).
Units are unlearning seeds (the retain pairing, refusal-template draws and batch order of a run; 3 per
method) or, for the retain-only model, forget questions. Each method's learning rate is calibrated by one
rule on a held-out forget task: the smallest of the grid at which it halves forget ROUGE."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AnyOf, Diff, KOf, Mean, Named, Rule, Share, Test

SPLITS = ("1", "1-3", "1-5")  # forget01 tasks unlearned together (TOFU forget01/05/10 analogues)
SEEDS = "unlearning seeds"
BASELINES = ("ga+gd", "npo+gd", "idk+gd", "dpo+gd")
CALIBRATION = ("lr per method: the smallest of {1e-4, 3e-4, 1e-3, 3e-3, 1e-2} at which the method halves "
               "forget ROUGE on a held-out forget task (the largest if none does); untargeted methods run "
               "the paper's 5 epochs, targeted ones (IDK, DPO) 15, so that the IDK+GD baseline can reach the "
               "80% refusal bar")


def _d(a: str, b: str, what: str) -> Diff:
    return Diff(a, b, what, over=SEEDS)


def _me(split: str) -> Named:
    fe = "FE(ME+GD) − FE({b}), split " + split
    return Named(f"ME holds on {{{split}}}", All(
        Test(_d(f"fe_me+gd_{split}", f"fe_ga+gd_{split}", fe.format(b="GA+GD")), ">=", -0.02),
        Test(_d(f"fe_me+gd_{split}", f"fe_npo+gd_{split}", fe.format(b="NPO+GD")), ">=", -0.02),
        Test(Mean(f"mu_rel_me+gd_{split}", "MU(ME+GD) / MU(initial), split "
                                           f"{split}", over=SEEDS), ">=", 0.85),
        Test(_d(f"mu_me+gd_{split}", f"mu_ga+gd_{split}", f"MU(ME+GD) − MU(GA+GD), split {split}"), ">", 0)))


def _ap(split: str) -> Named:
    def rate(key: str, what: str) -> Mean:
        return Mean(f"{key}_{split}", f"{what}, split {split}", over=SEEDS)

    return Named(f"AP holds on {{{split}}}", All(
        Test(rate("forget_refusal_idk+ap", "IDK+AP forget refusal rate"), ">=", 0.8),
        Test(rate("retain_refusal_idk+ap", "IDK+AP retain refusal rate"), "<=", 0.1),
        Test(rate("retain_refusal_idk+gd", "IDK+GD retain refusal rate"), ">=", 0.1),
        Test(_d(f"retain_refusal_idk+gd_{split}", f"retain_refusal_2x_idk+ap_{split}",
                f"IDK+GD retain refusals − 2 × IDK+AP's, split {split}"), ">=", 0),
        Test(_d(f"mu_idk+ap_{split}", f"mu_idk+gd_{split}", "MU(IDK+AP) − MU(IDK+GD), split "
                                                            f"{split}"), ">", 0)))


ME_SPLITS = [_me(s) for s in SPLITS]
AP_SPLITS = [_ap(s) for s in SPLITS]
KEPT = Named("ME+GD and IDK+AP keep more utility than every baseline", All(
    *(Test(_d(f"mu_final_{m}", f"mu_final_{b}", f"MU after the last task, {m.upper()} − {b.upper()}"), ">", 0)
      for m in ("me+gd", "idk+ap") for b in BASELINES)))
FIXED_REF = Named("a fixed reference keeps NPO+GD's utility", Test(
    _d("mu_final_npo+gd_fixed", "mu_final_npo+gd", "MU after the last task, NPO+GD fixed − moving reference"),
    ">", 0))

CLAIMS = [
    Claim(key="retain_model_hallucinates",
          statement="A retain-only model (never trained on the forget authors) does not answer forget "
                    "questions with refusals or gibberish but with fluent, wrong answers, so imitating it "
                    "(the implicit goal of untargeted unlearning) means hallucinating; hence TE and ES.",
          paper="TOFU, Llama-2-7B retain model on forget01: ROUGE 0.4082, 74% of outputs hallucinated "
                "(Sec. 3.1)",
          setup="the retain-only model is SmolLM2-135M-Instruct (iclr25.core.models) fine-tuned on the "
                "world's retain authors and Real Authors / World Facts, never on a forget author; greedy "
                "answers to the 40 forget questions of task 1. A hallucination is a non-refusal with TE ≥ "
                "0.5 "
                "and ES = 0 (a fluent answer that does not entail the truth)",
          rule=Rule(All(Test(Mean("rouge_items", "forget ROUGE-L "
                                                 "recall", over="forget questions"), ">=", 0.25),
                        Test(Share("hallucinated", "hallucinated "
                                                   "answers", over="forget questions"), ">=", 0.5)),
                    partial=Test(Share("hallucinated", "hallucinated answers", over="forget questions"),
                                 ">=", 0.3))),
    Claim(key="me_untargeted",
          statement="Maximising entropy on forget tokens (ME+GD) forgets as well as GA+GD and NPO+GD while "
                    "keeping model utility.",
          paper="Fig. 4 (TOFU forget01/05/10): ME+GD highest FE with stable MU; GA+GD collapses MU, NPO+GD "
                "plateaus at low FE",
          setup="3 seeds per method on each split {1}, {1-3}, {1-5} of forget01; " + CALIBRATION + ". Forget "
                "token entropy is reported beside FE (GA's FE is inflated by repetitive output)",
          rule=Rule(All(*ME_SPLITS), partial=KOf(2, *ME_SPLITS))),
    Claim(key="ap_targeted",
          statement="Answer preservation (IDK+AP) makes the model refuse forget questions without spreading "
                    "refusals to retain questions, unlike IDK+GD.",
          paper="Fig. 4: IDK+AP is the only targeted method with stable MU; IDK+GD/DPO leak refusal "
                "templates into the retain set",
          setup="refusal = ROUGE-L F1 ≥ 0.7 to an IDK template; 3 seeds per method on each split; "
                + CALIBRATION,
          rule=Rule(All(*AP_SPLITS), partial=KOf(2, *AP_SPLITS))),
    Claim(key="continual",
          statement="Over 10 sequential forget tasks the baselines collapse while ME+GD and IDK+AP keep "
                    "utility; NPO's collapse comes from its moving reference model.",
          paper="Fig. 5 (10 tasks of forget01): ME+GD and IDK+AP keep much higher MU; Fig. 6c: NPO with the "
                "reference fixed to the initial model is stable",
          setup="the 10 tasks of forget01 unlearned one after another, each from the previous model, 3 seeds "
                "per method, MU after the last task; " + CALIBRATION,
          rule=Rule(All(KEPT, FIXED_REF), partial=AnyOf(KEPT, FIXED_REF))),
    Claim(key="real_world",
          statement="On real celebrities (Llama-3-8B-Instruct) ME+GD and IDK+AP forget while keeping utility "
                    "and downstream accuracy.",
          paper="Table 2: initial MU 0.6145; ME+GD MU 0.4901, FE 0.9312; IDK+AP MU 0.5311 (highest)",
          not_testable="needs Llama-3-8B-Instruct weights (hub download), the celebrity forget/neighbour "
                       "sets "
                       "and lm-eval"),
]
