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
    assert "--iterations" in _error(capsys, *base, "--iterations", "1000000000")  # the hidden old spelling
    assert "--steps" in _error(capsys, *base, "--steps", "1000000000")
    assert "--lambda-info must be a finite number" in _error(capsys, *base, "--lambda-info", "inf")
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


def test_make_demos_train_with_lambda_info_and_discover_with_out(tmp_path, capsys):
    """A user's own styles on HazardLane: the demonstrations, a model trained on them with λ_I set, and
    discovery written with -o; every score printed with its reference."""
    demos = tmp_path / "mine.npz"
    assert _run("make-demos", "--env", "hazard-lane", "--styles", "-0.7,0,0.7", "--per-style", "2",
                "-o", str(demos)) == 0
    out = capsys.readouterr().out
    assert "level 3: style 0.7 -> measured factor 0.7" in out and "wrote 6 demonstrations of 25 steps" in out
    z = np.load(demos)
    assert z["observations"].shape == (6, 25, 2) and z["levels"].tolist() == [1, 1, 2, 2, 3, 3]
    m = tmp_path / "m.pt"
    assert _run("train", "--demos", str(demos), "--env", "hazard-lane", "--steps", "2", "--envs", "4",
                "--lambda-info", "0.3", "-o", str(m)) == 0
    out = capsys.readouterr().out
    assert "steps=2 λ_I=0.3" in out and "uniformly random actions" in out and "the demonstrations 5." in out
    from iclr25.guided_strategy.gsd import GSD
    assert GSD.load(m).config.lambda_info == 0.3
    assert _run("discover", "--model", str(m), "--targets", "0.35", "--budget", "10", "--n", "50",
                "-o", str(tmp_path / "d.csv")) == 0
    out = capsys.readouterr().out
    assert "lower is better" in out and "(K=1: " in out and (tmp_path / "d.csv").is_file()


def test_targets_help_names_the_style_factor(capsys):
    from typer.testing import CliRunner

    from iclr25.guided_strategy.cli import app
    out = CliRunner().invoke(app, ["discover", "--help"], terminal_width=200).output
    text = " ".join(out.replace("│", " ").split())  # rich wraps the help in a box
    assert "mean cart position x over steps 100-199" in text and "mean lateral position y" in text


def test_longmaze_trains_on_the_authors_25_dim_state_layout(tmp_path, capsys):
    """The authors' LongMazeCustom_v1.h5 stores 25-dim states with (x, y) in columns 0-1: train maps them."""
    from iclr25.guided_strategy.envs import make_demos, make_env
    d = make_demos(make_env("longmaze"), [-0.4, 0.4], per_style=2)
    n, t = d["observations"].shape[:2]
    states = np.zeros((n, t, 25), np.float32)
    states[..., :2] = states[..., 3:5] = d["observations"]
    with h5py.File(tmp_path / "LongMazeCustom_v1.h5", "w") as f:
        f["expert_states"] = states.reshape(-1, 25)
        f["expert_actions"] = d["actions"].reshape(-1, 2)
        f["expert_rewards"] = d["rewards"].reshape(-1)
        f["expert_ids"] = np.repeat(np.arange(n), t)
        f["expert_codes"] = d["levels"][:, None]
    assert _run("train", "--demos", str(tmp_path / "LongMazeCustom_v1.h5"), "--env", "longmaze", "--steps",
                "1", "--envs", "4", "-o", str(tmp_path / "lm.pt")) == 0
    assert "env=longmaze demos=4" in capsys.readouterr().out
