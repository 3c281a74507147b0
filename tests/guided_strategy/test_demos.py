"""Demonstration files: the authors' HDF5 layout and our npz, validated at the door."""

import h5py
import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.guided_strategy.demos import Demos, check_splits, load_demos, load_h5, load_npz, save_npz


def _write_h5(path, n_traj=3, T=4, drop=None, **overrides):
    rng = np.random.default_rng(0)
    arrays = {"expert_states": rng.normal(size=(n_traj * T, 4)),
              "expert_actions": rng.normal(size=(n_traj * T, 1)).astype(np.float32),
              "expert_ids": np.repeat(np.arange(n_traj), T).astype(float),
              "expert_rewards": np.ones(n_traj * T), "expert_codes": np.arange(1, n_traj + 1)[:, None]}
    arrays.update(overrides)
    with h5py.File(path, "w") as f:
        for k, v in arrays.items():
            if k != drop:
                f[k] = v
    return arrays


def test_h5_is_split_into_trajectories_by_id(tmp_path):
    arrays = _write_h5(tmp_path / "d.h5")
    d = load_h5(tmp_path / "d.h5")
    assert d.observations.shape == (3, 4, 4) and d.actions.shape == (3, 4, 1)
    assert d.levels.tolist() == [1, 2, 3] and d.returns().tolist() == [4.0, 4.0, 4.0]
    assert np.array_equal(d.observations[1], arrays["expert_states"][4:8])


@pytest.mark.parametrize("drop", ["expert_states", "expert_actions", "expert_ids"])
def test_missing_h5_key_names_it(tmp_path, drop):
    _write_h5(tmp_path / "d.h5", drop=drop)
    with pytest.raises(UserError, match=f"missing HDF5 key '{drop}'"):
        load_h5(tmp_path / "d.h5")


def test_mismatched_h5_lengths(tmp_path):
    _write_h5(tmp_path / "d.h5", expert_actions=np.zeros((11, 1)))
    with pytest.raises(UserError, match="12 rows but expert_actions"):
        load_h5(tmp_path / "d.h5")


def test_nan_in_h5_states(tmp_path):
    states = np.zeros((12, 4))
    states[5, 2] = np.nan
    _write_h5(tmp_path / "d.h5", expert_states=states)
    with pytest.raises(UserError, match=r"observations hold NaN or inf \(first at index \(1, 1, 2\)\)"):
        load_h5(tmp_path / "d.h5")


def test_unequal_trajectory_lengths(tmp_path):
    _write_h5(tmp_path / "d.h5", expert_ids=np.r_[np.zeros(5), np.ones(3), 2 * np.ones(4)])
    with pytest.raises(UserError, match="differ in length"):
        load_h5(tmp_path / "d.h5")


def test_not_an_h5_file(tmp_path):
    (tmp_path / "x.h5").write_text("hello")
    with pytest.raises(UserError, match="cannot read .* as HDF5"):
        load_h5(tmp_path / "x.h5")


def test_npz_round_trip_and_format_dispatch(tmp_path):
    d = Demos(np.zeros((2, 3, 2)), np.ones((2, 3, 2)), np.ones((2, 3)), np.array([1, 2]))
    save_npz(d, tmp_path / "d.npz")
    back = load_demos(tmp_path / "d.npz")
    assert np.array_equal(back.actions, d.actions) and back.levels.tolist() == [1, 2]
    with pytest.raises(UserError, match="unknown format '.csv'"):
        load_demos(tmp_path / "d.csv")


def test_npz_errors(tmp_path):
    np.savez(tmp_path / "a.npz", observations=np.zeros((2, 3, 2)))
    with pytest.raises(UserError, match="missing array 'actions'"):
        load_npz(tmp_path / "a.npz")
    np.savez(tmp_path / "b.npz", observations=np.zeros((2, 3, 2)), actions=np.zeros((2, 4, 2)))
    with pytest.raises(UserError, match=r"differ in \(trajectories, steps\)"):
        load_npz(tmp_path / "b.npz")
    np.savez(tmp_path / "c.npz", observations=np.zeros((2, 3, 2)), actions=np.zeros((2, 3, 2)),
             levels=np.array([1.5, 2.0]))
    with pytest.raises(UserError, match="levels must be integers"):
        load_npz(tmp_path / "c.npz")
    with pytest.raises(UserError, match="not found"):
        load_npz(tmp_path / "none.npz")


def test_select_truncate_and_splits():
    d = Demos(np.zeros((4, 5, 1)), np.zeros((4, 5, 1)), None, np.array([1, 2, 1, 3]))
    assert d.select([1]).n == 2 and d.truncate(3).horizon == 3
    with pytest.raises(UserError, match="level 7 not in the demos"):
        d.select([7])
    with pytest.raises(UserError, match="horizon 9"):
        d.truncate(9)
    with pytest.raises(UserError, match="level 3 is both a train and a test level"):
        check_splits([1, 3], [3, 4])
    with pytest.raises(UserError, match="carry no rewards"):
        d.returns()


def test_the_authors_pendulum_file(pendulum_h5):
    d = load_h5(pendulum_h5)
    assert (d.n, d.horizon, d.obs_dim, d.act_dim) == (25, 1000, 4, 1)
    assert d.levels.tolist() == [lv for lv in range(1, 6) for _ in range(5)]
    assert np.all(d.returns() == 1000)
