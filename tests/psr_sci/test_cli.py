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
