"""The SD-CASSI operator: adjoint, the diagonal ΦΦᵀ, least norm, and validation at the door."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.psr_sci.operators import (
    bands_from_width,
    cassi_adjoint,
    cassi_forward,
    check_problem,
    least_norm,
    phi_phit_diag,
)


def test_forward_shifts_each_band_by_two_pixels():
    x = np.zeros((3, 1, 4), np.float32)
    x[1, 0, 0] = 1.0  # band 1, column 0 lands at column 2
    y = cassi_forward(x, np.ones((1, 4)))
    assert y.shape == (1, 4 + 2 * 2)
    assert y[0].tolist() == [0, 0, 1, 0, 0, 0, 0, 0]


def test_adjoint_passes_the_dot_product_test():
    rng = np.random.default_rng(0)
    x = rng.random((28, 12, 10))
    y = rng.random((12, 10 + 54))
    m = rng.random((12, 10))
    lhs = np.sum(cassi_forward(x, m) * y)
    rhs = np.sum(x * cassi_adjoint(y, m, 28))
    assert lhs == pytest.approx(rhs, rel=1e-5)


def test_phi_phit_diag_equals_the_dense_matrix_on_4x5x3():
    rng = np.random.default_rng(1)
    h, w, b = 4, 5, 3
    m = rng.random((h, w))
    n_in = b * h * w
    phi = np.stack([cassi_forward(e.reshape(b, h, w), m).ravel() for e in np.eye(n_in)], 1)  # (n_out, n_in)
    dense = phi @ phi.T
    assert np.allclose(dense, np.diag(np.diag(dense)), atol=1e-6)  # ΦΦᵀ is diagonal
    assert np.allclose(np.diag(dense), phi_phit_diag(m, b).ravel(), atol=1e-6)


def test_step_is_configurable():
    m = np.ones((2, 3))
    assert cassi_forward(np.ones((4, 2, 3)), m, step=1).shape == (2, 3 + 3)
    assert phi_phit_diag(m, 4, step=1).shape == (2, 6)


def test_least_norm_is_consistent_with_the_measurement():
    rng = np.random.default_rng(2)
    m = rng.random((8, 8)) + 0.1
    y = cassi_forward(rng.random((28, 8, 8)), m)
    assert np.allclose(cassi_forward(least_norm(y, m), m), y, atol=1e-4)


def test_torch_and_numpy_agree_and_batch():
    rng = np.random.default_rng(3)
    x = rng.random((2, 28, 6, 6)).astype(np.float32)
    m = rng.random((6, 6)).astype(np.float32)
    yt = cassi_forward(torch.as_tensor(x), torch.as_tensor(m))
    assert isinstance(yt, torch.Tensor)
    assert np.allclose(yt.numpy()[1], cassi_forward(x[1], m), atol=1e-6)


@pytest.mark.parametrize("y_shape, bands, msg", [
    ((8, 60), 28, "expected width"),  # W' != W + 2(B-1)
    ((8, 62), 1, "bands must be"),  # B < 2
])
def test_check_problem_refuses_bad_shapes(y_shape, bands, msg):
    with pytest.raises(UserError, match=msg):
        check_problem(np.ones(y_shape), np.ones((8, 8)), bands)


def test_check_problem_refuses_nan_and_negative_values():
    m = np.ones((8, 8))
    y = np.ones((8, 62))
    y[0, 0] = np.nan
    with pytest.raises(UserError, match="NaN"):
        check_problem(y, m, 28)
    y[0, 0] = -1
    with pytest.raises(UserError, match="negative"):
        check_problem(y, m, 28)


def test_bands_from_width():
    assert bands_from_width(310, 256) == 28
    with pytest.raises(UserError):
        bands_from_width(257, 256)


def test_float64_input_stays_float64_and_exact():
    """numpy float64 in, float64 out: the adjoint identity holds to machine precision (a float32 cast
    left 1e-7)."""
    rng = np.random.default_rng(3)
    x, y, m = rng.random((28, 9, 7)), rng.random((9, 7 + 54)), (rng.random((9, 7)) < 0.5).astype(np.uint8)
    fx = cassi_forward(x, m)
    assert fx.dtype == np.float64 and cassi_adjoint(y, m, 28).dtype == np.float64
    lhs, rhs = np.sum(fx * y), np.sum(x * cassi_adjoint(y, m, 28))
    assert abs(lhs - rhs) / abs(lhs) < 1e-13
    assert least_norm(y, m).dtype == np.float64
    assert cassi_forward(x.astype(np.float32), m).dtype == np.float32  # float32 stays float32
