"""`iclr25 guided_strategy train / discover / infer` on a user's demo file, and one-line errors."""

import h5py
import numpy as np
import pytest

from iclr25.core.cli import main
from iclr25.guided_strategy import Demos, lane_demos, save_npz


@pytest.fixture(scope="module")
def demos_npz(tmp_path_factory):
    d = lane_demos(per_level=2, seed=0)
    path = tmp_path_factory.mktemp("cli") / "demos.npz"
    save_npz(Demos(d["observations"], d["actions"], d["rewards"], d["levels"]), path)
    return path


@pytest.fixture(scope="module")
def model(demos_npz):
    out = demos_npz.parent / "m.pt"
    _run("train", "--demos", str(demos_npz), "--env", "point-lane", "--train-levels", "1,3,5",
         "--test-levels", "2,4", "--iterations", "1", "--envs", "4", "--out", str(out))
    return out


def _run(*args):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "guided_strategy", *args])
    return e.value.code


def test_train_discover_infer(model, demos_npz, tmp_path, capsys):
    assert model.is_file()
    assert _run("discover", "--model", str(model), "--targets", "0.2,0.6", "--budget", "10,50",
                "--n", "100", "--csv", str(tmp_path / "b.csv")) == 0
    out = capsys.readouterr().out
    assert "target 0.2  K=10: VL" in out and (tmp_path / "b.csv").is_file()
    z_csv = tmp_path / "z.csv"
    assert _run("infer", "--model", str(model), "--demos", str(demos_npz), "--out", str(z_csv)) == 0
    out = capsys.readouterr().out
    assert "demo 9 level 5: z = (" in out and "Spearman" in out
    assert len(z_csv.read_text().splitlines()) == 11


def _error(capsys, *args) -> str:
    assert _run(*args) == 2
    lines = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("iclr25: error:"), lines
    return lines[0]


def test_missing_h5_key_mismatched_lengths_and_nan_exit_2(tmp_path, capsys):
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f["expert_states"], f["expert_actions"] = np.zeros((4, 2)), np.zeros((4, 2))
    assert "missing HDF5 key 'expert_ids'" in _error(capsys, "train", "--demos", str(tmp_path / "a.h5"))
    with h5py.File(tmp_path / "b.h5", "w") as f:
        f["expert_states"], f["expert_actions"] = np.zeros((4, 2)), np.zeros((3, 2))
        f["expert_ids"] = np.zeros(4)
    assert "4 rows but" in _error(capsys, "train", "--demos", str(tmp_path / "b.h5"))
    np.savez(tmp_path / "c.npz", observations=np.full((2, 3, 2), np.nan), actions=np.zeros((2, 3, 2)))
    assert "NaN" in _error(capsys, "train", "--demos", str(tmp_path / "c.npz"))


def test_overlapping_levels_and_wrong_obs_dim_exit_2(demos_npz, tmp_path, capsys):
    msg = _error(capsys, "train", "--demos", str(demos_npz), "--train-levels", "1,3", "--test-levels", "3,4",
                 "--out", str(tmp_path / "m.pt"))
    assert "level 3 is both a train and a test level" in msg
    assert "observations have 2 dims, env 'pendulum' has 4" in _error(
        capsys, "train", "--demos", str(demos_npz), "--env", "pendulum", "--out", str(tmp_path / "m.pt"))
    assert "unknown method 'gail'" in _error(capsys, "train", "--demos", str(demos_npz), "--method", "gail")
    assert "level 9 not in the demos" in _error(capsys, "train", "--demos", str(demos_npz),
                                                "--train-levels", "9", "--out", str(tmp_path / "m.pt"))


def test_budget_must_divide_n_and_model_must_exist(model, tmp_path, capsys):
    assert "n mod K = 100" in _error(capsys, "discover", "--model", str(model), "--targets", "0.2",
                                     "--budget", "10,400", "--n", "500")
    assert "need finite numbers" in _error(capsys, "discover", "--model", str(model), "--targets", "nan")
    assert "model file not found" in _error(capsys, "discover", "--model", str(tmp_path / "none.pt"),
                                            "--targets", "0.2")
    np.savez(tmp_path / "w.npz", observations=np.zeros((2, 3, 4)), actions=np.zeros((2, 3, 2)))
    assert "expects (2, 2)" in _error(capsys, "infer", "--model", str(model), "--demos",
                                      str(tmp_path / "w.npz"))
