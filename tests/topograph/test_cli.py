"""`iclr25 topograph metric | train | bench` end to end through the top-level CLI."""


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


def test_metric_prints_diu_betti_and_writes_the_overlay_to_out_only(masks, tmp_path, capsys):
    assert run_cli("metric", "--pred", str(masks / "pred.png"), "--gt", str(masks / "gt.png")) == 0
    out = capsys.readouterr().out
    assert "DIU          1 (boundary: pad)" in out and "Betti1 error 1" in out and "critical regions 1" in out
    assert sorted(p.name for p in masks.iterdir()) == ["gt.png", "pred.png"]   # nothing beside the input
    overlay_path = tmp_path / "figs" / "overlay.png"
    assert run_cli("metric", "--pred", str(masks / "pred.png"), "--gt", str(masks / "gt.png"),
                   "--out", str(overlay_path)) == 0
    overlay = np.asarray(Image.open(overlay_path))
    assert (overlay[..., 0] == 255).any()


def test_metric_boundary_convention(tmp_path, capsys):
    gt = np.zeros((9, 9), np.uint8)
    gt[:, 4] = 255                           # crosses the image
    pred = gt.copy()
    pred[4, 4] = 0
    Image.fromarray(gt).save(tmp_path / "g.png")
    Image.fromarray(pred).save(tmp_path / "p.png")
    args = ("metric", "--pred", str(tmp_path / "p.png"), "--gt", str(tmp_path / "g.png"))
    assert run_cli(*args, "--boundary", "none") == 0
    assert "DIU          2 (boundary: none)" in capsys.readouterr().out
    assert run_cli(*args, "--boundary", "torus") == 2
    assert "--boundary must be pad or none" in capsys.readouterr().err


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


def test_train_and_bench_run_tiny(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    assert run_cli("train", "--data", "blobs", "--size", "16", "--warm-iters", "2", "--iters", "1",
                   "--n-train", "8", "--n-test", "2") == 0
    assert "diu" in capsys.readouterr().out
    assert run_cli("bench", "--size", "16", "--batch", "1", "--repeats", "1") == 0
    out = capsys.readouterr().out
    assert "ratio_gudhi" in out and "ratio_cripser" in out


def test_train_on_the_users_own_image_and_mask_folders(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    for d in ("img", "gt"):
        (tmp_path / d).mkdir()
    rng = np.random.default_rng(0)
    for i in range(5):
        m = np.zeros((16, 16), np.uint8)
        m[:, rng.integers(2, 14)] = 255
        Image.fromarray(m).save(tmp_path / "gt" / f"s{i}.png")
        img = (m // 3 + rng.integers(0, 50, m.shape)).astype(np.uint8)
        Image.fromarray(img).save(tmp_path / "img" / f"s{i}.png")
    assert run_cli("train", "--images", str(tmp_path / "img"), "--masks", str(tmp_path / "gt"),
                   "--warm-iters", "2", "--iters", "1", "--boundary", "none",
                   "--save", str(tmp_path / "w.pt")) == 0
    out = capsys.readouterr().out
    assert "diu" in out and "warm_steps" in out and (tmp_path / "w.pt").is_file()


@pytest.mark.parametrize("args, msg", [
    (("--loss", "focal"), "unknown loss 'focal'"),
    (("--images", "."), "--images and --masks go together"),
    (("--images", "nowhere", "--masks", "nowhere"), "not a folder"),
    (("--n-train", "90000", "--size", "1024"), "exceed"),
    (("--test-fraction", "1.5"), "--test-fraction"),
])
def test_train_rejects_bad_options_before_training(capsys, args, msg):
    assert run_cli("train", *args) == 2
    assert msg in capsys.readouterr().err
