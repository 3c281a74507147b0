"""Tokenizer training options: a fixed number of steps with a validation curve, the EMA of the weights
(an analytic one-step case), and the adversarial loss (VQGAN's hinge loss and adaptive weight)."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.imagefolder.tokenizer import MSRQTokenizer, TokenizerNet, adaptive_weight, hinge_d_loss

X = np.random.default_rng(0).random((64, 1, 8, 8), dtype=np.float32)
KW = dict(patch=4, scales=(1, 2), codebook=8, dim=4, width=16, depth=1, semantic=None, batch_size=32,
          qdrop=0.0)


def test_steps_and_the_validation_curve():
    tok = MSRQTokenizer(**KW, steps=5).fit(X[:48], val_images=X[48:], eval_every=2)
    h = tok.history_
    assert h.steps == 5 and h.val_step == [2, 4, 5] and len(h.val_mse) == 3
    assert all(v > 0 for v in h.val_mse)
    assert h.val_mse[-1] == pytest.approx(float(((tok.reconstruct(X[48:]) - X[48:]) ** 2).mean()), rel=1e-5)


def test_ema_after_one_step_is_the_decayed_mix_of_start_and_step():
    plain = MSRQTokenizer(**KW, steps=1, seed=3).fit(X)
    averaged = MSRQTokenizer(**KW, steps=1, seed=3, ema=0.75).fit(X)
    torch.manual_seed(3)
    start = TokenizerNet(plain.config, 1, 8, 8).state_dict()
    for k in ("to_pixel.weight", "quant_conv.bias", "latent_tokens"):
        want = 0.75 * start[k] + 0.25 * plain.net.state_dict()[k]
        assert torch.allclose(averaged.net.state_dict()[k], want, atol=1e-6), k


def test_hinge_loss_and_adaptive_weight():
    assert float(hinge_d_loss(torch.full((4,), 2.0), torch.full((4,), -2.0))) == 0.0  # both beyond the margin
    assert float(hinge_d_loss(torch.zeros(4), torch.zeros(4))) == pytest.approx(1.0)
    w = torch.ones(3, requires_grad=True)
    rec, adv = (w * 2.0).sum(), (w * 0.5).sum()  # gradients 2 and 0.5 per entry
    assert float(adaptive_weight(rec, adv, w)) == pytest.approx(4.0, rel=1e-3)


def test_gan_training_starts_at_gan_start_and_changes_the_weights():
    plain = MSRQTokenizer(**KW, steps=4, seed=1).fit(X)
    gan = MSRQTokenizer(**KW, steps=4, seed=1, gan_weight=0.5, gan_start=2).fit(X)
    late = MSRQTokenizer(**KW, steps=4, seed=1, gan_weight=0.5, gan_start=4).fit(X)  # never starts
    assert len(gan.history_.gan_d_loss) == 1 and gan.history_.gan_d_loss[0] > 0
    k = "to_pixel.weight"
    assert not torch.allclose(gan.net.state_dict()[k], plain.net.state_dict()[k])
    assert torch.allclose(late.net.state_dict()[k], plain.net.state_dict()[k])


@pytest.mark.parametrize("bad, needle", [({"ema": 1.0}, "ema"), ({"gan_weight": -1.0}, "gan_weight"),
                                         ({"steps": 0}, "steps >= 1")])
def test_bad_options(bad, needle):
    with pytest.raises(UserError, match=needle):
        MSRQTokenizer(**{**KW, **bad})
