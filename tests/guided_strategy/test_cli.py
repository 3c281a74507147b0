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


def test_hostile_values_and_files_exit_2(model, demos_npz, tmp_path, capsys):
    """Sizes beyond their caps, non-finite λ_C, wrong output suffixes, damaged models and demo files that
    are complex, pickled or not archives: one line, exit 2."""
    base = ["train", "--demos", str(demos_npz), "--out", str(tmp_path / "m.pt")]
    assert "--iterations" in _error(capsys, *base, "--iterations", "1000000000")
    assert "--envs" in _error(capsys, *base, "--envs", "1")
    assert "--lambda-c must be a finite number" in _error(capsys, *base, "--lambda-c", "nan")
    assert ".pt" in _error(capsys, "train", "--demos", str(demos_npz), "--out", str(tmp_path / "m.txt"))
    assert "unknown env 'moon'" in _error(capsys, "discover", "--model", str(model), "--targets", "0.2",
                                          "--env", "moon")
    (tmp_path / "empty.pt").write_bytes(b"")
    assert "cannot read model" in _error(capsys, "discover", "--model", str(tmp_path / "empty.pt"),
                                         "--targets", "0.2")
    import torch
    torch.save({"config": {"method": "gsd"}}, tmp_path / "half.pt")
    assert "cannot read model" in _error(capsys, "infer", "--model", str(tmp_path / "half.pt"), "--demos",
                                         str(demos_npz))
    np.savez(tmp_path / "cx.npz", observations=np.ones((2, 3, 2)) * 1j, actions=np.zeros((2, 3, 2)))
    assert "must be real numbers" in _error(capsys, "infer", "--model", str(model), "--demos",
                                            str(tmp_path / "cx.npz"))
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    (tmp_path / "obj.npz").write_bytes((tmp_path / "obj.npy").read_bytes())
    assert "obj.npz" in _error(capsys, "infer", "--model", str(model), "--demos", str(tmp_path / "obj.npz"))
    (tmp_path / "bad.h5").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 40)
    assert "cannot read" in _error(capsys, "train", "--demos", str(tmp_path / "bad.h5"))
