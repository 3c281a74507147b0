"""`iclr25 topograph metric | train | bench` end to end through the top-level CLI."""

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from iclr25.core.cli import main


def run_cli(*args):
    try:
        main(["iclr25", "topograph", *args])
    except SystemExit as e:
        return e.code
    return 0


@pytest.fixture
def masks(tmp_path):
    gt = np.zeros((20, 20), np.uint8)
    gt[4:16, 4:16] = 255
    gt[7:13, 7:13] = 0                        # a ring
    pred = gt.copy()
    pred[4:7, 10] = 0                         # broken once
    Image.fromarray(gt).save(tmp_path / "gt.png")
    Image.fromarray(pred).save(tmp_path / "pred.png")
    return tmp_path


def test_metric_prints_diu_betti_and_writes_the_overlay(masks, capsys):
    assert run_cli("metric", "--pred", str(masks / "pred.png"), "--gt", str(masks / "gt.png")) == 0
    out = capsys.readouterr().out
    assert "DIU          1" in out and "Betti1 error 1" in out and "critical regions 1" in out
    overlay = np.asarray(Image.open(masks / "pred_critical.png"))
    assert (overlay[..., 0] == 255).any()


def test_metric_accepts_npy_probabilities(masks, capsys):
    gt = np.asarray(Image.open(masks / "gt.png")) > 0
    np.save(masks / "p.npy", np.where(gt, 0.9, 0.1))
    assert run_cli("metric", "--pred", str(masks / "p.npy"), "--gt", str(masks / "gt.png"),
                   "--out", str(masks / "o.png")) == 0
    assert "DIU          0" in capsys.readouterr().out


@pytest.mark.parametrize("make,msg", [
    (lambda d: Image.fromarray(np.full((20, 21), 255, np.uint8)).save(d / "bad.png"), "shape mismatch"),
    (lambda d: Image.fromarray(np.arange(400, dtype=np.uint8).reshape(20, 20)).save(d / "bad.png"),
     "binary"),
    (lambda d: np.save(d / "bad.npy", np.full((20, 20), 1.5)), "[0, 1]"),
])
def test_bad_masks_exit_2_with_one_line(masks, capsys, make, msg):
    make(masks)
    bad = next(masks.glob("bad.*"))
    args = ("--pred", str(masks / "pred.png"), "--gt", str(bad)) if msg == "binary" else \
        ("--pred", str(bad), "--gt", str(masks / "gt.png"))
    assert run_cli("metric", *args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("iclr25: error:") and msg in err and "\n" not in err


def test_missing_file_exits_2(masks, capsys):
    assert run_cli("metric", "--pred", str(masks / "nope.png"), "--gt", str(masks / "gt.png")) == 2
    assert "not found" in capsys.readouterr().err


def test_train_and_bench_run_tiny(tmp_path, capsys):
    env_cache = {"ICLR25_CACHE": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "iclr25.core.cli", "topograph", "train", "--data", "blobs",
                        "--size", "16", "--warm-iters", "2", "--iters", "1", "--n-train", "8",
                        "--n-test", "2"], capture_output=True, text=True, timeout=120,
                       env={**__import__("os").environ, **env_cache})
    assert r.returncode == 0, r.stderr
    assert "diu" in r.stdout
    assert run_cli("bench", "--size", "16", "--batch", "1", "--repeats", "1") == 0
    out = capsys.readouterr().out
    assert "ratio_gudhi" in out and "ratio_cripser" in out


def test_train_rejects_unknown_loss(capsys):
    assert run_cli("train", "--loss", "focal") == 2
    assert "unknown loss 'focal'" in capsys.readouterr().err
