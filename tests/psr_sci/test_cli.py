"""`iclr25 psr_sci ...`: simulate and reconstruct a user's image; bad input is one line and exit 2."""

import numpy as np
import pytest
import scipy.io
from PIL import Image


@pytest.fixture(scope="module")
def meas(tmp_path_factory):
    d = tmp_path_factory.mktemp("psr")
    rng = np.random.default_rng(0)
    img = (rng.random((40, 48, 3)) * 255).astype(np.uint8)
    Image.fromarray(img).save(d / "img.png")
    return d


def test_simulate_then_reconstruct_gaptv(iclr25_cli, meas):
    out = meas / "meas.npz"
    code, o, e = iclr25_cli("psr_sci", "simulate", "--image", meas / "img.png", "--mask", "random",
                            "--size", 16, "--out", out)
    assert code == 0, e
    z = np.load(out)
    assert z["meas"].shape == (16, 16 + 54) and z["cube"].shape == (28, 16, 16)
    code, o, e = iclr25_cli("psr_sci", "reconstruct", "--meas", out, "--method", "gaptv",
                            "--out", meas / "cube.npz", "--rgb", meas / "cube.png")
    assert code == 0, e
    assert "PSNR" in o and (meas / "cube.png").is_file()
    assert np.load(meas / "cube.npz")["cube"].shape == (28, 16, 16)


def _save(d, name, **arrays):
    p = d / name
    if name.endswith(".mat"):
        scipy.io.savemat(p, arrays)
    else:
        np.savez(p, **arrays)
    return p


@pytest.mark.parametrize("case", ["width", "nan", "negative", "one_band", "mat_key", "method"])
def test_bad_input_exits_2_with_one_line(iclr25_cli, tmp_path, case):
    m = np.ones((8, 8), np.float32)
    y = np.ones((8, 8 + 54), np.float32)
    args = ["--method", "gaptv"]
    if case == "width":
        y = np.ones((8, 8 + 53), np.float32)
    elif case == "nan":
        y[0, 0] = np.nan
    elif case == "negative":
        y[0, 0] = -1
    elif case == "one_band":
        y = np.ones((8, 8), np.float32)  # W' = W: B = 1
    elif case == "method":
        args = ["--method", "bm3d"]
    meas = _save(tmp_path, "y.npz", meas=y)
    mask = _save(tmp_path, "m.mat", **({"weights": m} if case == "mat_key" else {"mask": m}))
    code, out, err = iclr25_cli("psr_sci", "reconstruct", "--meas", meas, "--mask", mask, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_help_states_defaults(iclr25_cli):
    code, out, _ = iclr25_cli("psr_sci", "reconstruct", "--help")
    assert code == 0 and "gaptv" in out and "psr" in out


def test_wrong_size_mask_is_refused_not_read_as_31_bands(iclr25_cli, tmp_path):
    """A 96x90 mask for a 96x150 measurement used to be accepted (B inferred as 31 beside 28
    wavelengths); B now comes from the file's wavelengths (or --bands, default 28), and widths must fit."""
    y = np.ones((96, 150), np.float32)
    meas = _save(tmp_path, "y.npz", meas=y)
    mask = _save(tmp_path, "m.npz", mask=np.ones((96, 90), np.float32))
    code, out, err = iclr25_cli("psr_sci", "reconstruct", "--meas", meas, "--mask", mask, "--method", "gaptv")
    assert code == 2 and "does not fit a 96x90 mask with B=28" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("mask, says", [(np.zeros((12, 10), np.uint8), "all zeros"),
                                        (np.ones((12, 10), np.uint8), "but the scene is 16x16"),
                                        (np.full((16, 16), 255, np.uint8), "divide by 255")])
def test_simulate_refuses_a_useless_mask(iclr25_cli, meas, tmp_path, mask, says):
    np.save(tmp_path / "mask.npy", mask)
    code, out, err = iclr25_cli("psr_sci", "simulate", "--image", meas / "img.png", "--mask",
                                tmp_path / "mask.npy", "--size", 16, "-o", tmp_path / "m.npz")
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.slow
def test_train_on_own_10_band_cubes_then_reconstruct_prints_the_classical_baseline(iclr25_cli, meas,
                                                                                   tmp_path):
    """#52: the networks train from the CLI on a user's own cubes with another band count (10), the stages
    show progress, and `reconstruct --models` prints GAP-TV beside the method (#45)."""
    rng = np.random.default_rng(0)
    cubes = np.clip(rng.random((3, 10, 20, 20)) * np.linspace(0.3, 1, 10)[None, :, None, None], 0, 1)
    np.savez(tmp_path / "cubes.npz", cube=cubes.astype(np.float32))
    models = tmp_path / "models.pt"
    code, out, err = iclr25_cli("psr_sci", "train", "--cubes", tmp_path / "cubes.npz", "--crop", 16,
                                "--n-crops", 8, "--steps", 2, "--predictor-steps", 2, "--urse-steps", 2,
                                "-o", models)
    assert code == 0, err
    for stage in ("[1/5] GAP-TV", "[2/5] predictor", "[3/5] URSe", "[4/5] subspace prior", "[5/5] full_cube"):
        assert stage in err
    assert "vs GAP-TV (its start, the classical baseline)" in out and models.is_file()
    code, out, err = iclr25_cli("psr_sci", "simulate", "--image", meas / "img.png", "--mask", "random",
                                "--size", 16, "--bands", 10, "-o", tmp_path / "s.npz")
    assert code == 0, err
    code, out, err = iclr25_cli("psr_sci", "reconstruct", "--meas", tmp_path / "s.npz", "--method", "psr",
                                "--models", models, "--steps", 2, "-o", tmp_path / "c.npz")
    assert code == 0, err
    assert "GAP-TV (classical)" in out and "PSNR" in out and "predictor (its start)" in out
    assert np.load(tmp_path / "c.npz")["cube"].shape == (10, 16, 16)
    code, out, err = iclr25_cli("psr_sci", "reconstruct", "--meas", tmp_path / "s.npz", "--method", "psr")
    assert code == 2 and "train your own" in err  # the built-in models are for 28 bands
