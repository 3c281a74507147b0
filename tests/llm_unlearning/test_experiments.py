"""The claims' rules on fixed measurements (a rule change that flips a verdict fails here), the lr
calibration rule, and a smoke run (measurements, no verdicts)."""

from __future__ import annotations

import pytest
from tests.conftest import shared_data

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.llm_unlearning import PAPER
from iclr25.llm_unlearning.claims import BASELINES, CLAIMS, SPLITS

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


def test_hallucination_rule_reads_items():
    rule = RULE["retain_model_hallucinates"]
    rouge = [0.41] * 40

    def m(k):
        return {"rouge_items": [r + 0.05 * (i % 3 - 1) for i, r in enumerate(rouge)],
                "hallucinated": [1.0] * k + [0.0] * (40 - k)}

    assert rule.decide(m(30)) is R  # 75% (Wilson lower 0.60)
    assert rule.decide(m(21)) is P  # 52%: the interval reaches below 0.5 (the old point rule passed)
    assert rule.decide(m(8)) is N
    assert rule.decide({**m(36), "rouge_items": [0.13] * 40}) is P  # ROUGE below 0.25: the TinyGPT's case


def me_split(split, fe_me=0.80, fe_ga=0.81, fe_npo=0.7, mu_rel=0.95, mu_me=0.8, mu_ga=0.3):
    j = [-0.005, 0.0, 0.005]
    return {f"fe_me+gd_{split}": [fe_me + x for x in j], f"fe_ga+gd_{split}": [fe_ga + x for x in j],
            f"fe_npo+gd_{split}": [fe_npo + x for x in j], f"mu_rel_me+gd_{split}": [mu_rel + x for x in j],
            f"mu_me+gd_{split}": [mu_me + x for x in j], f"mu_ga+gd_{split}": [mu_ga + x for x in j]}


def test_me_rule_per_split_and_two_of_three():
    rule = RULE["me_untargeted"]
    ok = {k: v for s in SPLITS for k, v in me_split(s).items()}
    assert rule.decide(ok) is R
    assert rule.decide({**ok, **me_split("1-5", fe_ga=0.9)}) is P  # 2 of 3 splits
    assert rule.decide({**ok, **me_split("1-5", fe_ga=0.9), **me_split("1-3", mu_rel=0.7)}) is N  # 1 of 3
    assert rule.decide({k: v for s in SPLITS for k, v in me_split(s, mu_me=0.3).items()}) is N  # not above GA


def ap_split(split, f_ap=0.9, r_ap=0.0, r_gd=0.2, mu_ap=0.8, mu_gd=0.6):
    j = [-0.01, 0.0, 0.01]
    return {f"forget_refusal_idk+ap_{split}": [f_ap + x for x in j],
            f"retain_refusal_idk+ap_{split}": [r_ap] * 3,
            f"retain_refusal_idk+gd_{split}": [r_gd + x for x in j],
            f"retain_refusal_2x_idk+ap_{split}": [2 * r_ap] * 3,
            f"mu_idk+ap_{split}": [mu_ap + x for x in j], f"mu_idk+gd_{split}": [mu_gd - x for x in j]}


def test_ap_rule():
    rule = RULE["ap_targeted"]
    ok = {k: v for s in SPLITS for k, v in ap_split(s).items()}
    assert rule.decide(ok) is R
    assert rule.decide({**ok, **ap_split("1", f_ap=0.45)}) is P  # the old full run's 45% forget refusals
    no_leak = {k: v for s in SPLITS for k, v in ap_split(s, r_gd=0.05).items()}
    assert rule.decide(no_leak) is N  # IDK+GD does not leak: nothing for AP to fix
    assert rule.decide({k: v for s in SPLITS for k, v in ap_split(s, r_ap=0.12, r_gd=0.3).items()}) is N


def test_continual_rule():
    rule = RULE["continual"]
    mu = {"me+gd": 0.6, "idk+ap": 0.4, "ga+gd": 0.08, "npo+gd": 0.0, "idk+gd": 0.12, "dpo+gd": 0.0,
          "npo+gd_fixed": 0.15}
    m = {f"mu_final_{k}": [v, v + 0.01, v + 0.02] for k, v in mu.items()}
    assert rule.decide(m) is R
    assert rule.decide({**m, "mu_final_npo+gd_fixed": [0.0, 0.01, 0.02]}) is P
    assert rule.decide({**m, "mu_final_idk+gd": [0.5, 0.51, 0.52]}) is P
    both = {"mu_final_idk+gd": [0.5, 0.51, 0.52], "mu_final_npo+gd_fixed": [0.0, 0.01, 0.02]}
    assert rule.decide({**m, **both}) is N
    assert set(BASELINES) == {"ga+gd", "npo+gd", "idk+gd", "dpo+gd"}


def test_lr_calibration_takes_the_smallest_lr_that_halves_forget_rouge_per_method(monkeypatch):
    from iclr25.llm_unlearning import experiments as E

    rouge = {"ga+gd": {1e-4: 0.9, 3e-4: 0.45}, "me+gd": {1e-4: 0.9, 3e-4: 0.8, 1e-3: 0.6, 3e-3: 0.5},
             "idk+ap": {lr: 0.9 for lr in E.LR_GRID}}

    class Ctx:
        calls: list = []

        def map(self, fn, jobs, description=""):
            self.calls.append([j["method"] for j in jobs])
            return [{"method": j["method"], "forget_rouge": rouge[j["method"]][j["lr"]]} for j in jobs]

    ctx = Ctx()
    lrs, trace = E.calibrate(ctx, {}, ["ga+gd", "me+gd", "idk+ap"], [2], 7, 1.0)
    assert lrs == {"ga+gd": 3e-4, "me+gd": 3e-3, "idk+ap": E.LR_GRID[-1]}  # none halves: the largest
    assert ctx.calls[0] == ["ga+gd", "me+gd", "idk+ap"] and ctx.calls[2] == ["me+gd", "idk+ap"]
    assert "me+gd 0.0001:0.900, 0.0003:0.800, 0.001:0.600, 0.003:0.500" in trace


def test_targeted_methods_train_three_times_longer():
    from iclr25.llm_unlearning.experiments import epochs_for
    assert [epochs_for(m, 5) for m in ("ga+gd", "me+gd", "npo+gd", "idk+gd", "idk+ap", "dpo+gd")] == \
        [5, 5, 5, 15, 15, 15]


def test_smoke_run_measures_every_claim(tmp_path, monkeypatch):
    shared_data("16-llm-unlearning")
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    findings = PAPER.reproduce("smoke", RunContext(profile="smoke", out_dir=tmp_path))
    by = {f.claim: f for f in findings}
    assert by["real_world"].verdict is Verdict.NOT_TESTABLE
    assert all(f.verdict is Verdict.SMOKE for k, f in by.items() if k != "real_world")
    assert len(by["retain_model_hallucinates"].measured["hallucinated"]) == 2  # the retain-only model
    for s in SPLITS:
        assert len(by["me_untargeted"].measured[f"fe_me+gd_{s}"]) == 2  # one value per seed
        assert f"forget_te_ga+gd_{s}" in by["me_untargeted"].measured  # TE beside FE
    assert len(by["continual"].measured["mu_final_npo+gd_fixed"]) == 2
    for name in by["me_untargeted"].figures + by["ap_targeted"].figures + by["continual"].figures:
        assert (tmp_path / name).is_file()


@pytest.mark.slow
def test_retain_model_job_fine_tunes_smollm2_on_retain_data_only():
    """The full profile's retain-only model: SmolLM2 fine-tuned on the world without its forget authors."""
    from iclr25.llm_unlearning.data import TOFU_DIR, tofu_world
    from iclr25.llm_unlearning.experiments import retain_model_job
    world = tofu_world(shared_data(TOFU_DIR), [1], 1, 2, full_vocab=False)
    forget_q = {r["question"] for r in world.forget([1])}
    assert not forget_q & {r["question"] for r in world.training_qa(False)}
    out = retain_model_job(dict(world=world, base="smollm2", n_train=2, epochs=1, n_eval=2, max_new=4, seed=0,
                                tasks=[1]))
    assert out["base"] == "smollm2" and out["train_info"]["train_pairs"] == 2
    assert len(out["hallucinated"]) == 2 and set(out["hallucinated"]) <= {0.0, 1.0}
