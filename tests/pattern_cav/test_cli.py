"""`iclr25 pattern_cav ...` end to end through the top-level CLI."""

import subprocess
import sys

import numpy as np


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "iclr25.core.cli", "pattern_cav", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


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


# ---- issue #48: errors name the expected format; a CSV is read -------------------------------------

def test_fit_reads_a_csv_and_names_the_formats_for_anything_else(tmp_path):
    _files(tmp_path)
    a, t = np.load(tmp_path / "acts.npy"), np.load(tmp_path / "labels.npy")
    np.savetxt(tmp_path / "acts.csv", a, delimiter=",", header="x,y,z", comments="")
    np.savetxt(tmp_path / "labels.csv", t, fmt="%d")
    r = _run("fit", "--acts", str(tmp_path / "acts.csv"), "--labels", str(tmp_path / "labels.csv"),
             "-o", str(tmp_path / "cav.npy"))
    assert r.returncode == 0, r.stderr
    assert np.allclose(np.load(tmp_path / "cav.npy"), _cav_of(a, t))
    (tmp_path / "acts_csv.npy").write_text("1,2,3\n4,5,6\n")  # a CSV under a .npy name
    r = _run("fit", "--acts", str(tmp_path / "acts_csv.npy"), "--labels", str(tmp_path / "labels.npy"))
    assert r.returncode == 2 and "pickled" not in r.stderr
    assert "is not a readable NumPy .npy file; expected a NumPy .npy/.npz array or a numeric .csv" in r.stderr
    r = _run("fit", "--acts", str(tmp_path / "acts.parquet"), "--labels", str(tmp_path / "labels.npy"))
    assert r.returncode == 2 and "expected a NumPy .npy/.npz array or a numeric .csv" in r.stderr
    (tmp_path / "words.csv").write_text("a,b\nx,y\n")
    r = _run("fit", "--acts", str(tmp_path / "words.csv"), "--labels", str(tmp_path / "labels.npy"))
    assert r.returncode == 2 and "expected a numeric table, one row per sample" in r.stderr


def _cav_of(a, t):
    h = a[t == 1].mean(0) - a[t == 0].mean(0)
    return h / np.linalg.norm(h)


def test_score_applies_a_saved_cav_to_new_activations(tmp_path):
    _files(tmp_path)
    r = _run("fit", "--acts", str(tmp_path / "acts.npy"), "--labels", str(tmp_path / "labels.npy"),
             "-o", str(tmp_path / "cav.npy"))
    assert r.returncode == 0, r.stderr
    _files(tmp_path, seed=1)  # new activations from the same process
    r = _run("score", "--cav", str(tmp_path / "cav.npy"), "--acts", str(tmp_path / "acts.npy"),
             "--labels", str(tmp_path / "labels.npy"), "-o", str(tmp_path / "s.csv"))
    assert r.returncode == 0, r.stderr
    assert "200 samples scored" in r.stdout and "(chance 0.5;" in r.stdout
    assert float(r.stdout.split("concept AUC ")[1].split()[0]) > 0.75  # well above chance (0.5)
    rows = np.loadtxt(tmp_path / "s.csv", delimiter=",", skiprows=1)
    cav = np.load(tmp_path / "cav.npy")
    assert rows.shape == (200, 2) and np.allclose(rows[:, 1], np.load(tmp_path / "acts.npy") @ cav, atol=1e-6)
    np.save(tmp_path / "wide.npy", np.ones((5, 4)))
    r = _run("score", "--cav", str(tmp_path / "cav.npy"), "--acts", str(tmp_path / "wide.npy"))
    assert r.returncode == 2 and "the CAV has 3 dims but the activations have 4 columns" in r.stderr


# ---- issue #52: TCAV and ClArC correction on the user's own model ----------------------------------

NET = '''from torch import nn

def make_net():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool2d(2), nn.Flatten(),
                         nn.Linear(16, 2))
'''


def _model_files(tmp_path):
    import torch
    (tmp_path / "net.py").write_text(NET)
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.3, (40, 1, 8, 8)).astype(np.float32)
    y = np.repeat([0, 1], 20)
    x[y == 1, 0, :2, :2] = 2.0  # the shortcut
    mask = np.zeros_like(x, dtype=bool)
    mask[:, 0, :2, :2] = True
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "mask.npy", mask)
    torch.manual_seed(0)
    ns = {}
    exec(NET, ns)
    torch.save(ns["make_net"]().state_dict(), tmp_path / "w.pt")
    np.save(tmp_path / "cav.npy", np.array([1.0, 0.0, 0.0, 0.0]))
    return tmp_path


def test_tcav_and_correct_from_the_cli(tmp_path):
    d = _model_files(tmp_path)
    common = ["--model", f"{d}/net.py:make_net", "--weights", str(d / "w.pt"), "--layer", "1"]
    r = _run("tcav", *common, "--inputs", str(d / "x.npy"), "--target-class", "1", "--cav",
             str(d / "cav.npy"), "--aggregate", "mean")
    assert r.returncode == 0, r.stderr
    assert "0.5 = no preference" in r.stdout and "cav.npy" in r.stdout
    r = _run("correct", *common, "--cav", str(d / "cav.npy"), "--inputs", str(d / "x.npy"), "--labels",
             str(d / "y.npy"), "--artifact-inputs", str(d / "x.npy"), "--artifact-masks", str(d / "mask.npy"),
             "--epochs", "1", "-o", str(d / "fixed.pt"))
    assert r.returncode == 0, r.stderr
    assert "baseline: always the training majority class, accuracy 0.500" in r.stdout
    assert "before     accuracy" in r.stdout and "RR-ClArC   accuracy" in r.stdout
    assert r.stdout.count("relevance on the artifact") == 2 and (d / "fixed.pt").is_file()
    r = _run("correct", *common, "--cav", str(d / "cav.npy"), "--inputs", str(d / "x.npy"), "--labels",
             str(d / "y.npy"), "--method", "p")
    assert r.returncode == 0, r.stderr
    assert "P-ClArC    accuracy" in r.stdout


def test_user_model_errors_are_one_line(tmp_path):
    d = _model_files(tmp_path)
    base = ["tcav", "--layer", "1", "--inputs", str(d / "x.npy"), "--target-class", "1", "--cav",
            str(d / "cav.npy")]
    for model, msg in ((f"{d}/net.py", "--model must be FILE.py:NAME"),
                       (f"{d}/net.py:nope", "has no function or class 'nope'"),
                       (f"{d}/missing.py:make_net", "file not found")):
        r = _run(*base, "--model", model)
        assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = _run(*base, "--model", f"{d}/net.py:make_net", "--weights", str(d / "x.npy"))
    assert r.returncode == 2 and "is not a state dict" in r.stderr


def test_an_empty_table_is_one_line(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    np.save(tmp_path / "acts.npy", np.ones((4, 3)))
    r = _run("score", "--cav", str(tmp_path / "empty.txt"), "--acts", str(tmp_path / "acts.npy"))
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        f"iclr25: error: cav file {tmp_path / 'empty.txt'} holds no numbers; expected a numeric table, "
        "one row per sample"]
