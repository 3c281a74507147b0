"""The SSM layer: the FFT (padded to 2L), the dense Toeplitz product, the direct sum and the recurrence
are one function; causality, windows, the prefix mask and linearity hold; bad input is refused."""

import math

import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.ssm_selection.ssm import LTISSMConv, direct_conv, fft_conv, toeplitz_conv


def _layer(param, causal, window, d=5, seed=0):
    torch.manual_seed(seed)
    return LTISSMConv(d, window, causal=causal, param=param).double()


@pytest.mark.parametrize("param", ["free", "s4d"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("window", [1, 3, 11, 40])
@pytest.mark.parametrize("masked", [False, True])
def test_fft_direct_toeplitz_and_recurrence_agree(param, causal, window, masked):
    conv = _layer(param, causal, window)
    x = torch.randn(3, 11, 5, dtype=torch.float64)
    mask = (torch.rand(3, 11) < 0.5) if masked else None
    ref = conv.forward_direct(x, mask)
    past, future = conv.kernels(11)
    for y in (conv.forward_fft(x, mask), toeplitz_conv(x, past, future, mask),
              conv.forward_recurrent(x, mask)):
        torch.testing.assert_close(y, ref, rtol=0, atol=1e-12)


def test_long_sequences_take_the_fft_path_and_still_agree():
    conv = _layer("free", False, 100, d=3)
    x = torch.randn(2, 90, 3, dtype=torch.float64)  # > 64: forward() uses the FFT
    torch.testing.assert_close(conv(x), conv.forward_direct(x), rtol=0, atol=1e-11)


@pytest.mark.parametrize("causal", [True, False])
def test_forward_at_is_the_output_at_that_position(causal):
    conv = _layer("s4d", causal, 7)
    x = torch.randn(4, 9, 5, dtype=torch.float64)
    t = torch.tensor([0, 3, 8, 5])
    mask = torch.rand(4, 9) < 0.5
    torch.testing.assert_close(conv.forward_at(x, t, mask), conv(x, mask)[torch.arange(4), t])


def test_impulse_response_is_the_kernel_truncated_to_the_window():
    conv = _layer("free", True, 4, d=2)
    x = torch.zeros(1, 10, 2, dtype=torch.float64)
    x[0, 0] = 1.0
    y = conv(x)[0]  # y_t = K_t for t < U, then 0
    torch.testing.assert_close(y[:4], conv.k_past.detach().T)
    assert torch.all(y[4:] == 0)


def test_a_shift_kernel_moves_the_sequence_by_one():
    conv = LTISSMConv(1, 3, causal=True)
    with torch.no_grad():
        conv.k_past.copy_(torch.tensor([[0.0, 1.0, 0.0]]))  # K_1 = 1: y_t = x_{t−1}
    x = torch.arange(1.0, 6.0).view(1, 5, 1)
    assert conv(x).flatten().tolist() == pytest.approx([0, 1, 2, 3, 4], abs=1e-6)


def test_s4d_kernel_matches_c_abar_power_bbar():
    conv = LTISSMConv(1, 6, causal=True, param="s4d", state_size=2).double()
    with torch.no_grad():
        conv.log_a_re.fill_(math.log(0.5))
        conv.a_im.fill_(1.0)
        conv.log_dt.fill_(math.log(0.1))
        conv.c.copy_(torch.tensor([[[[0.3, -0.2]]]], dtype=torch.float64))
        conv.skip.fill_(0.7)
    a, dt, c = complex(-0.5, 1.0), 0.1, complex(0.3, -0.2)
    abar = torch.exp(torch.tensor(dt * a, dtype=torch.complex128))
    bbar = (abar - 1) / a
    expect = [2 * (c * bbar * abar ** s).real + (0.7 if s == 0 else 0.0) for s in range(6)]
    past, future = conv.kernels(6)
    assert future is None
    assert past.flatten().tolist() == pytest.approx([float(e) for e in expect], abs=1e-12)


@pytest.mark.parametrize("param", ["free", "s4d"])
def test_causal_outputs_ignore_later_inputs(param):
    conv = _layer(param, True, 12)
    x = torch.randn(2, 12, 5, dtype=torch.float64)
    x2 = x.clone()
    x2[:, 7:] = torch.randn(2, 5, 5, dtype=torch.float64)
    torch.testing.assert_close(conv(x)[:, :7], conv(x2)[:, :7])
    assert not torch.allclose(conv(x)[:, 7:], conv(x2)[:, 7:])


def test_two_sided_reads_the_future_and_the_prefix_mask_hides_it():
    conv = _layer("free", False, 12)
    x = torch.randn(1, 12, 5, dtype=torch.float64)
    x2 = x.clone()
    x2[:, 8:] += 1.0
    assert not torch.allclose(conv(x)[:, :8], conv(x2)[:, :8])  # two-sided: the past sees the change
    prefix = torch.zeros(1, 12, dtype=torch.bool)
    prefix[:, :5] = True  # future side sees positions < 5 only
    torch.testing.assert_close(conv(x, prefix)[:, :8], conv(x2, prefix)[:, :8])


@pytest.mark.parametrize("param", ["free", "s4d"])
def test_one_ssm_layer_is_linear(param):
    conv = _layer(param, False, 9)
    x, z = torch.randn(2, 2, 9, 5, dtype=torch.float64)
    torch.testing.assert_close(conv(2.5 * x - 0.5 * z), 2.5 * conv(x) - 0.5 * conv(z))


def test_the_fft_functions_accept_kernels_shorter_than_the_sequence():
    x = torch.randn(2, 8, 3, dtype=torch.float64)
    past, future = torch.randn(3, 2, dtype=torch.float64), torch.randn(3, 1, dtype=torch.float64)
    torch.testing.assert_close(fft_conv(x, past, future), direct_conv(x, past, future))


@pytest.mark.parametrize("kwargs, needle", [
    ({"d": 4, "window": 0}, "window must be >= 1"),
    ({"d": 0, "window": 3}, "d must be >= 1"),
    ({"d": 4, "window": 3, "param": "hippo"}, "unknown SSM parameterisation"),
    ({"d": 4, "window": 3, "param": "s4d", "state_size": 3}, "state_size"),
])
def test_bad_layer_arguments(kwargs, needle):
    with pytest.raises(UserError, match=needle):
        LTISSMConv(**kwargs)


def test_bad_inputs_are_refused():
    conv = LTISSMConv(4, 3)
    with pytest.raises(UserError, match="shape"):
        conv(torch.zeros(2, 5, 3))
    with pytest.raises(UserError, match="empty"):
        conv(torch.zeros(2, 0, 4))
