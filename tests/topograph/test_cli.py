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


def test_metric_prints_diu_betti_and_writes_the_overlay_only_when_asked(masks, tmp_path, capsys):
    assert run_cli("metric", "--pred", str(masks / "pred.png"), "--gt", str(masks / "gt.png")) == 0
    out = capsys.readouterr().out
    assert "DIU          1 (boundary: pad, 8-connected foreground" in out and "Betti1 error 1" in out
    assert "critical regions 1" in out and "Betti match  1 (0 components, 1 holes unmatched)" in out
    assert sorted(p.name for p in masks.iterdir()) == ["gt.png", "pred.png"]   # nothing beside the input
    overlay_path = tmp_path / "figs" / "overlay.png"
    assert run_cli("metric", "--pred", str(masks / "pred.png"), "--gt", str(masks / "gt.png"),
                   "--overlay", str(overlay_path)) == 0
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
    assert "DIU          2 (boundary: none" in capsys.readouterr().out
    assert run_cli(*args, "--boundary", "torus") == 2
    assert "--boundary must be pad or none" in capsys.readouterr().err


def test_metric_accepts_npy_probabilities(masks, capsys):
    gt = np.asarray(Image.open(masks / "gt.png")) > 0
    np.save(masks / "p.npy", np.where(gt, 0.9, 0.1))
    assert run_cli("metric", "--pred", str(masks / "p.npy"), "--gt", str(masks / "gt.png"),
                   "--overlay", str(masks / "o.png")) == 0
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
    assert run_cli("train", "--data", "blobs", "--size", "16", "--warm-steps", "2", "--steps", "1",
                   "--n-train", "8", "--n-test", "2") == 0
    out = capsys.readouterr().out  # issue #47/#48: Dice alone beside Dice+Topograph
    assert "Dice alone    dice+topograph" in out and out.count("\ndiu ") == 1
    assert run_cli("bench", "--size", "16", "--batch-size", "1", "--repeats", "1") == 0
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
                   "--save", str(tmp_path / "w.pt")) == 0  # the old spellings still work
    out = capsys.readouterr().out
    assert "diu" in out and "warm start     2 Dice steps" in out and (tmp_path / "w.pt").is_file()


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


# ---- issue #48: segment new images with a trained network; #52: resume, the user's network ----------

def _tiny_train(*extra):
    return run_cli("train", "--data", "blobs", "--size", "16", "--warm-steps", "2", "--steps", "1",
                   "--n-train", "8", "--n-test", "2", *extra)


def _stripes(d, n=3, side=18):
    rng = np.random.default_rng(0)
    for sub in ("img", "gt"):
        (d / sub).mkdir(exist_ok=True)
    for i in range(n):
        m = np.zeros((side, side), np.uint8)
        m[:, rng.integers(3, side - 3)] = 255
        Image.fromarray(m).save(d / "gt" / f"s{i}.png")
        img = (m // 3 + rng.integers(0, 50, m.shape)).astype(np.uint8)
        Image.fromarray(img).save(d / "img" / f"s{i}.png")


def test_train_checkpoint_segment_and_resume(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    assert _tiny_train("-o", str(tmp_path / "ck.pt")) == 0
    _stripes(tmp_path)  # 18 x 18: not a multiple of 4, padded and cropped back
    assert run_cli("segment", "--checkpoint", str(tmp_path / "ck.pt"), "--images", str(tmp_path / "img"),
                   "-o", str(tmp_path / "seg"), "--masks", str(tmp_path / "gt")) == 0
    out = capsys.readouterr().out
    assert "3 mask(s)" in out and "mean over 3: DIU" in out
    seg = np.asarray(Image.open(tmp_path / "seg" / "s0.png"))
    assert seg.shape == (18, 18) and set(np.unique(seg)) <= {0, 255}
    assert _tiny_train("--resume", str(tmp_path / "ck.pt"), "-o", str(tmp_path / "ck2.pt")) == 0
    out = capsys.readouterr().out
    assert "resumed" in out and "after 1 steps: 1 more with dice+topograph" in out
    import torch
    ck = torch.load(tmp_path / "ck2.pt", weights_only=True)
    assert ck["meta"]["steps"] == 2 and ck["optimizer"]["state"]


NET = """from torch import nn

def make_net():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 3, padding=1))
"""


def test_train_and_segment_a_users_network(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    (tmp_path / "net.py").write_text(NET)
    assert _tiny_train("--model", f"{tmp_path}/net.py:make_net", "-o", str(tmp_path / "mine.pt")) == 0
    _stripes(tmp_path)
    assert run_cli("segment", "--checkpoint", str(tmp_path / "mine.pt"), "--images",
                   str(tmp_path / "img" / "s1.png"), "-o", str(tmp_path / "seg")) == 0
    assert (tmp_path / "seg" / "s1.png").is_file()
    assert _tiny_train("--model", f"{tmp_path}/net.py:nope") == 2
    assert "has no function or class 'nope'" in capsys.readouterr().err


def test_train_refuses_an_unwritable_checkpoint_before_training(tmp_path, monkeypatch, capsys):
    """Issue #49: `train --save` onto a full device failed only after training."""
    import errno
    import os

    from iclr25.topograph import model_io
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    assert _tiny_train("-o", str(fifo)) == 2
    assert "is a device or FIFO" in capsys.readouterr().err

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(model_io.os, "fsync", full)
    called = []
    monkeypatch.setattr("iclr25.topograph.train.train_compare", lambda *a, **k: called.append(1))
    assert _tiny_train("-o", str(tmp_path / "ck.pt")) == 2
    assert "no room to write --out" in capsys.readouterr().err and not called


# ---- issue #52: metric over folders, multi-class masks, connectivity, Betti matching ----------------

def test_metric_over_folders_with_aggregation_and_csv(tmp_path, capsys):
    _stripes(tmp_path)
    (tmp_path / "pred").mkdir()
    for i, f in enumerate(sorted((tmp_path / "gt").iterdir())):
        m = np.asarray(Image.open(f)).copy()
        if i == 0:
            m[9, :] = 0  # no change: the stripe is vertical
            m[5, :] = 0  # breaks the stripe: one error
        Image.fromarray(m).save(tmp_path / "pred" / f.name)
    args = ("metric", "--pred", str(tmp_path / "pred"), "--gt", str(tmp_path / "gt"))
    assert run_cli(*args, "--aggregate", "sum", "-o", str(tmp_path / "rows.csv")) == 0
    out = capsys.readouterr().out
    assert "3 images; sum over images" in out and "images with errors: 1" in out
    rows = (tmp_path / "rows.csv").read_text().splitlines()
    assert rows[0].startswith("image,class,diu,bm") and len(rows) == 4
    assert run_cli(*args, "--overlay", str(tmp_path / "o.png")) == 2
    assert "--overlay draws one binary pair" in capsys.readouterr().err


def test_metric_multiclass_scores_each_class_one_vs_rest(tmp_path, capsys):
    gt = np.zeros((12, 12), np.uint8)
    gt[2:5, 2:5] = 1
    gt[7:10, 7:10] = 2
    pred = gt.copy()
    pred[7:10, 7:10] = 0  # class 2 missed
    np.save(tmp_path / "g.npy", gt)
    np.save(tmp_path / "p.npy", pred)
    assert run_cli("metric", "--pred", str(tmp_path / "p.npy"), "--gt", str(tmp_path / "g.npy"),
                   "--multiclass", "-o", str(tmp_path / "r.csv")) == 0
    rows = (tmp_path / "r.csv").read_text().splitlines()
    assert [r.split(",")[:3] for r in rows[1:]] == [["p", "1", "0"], ["p", "2", "1"]]
    assert "class 2: DIU 1.0000" in capsys.readouterr().out


def test_metric_connectivity_switch(tmp_path, capsys):
    diag = (np.eye(6, dtype=np.uint8) * 255)
    one = diag.copy()
    one[np.arange(5), np.arange(1, 6)] = 255  # the diagonal joined 4-connectedly
    Image.fromarray(diag).save(tmp_path / "p.png")
    Image.fromarray(one).save(tmp_path / "g.png")
    args = ("metric", "--pred", str(tmp_path / "p.png"), "--gt", str(tmp_path / "g.png"))
    assert run_cli(*args) == 0
    assert "DIU          0 " in capsys.readouterr().out
    assert run_cli(*args, "--connectivity", "4") == 0
    assert "DIU          5 (boundary: pad, 4-connected" in capsys.readouterr().out
    assert run_cli(*args, "--connectivity", "6") == 2
