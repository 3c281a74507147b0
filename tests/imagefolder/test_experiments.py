"""The claims' rules on fixed per-seed measurements (a rule change that flips one fails here), the
assembly of the quick and full measurements from synthetic results, and smoke runs of the reproduction
(the quick path and the full path at toy size)."""

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.imagefolder.claims import CLAIMS
from iclr25.imagefolder.data import fashion_mnist_available
from iclr25.imagefolder.experiments import ARMS, QUICK_ARMS, Runs, full_findings, quick_findings

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}
NO_DATA = "Fashion-MNIST idx files absent: apt-get install dataset-fashion-mnist"
needs_data = pytest.mark.skipif(not fashion_mnist_available(), reason=NO_DATA)


def seeds(x, spread=0.01):
    """Three per-seed values around x (relative spread)."""
    return [x * (1 - spread), x, x * (1 + spread)]


def pq(rfd2=8.5, psnr2=17.6, gfd2=40.0, psnr_spread=0.05):
    return {"rfd_pq1": seeds(10.0), "rfd_pq2": seeds(rfd2), "psnr_pq1": [17.0, 17.05, 17.1],
            "psnr_pq2": [psnr2 - psnr_spread, psnr2, psnr2 + psnr_spread], "gfd_pq1": seeds(40.0),
            "gfd_pq2": seeds(gfd2)}


def test_product_quantization_rule():
    rule = RULE["product_quantization"]
    assert rule.decide(pq()) is R  # rFD 0.85x, PSNR +0.6 dB, gFD equal
    assert rule.decide(pq(rfd2=9.5)) is P  # rFD only 5% lower
    assert rule.decide(pq(gfd2=43.0)) is P  # gFD 1.075x
    assert rule.decide(pq(psnr2=17.1, psnr_spread=0.5)) is P  # PSNR's interval reaches below 0
    assert rule.decide(pq(rfd2=11.0, psnr2=16.0, gfd2=50.0)) is N


def test_semantic_one_branch_rule():
    rule = RULE["semantic_one_branch"]
    m = {"gfd_none": seeds(6.0), "gfd_all": seeds(5.2), "gfd_one": seeds(3.5)}
    assert rule.decide(m) is R
    assert rule.decide(m | {"gfd_all": seeds(3.0)}) is P
    assert rule.decide(m | {"gfd_none": seeds(3.5), "gfd_all": seeds(3.5)}) is N  # ties are not wins
    assert rule.decide(m | {"gfd_one": [2.0, 3.5, 7.0]}) is N  # one noisy seed: no interval below 1


def test_branch_specialisation_rule_in_points():
    rule = RULE["branch_specialisation"]
    assert rule.decide({"probe_semantic": [71.0, 72.0, 71.5], "probe_detail": [64.0, 64.5, 65.0]}) is R
    assert rule.decide({"probe_semantic": [70.0, 70.2, 69.8], "probe_detail": [65.5, 65.4, 65.6]}) is N  # 4.5
    wide = {"probe_semantic": [75.0, 66.0, 72.0], "probe_detail": [64.0, 64.0, 64.0]}
    assert rule.decide(wide) is N


def test_quantizer_dropout_rule():
    rule = RULE["quantizer_dropout"]
    m = {"mse_2_scales_drop": seeds(0.020), "mse_2_scales_nodrop": seeds(0.027), "gfd_drop": seeds(38.0),
         "gfd_nodrop": seeds(42.0)}
    assert rule.decide(m) is R
    assert rule.decide(m | {"mse_2_scales_drop": seeds(0.026)}) is P
    assert rule.decide(m | {"mse_2_scales_drop": seeds(0.027), "gfd_drop": seeds(42.0)}) is N


def test_length_tradeoff_rule():
    rule = RULE["length_tradeoff"]
    assert rule.decide({"rfd_rel_gain": [0.45, 0.47, 0.49], "tradeoff_margin": [0.30, 0.31, 0.29]}) is R
    assert rule.decide({"rfd_rel_gain": [0.10, 0.11, 0.09], "tradeoff_margin": [-0.30, -0.31, -0.29]}) is P
    assert rule.decide({"rfd_rel_gain": [-0.02, -0.01, -0.03], "tradeoff_margin": [0.1, 0.12, 0.14]}) is P
    assert rule.decide({"rfd_rel_gain": [-0.02, -0.01, -0.03], "tradeoff_margin": [-0.1, -0.12, -0.1]}) is N


def test_fold_quality_rule_is_non_inferiority_within_5_percent():
    rule = RULE["fold_quality"]
    assert rule.decide({"gfd_folded": seeds(50.0), "gfd_unfolded": seeds(50.0)}) is R
    assert rule.decide({"gfd_folded": seeds(54.0), "gfd_unfolded": seeds(50.0)}) is P  # 1.08x
    assert rule.decide({"gfd_folded": seeds(60.0), "gfd_unfolded": seeds(50.0)}) is N
    wide = {"gfd_folded": [45.0, 50.0, 58.0], "gfd_unfolded": seeds(50.0)}
    assert rule.decide(wide) is P  # the interval reaches beyond 1.05


def test_fold_efficiency_rule_reads_the_alternated_repeats():
    rule = RULE["fold_efficiency"]
    assert rule.decide({"time_ratio": [1.66, 1.70, 1.68, 1.65, 1.69, 1.67, 1.71]}) is R
    assert rule.decide({"time_ratio": [1.55, 1.60, 1.58, 1.62, 1.57, 1.61, 1.59]}) is N
    assert rule.decide({"time_ratio": [1.2, 2.4, 1.7, 1.4, 2.2, 1.6, 1.9]}) is N  # median 1.7, too noisy


def _tok(arm, seed, rfd, psnr, probe, mse2=0.05):
    return {"arm": arm, "seed": seed, "rfd": rfd, "psnr": psnr, "ssim": 0.7, "mse": 0.02,
            "mse_2_scales": mse2,
            "usage": 0.9, "positions": 30, "branches": len(probe), "probe": probe, "val_mse": [0.03, 0.02],
            "val_last_third_change": -0.01}


def _ar(arm, seed, gfd, fold=True):
    return {"arm": arm, "fold": fold, "seed": seed, "gfd": gfd, "kid": 0.1, "class_acc": 0.8, "cfg": 2.0,
            "positions": 30 if fold else 60}


FLOOR = {"n": 2000, "fd": 0.5, "kid": 0.0, "fd_net_test_acc": 0.9}
FIGS = {"fd": "rfd_gfd.png", "reconstructions": "r.png", "samples": "s.png", "prefixes": "p.png",
        "curves": "c.png"}


def _runs(ss=(11, 12, 13)):
    jit = {s: 1 + 0.01 * k for k, s in enumerate(ss)}
    tok, ar = {}, {}
    for s in ss:
        j = jit[s]
        for arm, rfd, psnr, probe, mse2 in [
                ("pq1", 10.0, 15.0, [60.0], 0.05), ("pq1_nodrop", 10.5, 15.1, [60.0], 0.08),
                ("pq1_k6", 7.0, 16.0, [60.0], 0.05), ("pq2", 8.0, 16.0, [60.0, 60.0], 0.05),
                ("pq2_sem_all", 8.0, 16.0, [70.0, 70.0], 0.05),
                ("imagefolder", 7.5, 16.2, [55.0, 72.0], 0.05)]:
            tok[(arm, s)] = _tok(arm, s, rfd * j, psnr * j, [p * j for p in probe], mse2 * j)
        for arm, g in [("pq1", 6.0), ("pq1_nodrop", 6.5), ("pq1_k6", 5.8), ("pq2", 5.9), ("pq2_sem_all", 5.2),
                       ("imagefolder", 3.5)]:
            ar[(arm, True, s)] = _ar(arm, s, g * j)
        ar[("imagefolder", False, s)] = _ar("imagefolder", s, 3.6 * j, fold=False)
    return Runs(tok, ar, list(ss))


def test_full_measurements_are_per_seed_and_the_rules_decide_them():
    got = {f.claim: f for f in full_findings(_runs(), FLOOR, "full", FIGS)}
    assert set(got) == {c.key for c in CLAIMS} - {"fold_efficiency", "imagenet_scale"}
    assert all(f.verdict is None for f in got.values())  # measurements only
    verdicts = {k: RULE[k].decide(f.measured) for k, f in got.items()}
    assert all(v is R for v in verdicts.values()), verdicts
    assert got["branch_specialisation"].measured["probe_semantic"] == pytest.approx([72.0, 72.72, 73.44])
    assert got["length_tradeoff"].measured["rfd_rel_gain"] == pytest.approx([0.3] * 3)
    assert len(got["product_quantization"].measured["rfd_pq1"]) == 3


def test_quick_findings_defer_every_trend_claim_with_its_numbers():
    tok = {(a, 5): _tok(a, 5, 9.0, 15.0, [60.0] * ARMS[a][1]["branches"]) for a in QUICK_ARMS}
    ar = {(a, True, 5): _ar(a, 5, 5.0) for a in QUICK_ARMS}
    got = quick_findings(Runs(tok, ar, [5]), FLOOR, "quick", FIGS)
    assert len(got) == 6 and all(f.verdict == Verdict.DEFERRED for f in got)
    assert all(f.measured["rfd_pq1"] == 9.0 and "gfd_imagefolder" in f.measured for f in got)


@pytest.mark.parametrize("claim", [c.key for c in CLAIMS if c.rule is not None])
def test_claims_state_the_paper_number_and_a_rule(claim):
    c = next(c for c in CLAIMS if c.key == claim)
    assert c.paper and c.setup and c.rule.prose() in c.criterion


@pytest.mark.slow
@needs_data
def test_smoke_run_measures_and_shows_no_verdict(tmp_path, monkeypatch):
    from iclr25.imagefolder import PAPER

    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    findings = PAPER.reproduce("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path / "run"))
    by = {f.claim: f for f in findings}
    assert by["imagenet_scale"].verdict == Verdict.NOT_TESTABLE
    assert by["fold_efficiency"].verdict is Verdict.SMOKE
    b = by["fold_efficiency"].measured
    assert b["kv_ratio"] == 2.0 and len(b["time_ratio"]) == 3 and b["positions_unfolded"] == 60
    assert by["product_quantization"].measured["positions_pq1"] == 30
    for f in findings:
        for fig in f.figures:
            assert (tmp_path / "run" / fig).is_file()


@pytest.mark.slow
@needs_data
def test_full_path_at_toy_size_gives_per_seed_measurements_the_rules_decide(tmp_path, monkeypatch):
    import iclr25.imagefolder.experiments as ex
    from iclr25.imagefolder import PAPER

    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    toy = ex.Sizes(300, 50, 3, 2, 60, 40, 20, 100, 1, {"width": 16, "depth": 1}, 1, 16, 2, 4, 2, (1, 16))
    monkeypatch.setattr(ex, "sizes", lambda ctx: toy)
    findings = PAPER.reproduce("full", RunContext(seed=0, profile="full", out_dir=tmp_path / "run"))
    by = {f.claim: f for f in findings}
    decided = {R, P, N}
    assert all(by[c.key].verdict in decided for c in CLAIMS if c.rule is not None)
    assert len(by["semantic_one_branch"].measured["gfd_one"]) == 2  # one per seed
    assert len(by["fold_quality"].measured["gfd_unfolded"]) == 2
    assert (tmp_path / "run" / "validation_curves.png").is_file()
