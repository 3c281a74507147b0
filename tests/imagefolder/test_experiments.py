"""The verdict rules on fixed measurements (a rule change that flips one fails here), the assembly of
the quick and full findings from synthetic results, and a smoke run of the reproduction."""

import numpy as np
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.imagefolder.data import fashion_mnist_available
from iclr25.imagefolder.experiments import (
    ARMS,
    CLAIMS,
    QUICK_ARMS,
    decide_branch_specialisation,
    decide_fold_efficiency,
    decide_fold_quality,
    decide_length_tradeoff,
    decide_product_quantization,
    decide_quantizer_dropout,
    decide_semantic_one_branch,
    full_findings,
    quick_findings,
)

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


@pytest.mark.parametrize("args, expect", [
    ((10.0, 8.9, 15.0, 15.5, 6.0, 6.3), R),  # rFD -11%, PSNR up, gFD 1.05x
    ((10.0, 9.1, 15.0, 15.5, 6.0, 6.0), P),  # rFD only -9%
    ((10.0, 8.0, 15.0, 15.0, 6.0, 6.0), P),  # PSNR not higher
    ((10.0, 8.0, 15.0, 16.0, 6.0, 6.4), P),  # gFD 1.067x
    ((10.0, 9.5, 15.0, 14.0, 6.0, 7.0), N),
])
def test_product_quantization_rule(args, expect):
    assert decide_product_quantization(*args) == expect


@pytest.mark.parametrize("none, all_, one, expect", [(6.0, 5.2, 3.5, R), (6.0, 3.0, 3.5, P),
                                                     (3.0, 5.2, 3.5, P), (3.0, 3.0, 3.5, N),
                                                     (3.5, 3.5, 3.5, N)])
def test_semantic_one_branch_rule(none, all_, one, expect):
    assert decide_semantic_one_branch(none, all_, one) == expect


@pytest.mark.parametrize("sem, det, expect", [(0.70, 0.64, R), (0.70, 0.65, R), (0.70, 0.66, N),
                                              (0.5, 0.7, N)])
def test_branch_specialisation_rule(sem, det, expect):
    assert decide_branch_specialisation(sem, det) == expect


@pytest.mark.parametrize("args, expect", [((0.09, 0.10, 5.0, 5.0), R), ((0.095, 0.10, 5.0, 5.0), P),
                                          ((0.05, 0.10, 5.1, 5.0), P), ((0.2, 0.1, 6.0, 5.0), N)])
def test_quantizer_dropout_rule(args, expect):
    assert decide_quantizer_dropout(*args) == expect


@pytest.mark.parametrize("args, expect", [
    ((3.24, 1.71, 6.56, 6.03), R),  # the paper's rows: rFD -47%, gFD -8%
    ((10.0, 8.0, 5.0, 6.0), R),  # generation worse with longer tokens: still the trade-off
    ((10.0, 9.0, 5.0, 4.0), P),  # rFD -10% but gFD -20%
    ((10.0, 11.0, 5.0, 6.0), P),  # reconstruction worse, generation worse
    ((10.0, 11.0, 5.0, 4.0), N),
])
def test_length_tradeoff_rule(args, expect):
    assert decide_length_tradeoff(*args) == expect


@pytest.mark.parametrize("fo, un, expect", [(5.0, 5.0, R), (5.4, 5.0, P), (5.5, 5.0, P), (5.6, 5.0, N)])
def test_fold_quality_rule(fo, un, expect):
    assert decide_fold_quality(fo, un) == expect


@pytest.mark.parametrize("ratio, expect", [(1.6, R), (1.9, R), (1.59, N), (float("nan"), N)])
def test_fold_efficiency_rule(ratio, expect):
    assert decide_fold_efficiency(ratio) == expect


def _tok(arm, rfd, psnr, probe, mse2=0.05):
    return {"arm": arm, "rfd": rfd, "rfd_lo": rfd * 0.9, "rfd_hi": rfd * 1.1, "psnr": psnr, "ssim": 0.7,
            "mse": 0.02, "mse_2_scales": mse2, "usage": 0.9, "positions": 30, "probe": probe,
            "show": np.zeros((8, 1, 4, 4))}


def _ar(arm, gfd, fold=True):
    return {"arm": arm, "fold": fold, "gfd": gfd, "gfd_lo": gfd * 0.95, "gfd_hi": gfd * 1.05, "kid": 0.1,
            "class_acc": 0.8, "cfg": 2.0, "positions": 30 if fold else 60}


FLOOR = {"n_eval": 5000, "fd": 0.5, "fd_lo": 0.4, "fd_hi": 0.6, "kid": 0.0, "fd_net_test_acc": 0.9}
FIGS = {"fd": "rfd_gfd.png", "reconstructions": "r.png", "samples": "s.png", "prefixes": "p.png"}


def test_full_findings_assemble_every_trend_claim_from_the_arms():
    tok = {"pq1": _tok("pq1", 10.0, 15.0, [0.6], 0.05),
           "pq1_nodrop": _tok("pq1_nodrop", 10.5, 15.1, [0.6], 0.08),
           "pq1_k6": _tok("pq1_k6", 7.0, 16.0, [0.6]), "pq2": _tok("pq2", 8.0, 16.0, [0.6, 0.6]),
           "pq2_sem_all": _tok("pq2_sem_all", 8.0, 16.0, [0.7, 0.7]),
           "imagefolder": _tok("imagefolder", 7.5, 16.2, [0.55, 0.72])}
    ar = {(a, True): _ar(a, g) for a, g in [("pq1", 6.0), ("pq1_nodrop", 6.5), ("pq1_k6", 5.8), ("pq2", 5.9),
                                            ("pq2_sem_all", 5.2), ("imagefolder", 3.5)]}
    ar[("imagefolder", False)] = _ar("imagefolder", 3.6, fold=False)
    got = {f.claim: f for f in full_findings(tok, ar, FLOOR, "full", FIGS)}
    assert set(got) == {c.key for c in CLAIMS} - {"fold_efficiency", "imagenet_scale"}
    assert all(f.verdict == R for f in got.values()), {k: f.verdict for k, f in got.items()}
    assert got["branch_specialisation"].measured["probe_gap_points"] == pytest.approx(17.0)
    assert got["length_tradeoff"].measured["rfd_rel_gain"] == pytest.approx(0.3)


def test_quick_findings_defer_every_trend_claim_with_its_numbers():
    tok = {a: _tok(a, 9.0, 15.0, [0.6] * ARMS[a][1]["branches"]) for a in QUICK_ARMS}
    ar = {(a, True): _ar(a, 5.0) for a in QUICK_ARMS}
    got = quick_findings(tok, ar, FLOOR, "quick", FIGS)
    assert len(got) == 6 and all(f.verdict == Verdict.DEFERRED for f in got)
    assert all("rfd_pq1" in f.measured and "gfd_imagefolder" in f.measured for f in got)


@pytest.mark.slow
@pytest.mark.skipif(not fashion_mnist_available(),
                    reason="Fashion-MNIST idx files absent: apt-get install dataset-fashion-mnist")
def test_smoke_run_gives_one_finding_per_claim(tmp_path, monkeypatch):
    from iclr25.imagefolder import PAPER

    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    findings = PAPER.check(PAPER.run("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path / "run")))
    by = {f.claim: f for f in findings}
    assert by["imagenet_scale"].verdict == Verdict.NOT_TESTABLE
    assert by["fold_efficiency"].verdict in (R, N) and by["fold_efficiency"].measured["kv_ratio"] == 2.0
    assert all(by[k].verdict == Verdict.DEFERRED for k in ("product_quantization", "fold_quality"))
    for f in findings:
        for fig in f.figures:
            assert (tmp_path / "run" / fig).is_file()
