"""Demonstrations: trajectories of equal length with an optional style level per trajectory.

Two on-disk formats are read: the authors' HDF5 (`expert_states`, `expert_actions`, `expert_ids`,
optional `expert_rewards`, `expert_codes`) and a plain npz (`observations` (N, T, ds), `actions`
(N, T, da), optional `rewards` (N, T) and `levels` (N,)). Everything is validated at the door."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError
from iclr25.core.io import first_line

H5_KEYS = ("expert_states", "expert_actions", "expert_ids")


@dataclass(frozen=True)
class Demos:
    """observations (N, T, ds), actions (N, T, da), rewards (N, T) or None, levels (N,) or None."""

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray | None = None
    levels: np.ndarray | None = None

    def __post_init__(self) -> None:
        o, a = self.observations, self.actions
        if o.ndim != 3 or a.ndim != 3:
            raise UserError(f"demos: observations and actions must be (N, T, dim), got shapes {o.shape} and "
                            f"{a.shape}")
        if o.shape[:2] != a.shape[:2]:
            raise UserError(f"demos: observations {o.shape[:2]} and actions {a.shape[:2]} differ in "
                            f"(trajectories, steps)")
        if o.shape[0] == 0 or o.shape[1] < 2:
            raise UserError(f"demos: need at least one trajectory of >= 2 steps, got {o.shape[:2]}")
        for name, arr in (("observations", o), ("actions", a), ("rewards", self.rewards)):
            if arr is not None and not np.isfinite(arr).all():
                raise UserError(f"demos: {name} hold NaN or inf (first at index "
                                f"{tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])})")
        if self.rewards is not None and self.rewards.shape != o.shape[:2]:
            raise UserError(f"demos: rewards must be (N, T) = {o.shape[:2]}, got {self.rewards.shape}")
        if self.levels is not None and self.levels.shape != (o.shape[0],):
            raise UserError(f"demos: levels must be one per trajectory ({o.shape[0]}), got shape "
                            f"{self.levels.shape}")

    @property
    def n(self) -> int:
        return self.observations.shape[0]

    @property
    def horizon(self) -> int:
        return self.observations.shape[1]

    @property
    def obs_dim(self) -> int:
        return self.observations.shape[2]

    @property
    def act_dim(self) -> int:
        return self.actions.shape[2]

    def returns(self) -> np.ndarray:
        """Task return of each trajectory (N,); needs rewards."""
        if self.rewards is None:
            raise UserError("demos carry no rewards, so their return is unknown")
        return self.rewards.sum(axis=1)

    def truncate(self, horizon: int) -> Demos:
        """The first `horizon` steps of every trajectory."""
        if not 1 < horizon <= self.horizon:
            raise UserError(f"horizon {horizon} must be in 2..{self.horizon} (the demos' length)")
        r = None if self.rewards is None else self.rewards[:, :horizon]
        return Demos(self.observations[:, :horizon], self.actions[:, :horizon], r, self.levels)

    def select(self, levels: Sequence[int]) -> Demos:
        """The trajectories whose level is in `levels`."""
        if self.levels is None:
            raise UserError("demos carry no levels; cannot select levels")
        unknown = sorted(set(levels) - set(self.levels.tolist()))
        if unknown:
            raise UserError(f"level {unknown[0]} not in the demos (levels: "
                            f"{', '.join(map(str, sorted(set(self.levels.tolist()))))})")
        keep = np.isin(self.levels, list(levels))
        r = None if self.rewards is None else self.rewards[keep]
        return Demos(self.observations[keep], self.actions[keep], r, self.levels[keep])


def check_splits(train_levels: Sequence[int], test_levels: Sequence[int]) -> None:
    """Train and test levels must be non-empty and disjoint."""
    if not train_levels:
        raise UserError("no train levels given")
    overlap = sorted(set(train_levels) & set(test_levels))
    if overlap:
        raise UserError(f"level {overlap[0]} is both a train and a test level")


def _real(a, name: str, path: Path) -> np.ndarray:  # noqa: ANN001 - an h5py dataset or an ndarray
    """`a` as a float64 array, refusing complex, text and object data by name."""
    a = np.asarray(a)
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
        raise UserError(f"{path.name}: {name} must be real numbers, got dtype {a.dtype}")
    return a.astype(np.float64)


def load_h5(path: str | Path) -> Demos:
    """The authors' demonstration file (e.g. InvertedPendulumDetCustom_v2.h5): flat arrays split into
    trajectories by `expert_ids`; `expert_codes` (one per trajectory) become the levels."""
    import h5py
    path = Path(path)
    if not path.is_file():
        raise UserError(f"demos file not found: {path}")
    try:
        with h5py.File(path, "r") as f:
            missing = [k for k in H5_KEYS if k not in f]
            if missing:
                raise UserError(f"{path.name}: missing HDF5 key {missing[0]!r} (need {', '.join(H5_KEYS)})")
            states, actions, ids = (_real(f[k], k, path) for k in H5_KEYS)
            rewards = _real(f["expert_rewards"], "expert_rewards", path) if "expert_rewards" in f else None
            codes = (_real(f["expert_codes"], "expert_codes", path).reshape(-1) if "expert_codes" in f
                     else None)
    except UserError:
        raise
    except Exception as e:  # noqa: BLE001 - h5py raises OSError, KeyError, TypeError, ... for damaged files
        raise UserError(f"cannot read {path} as HDF5: {first_line(e, 160)}") from None
    if actions.ndim == 1:
        actions = actions[:, None]
    if states.ndim != 2 or actions.ndim != 2 or ids.ndim != 1:
        raise UserError(f"{path.name}: expert_states and expert_actions must be (rows, dim) and expert_ids "
                        f"(rows,), got {states.shape}, {actions.shape}, {ids.shape}")
    n_rows = len(states)
    if len(actions) != n_rows or len(ids) != n_rows or (rewards is not None and len(rewards) != n_rows):
        raise UserError(f"{path.name}: expert_states has {n_rows} rows but expert_actions/ids/rewards have "
                        f"{len(actions)}/{len(ids)}/{'-' if rewards is None else len(rewards)}")
    traj_ids, first, counts = np.unique(ids, return_index=True, return_counts=True)
    if len(set(counts.tolist())) != 1:
        raise UserError(f"{path.name}: trajectories differ in length ({counts.min()}..{counts.max()} steps)")
    order = np.argsort(first)
    rows = [np.flatnonzero(ids == traj_ids[i]) for i in order]
    obs = np.stack([states[r] for r in rows])
    act = np.stack([actions[r] for r in rows])
    rew = None if rewards is None else np.stack([rewards[r] for r in rows])
    levels = None
    if codes is not None:
        if len(codes) != len(rows):
            raise UserError(f"{path.name}: expert_codes has {len(codes)} entries for {len(rows)} "
                            f"trajectories")
        if not np.all(np.isfinite(codes)) or np.abs(codes).max(initial=0) > 2**31 - 1:
            raise UserError(f"{path.name}: expert_codes must be finite levels (|code| < 2^31)")
        levels = codes.astype(np.int64)
    return Demos(obs, act, rew, levels)


def load_npz(path: str | Path) -> Demos:
    """Demos from an npz with `observations`, `actions` and optional `rewards`, `levels`."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"demos file not found: {path}")
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise UserError(f"{path.name}: not an .npz archive (need arrays observations, actions)")
        with data:
            missing = [k for k in ("observations", "actions") if k not in data.files]
            if missing:
                raise UserError(f"{path.name}: missing array {missing[0]!r} (need observations, actions)")
            arrays = {k: _real(data[k], k, path) for k in ("observations", "actions", "rewards", "levels")
                      if k in data.files}
    except UserError:
        raise
    except Exception as e:  # noqa: BLE001 - numpy raises ValueError, EOFError, OSError, zip errors, ...
        raise UserError(f"cannot read {path} as npz: {first_line(e, 160)}") from None
    levels = arrays.get("levels")
    if levels is not None:
        if not np.all(np.isfinite(levels)) or not np.all(np.mod(levels, 1) == 0) or np.abs(levels).max(
                initial=0) > 2**31 - 1:
            raise UserError(f"{path.name}: levels must be integers (|level| < 2^31)")
        levels = levels.astype(np.int64)
    return Demos(arrays["observations"].astype(np.float64), arrays["actions"].astype(np.float64),
                 None if "rewards" not in arrays else arrays["rewards"].astype(np.float64), levels)


def load_demos(path: str | Path) -> Demos:
    """`load_h5` for .h5/.hdf5, `load_npz` for .npz."""
    suffix = Path(path).suffix.lower()
    if suffix in (".h5", ".hdf5"):
        return load_h5(path)
    if suffix == ".npz":
        return load_npz(path)
    raise UserError(f"demos file {path}: unknown format {suffix!r} (use .h5 or .npz)")


def save_npz(demos: Demos, path: str | Path) -> None:
    """Write demos in the npz format `load_npz` reads."""
    arrays = {"observations": demos.observations, "actions": demos.actions}
    if demos.rewards is not None:
        arrays["rewards"] = demos.rewards
    if demos.levels is not None:
        arrays["levels"] = demos.levels
    np.savez(path, **arrays)
