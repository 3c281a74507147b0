"""`iclr25 pattern_cav ...` end to end through the top-level CLI."""

import subprocess
import sys

import numpy as np


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "iclr25.core.cli", "pattern_cav", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def _files(tmp_path, n=200, seed=0):
    rng = np.random.default_rng(seed)
    t = np.repeat([0, 1], n // 2)
    h = np.array([1.0, 0.0, 0.0])
    e = rng.normal(size=n)
    a = t[:, None] * h + np.outer(e, [1.0, 1.0, 0.0]) + 0.1 * rng.normal(size=(n, 3))
    np.save(tmp_path / "acts.npy", a)
    np.save(tmp_path / "labels.npy", t)
    np.save(tmp_path / "h.npy", h)
    return h


def test_fit_writes_a_unit_cav_and_prints_auc_and_cos(tmp_path):
    h = _files(tmp_path)
    r = _run("fit", "--acts", str(tmp_path / "acts.npy"), "--labels", str(tmp_path / "labels.npy"),
             "--method", "pattern", "--true-direction", str(tmp_path / "h.npy"),
             "-o", str(tmp_path / "cav.npy"))
    assert r.returncode == 0, r.stderr
    cav = np.load(tmp_path / "cav.npy")
    assert np.isclose(np.linalg.norm(cav), 1.0) and cav @ h > 0.95
    assert "pattern CAV (D=3, n=200)" in r.stdout and "auc_5fold=" in r.stdout
    cos = float(r.stdout.split("cos_true=")[1].split()[0])
    assert np.isclose(cos, cav @ h, atol=1e-4)


def test_compare_prints_one_line_per_method(tmp_path):
    _files(tmp_path)
    r = _run("compare", "--acts", str(tmp_path / "acts.npy"), "--labels", str(tmp_path / "labels.npy"),
             "--true-direction", str(tmp_path / "h.npy"), "--methods", "pattern,ridge")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert [ln.split()[0] for ln in lines] == ["pattern", "ridge"]
    cos = {ln.split()[0]: float(ln.split("cos_true=")[1]) for ln in lines}
    assert cos["pattern"] > cos["ridge"]  # the shared distractor rotates the filter


def test_bad_input_exits_2_with_one_line(tmp_path):
    _files(tmp_path)
    np.save(tmp_path / "one.npy", np.ones(200))
    np.save(tmp_path / "short.npy", np.ones(10))
    cases = [
        (["--labels", str(tmp_path / "one.npy")], "single class"),
        (["--labels", str(tmp_path / "short.npy")], "lengths must match"),
        (["--labels", str(tmp_path / "missing.npy")], "labels file not found"),
        (["--labels", str(tmp_path / "labels.npy"), "--method", "pca"], "unknown CAV method 'pca'"),
    ]
    for extra, msg in cases:
        r = _run("fit", "--acts", str(tmp_path / "acts.npy"), "-o", str(tmp_path / "c.npy"), *extra)
        assert r.returncode == 2, (extra, r.stderr)
        assert r.stderr.strip().splitlines() == [f"iclr25: error: {r.stderr.split('error: ')[1].strip()}"]
        assert msg in r.stderr


def test_toy_command(tmp_path):
    r = _run("toy", "--angle", "45")
    assert r.returncode == 0, r.stderr
    assert "analytic LS filter cos=0.856" in r.stdout and r.stdout.count("cos=") == 6


def test_fit_with_ground_truth_differences_prints_alignment(tmp_path):
    _files(tmp_path)
    np.save(tmp_path / "diffs.npy", np.array([[2.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    r = _run("fit", "--acts", str(tmp_path / "acts.npy"), "--labels", str(tmp_path / "labels.npy"),
             "--gt-diffs", str(tmp_path / "diffs.npy"), "-o", str(tmp_path / "cav.npy"))
    assert r.returncode == 0, r.stderr
    cav = np.load(tmp_path / "cav.npy")
    assert np.isclose(float(r.stdout.split("alignment=")[1].split()[0]), cav[0], atol=1e-4)
