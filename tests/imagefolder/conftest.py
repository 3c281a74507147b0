"""Small fitted models on scikit-learn's 8x8 digits, shared by the tests (trained once per session)."""

import numpy as np
import pytest

from iclr25.imagefolder.data import load_digits_images


@pytest.fixture(scope="session")
def digits():
    return load_digits_images()


@pytest.fixture(scope="session")
def tiny_tok(digits):
    """A 2-branch tokenizer with 3 scales (1, 2, 4) on 8x8 digits: 21 positions x 2 tokens."""
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    return MSRQTokenizer(branches=2, scales=(1, 2, 4), codebook=16, dim=4, width=16, depth=1, patch=2,
                         semantic="last", epochs=1, batch_size=64, lr=3e-3, seed=0).fit(
        digits.images[:640], digits.labels[:640], teacher_epochs=1)


@pytest.fixture(scope="session")
def tiny_codes(tiny_tok, digits):
    return tiny_tok.encode(digits.images[:6])


@pytest.fixture()
def rng():
    return np.random.default_rng(0)
