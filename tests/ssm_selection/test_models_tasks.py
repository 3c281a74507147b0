"""Models (padding, readout shortcuts, masks, names) and task generators (their invariants)."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.ssm_selection.models import FixedPositionMLP, LinearSSM, build_model
from iclr25.ssm_selection.tasks import (
    IGNORE,
    encode_text,
    load_splice,
    make_associative_recall,
    make_copy,
    make_motif_dna,
    make_selection_regression,
    sample_no_repeat,
    selection_target,
)

NAMES = ["ssm1", "fnnssmfnn", "ssmfnn3", "ssmfnn2-causal", "ssmfnn2-s4d", "tf2", "tf2-causal"]


@pytest.mark.parametrize("name", NAMES)
def test_right_padding_does_not_change_the_output(name):
    torch.manual_seed(0)
    m = build_model(name, vocab=9, n_out=3, length=10, d=16).double()
    x = torch.tensor([[3, 1, 4, 1, 5, 0, 0, 0, 0, 0]])
    torch.testing.assert_close(m(x), m(x[:, :5]))


@pytest.mark.parametrize("name", NAMES)
def test_last_token_shortcut_equals_the_full_computation(name):
    torch.manual_seed(1)
    m = build_model(name, vocab=9, n_out=3, length=10, d=16).double()
    x = torch.randint(1, 9, (4, 10))
    x[1, 6:] = 0
    emb, valid = m.embed_input(x)
    last = valid.sum(1) - 1
    full = m.hidden(emb, valid, None)[torch.arange(4), last]
    torch.testing.assert_close(m.hidden_at(emb, valid, None, last), full)


@pytest.mark.parametrize("name", ["ssmfnn2-causal", "tf2-causal", "ssm1-causal"])
def test_causal_lm_logits_ignore_later_tokens(name):
    torch.manual_seed(2)
    m = build_model(name, vocab=9, head="lm", n_out=5, length=12, d=16)
    x = torch.randint(1, 9, (2, 12))
    x2 = x.clone()
    x2[:, 6:] = torch.randint(1, 9, (2, 6))
    torch.testing.assert_close(m(x)[:, :6], m(x2)[:, :6])


@pytest.mark.parametrize("name", ["ssmfnn2", "tf2"])
def test_prefix_two_sided_sees_the_prefix_but_not_the_copy_ahead(name):
    torch.manual_seed(3)
    m = build_model(name, vocab=9, head="lm", n_out=5, length=12, d=16)
    x = torch.randint(1, 9, (1, 12))
    prefix = torch.zeros(1, 12, dtype=torch.bool)
    prefix[:, :6] = True
    x2 = x.clone()
    x2[:, 9:] = (x2[:, 9:] % 8) + 1  # change tokens after the prefix
    torch.testing.assert_close(m(x, prefix)[:, :9], m(x2, prefix)[:, :9])
    x3 = x.clone()
    x3[:, 4] = (x3[:, 4] % 8) + 1  # change a prefix token: earlier positions see it
    assert not torch.allclose(m(x, prefix)[:, :4], m(x3, prefix)[:, :4])


def test_single_ssm_is_affine_in_real_valued_tokens():
    torch.manual_seed(4)
    m = LinearSSM(None, d=8, causal=False, head="regress", window=6, in_features=3, pool="mean").double()
    x, z = torch.rand(2, 5, 6, 3, dtype=torch.float64)
    zero = torch.zeros_like(x)
    torch.testing.assert_close(m(x + z) - m(z), m(x) - m(zero))


def test_fixed_position_mlp_reads_only_its_positions():
    torch.manual_seed(5)
    m = FixedPositionMLP(None, d=8, positions=4, head="regress", in_features=4)
    x = torch.rand(3, 32, 4)
    x2 = x.clone()
    x2[:, 4:] = torch.rand(3, 28, 4)
    torch.testing.assert_close(m(x), m(x2))


def test_build_model_names_and_sizes():
    m = build_model("ssmfnn3-causal-s4d", vocab=10, n_out=4, length=20, d=32)
    assert m.causal and len(m.blocks) == 3 and m.blocks[0].ssm.param == "s4d"
    assert build_model("tf2", vocab=10, n_out=4, length=20, d=32).max_len == 20
    # embedding 10·32 + two-sided kernel 32·(20 + 19) + readout 32·4 + 4
    assert build_model("ssm1", vocab=10, n_out=4, length=20, d=32).n_params() == 320 + 1248 + 132


@pytest.mark.parametrize("name, needle", [("lstm2", "unknown model"), ("ssmfnn0", "number of layers"),
                                           ("tf0", "number of layers"), ("mlp0", "k positions"),
                                           ("ssmfnn99999999", r"in \[1, 64\]")])
def test_unknown_or_empty_models_are_refused(name, needle):
    with pytest.raises(UserError, match=needle):
        build_model(name, vocab=10, n_out=2, length=8)


def test_model_input_checks():
    m = build_model("ssmfnn1", vocab=5, n_out=2, length=8, d=8)
    with pytest.raises(UserError, match="token ids must lie"):
        m(torch.tensor([[1, 7]]))
    with pytest.raises(UserError, match="empty or left-padded"):
        m(torch.tensor([[0, 1, 2]]))
    with pytest.raises(UserError, match="empty sequence"):
        m(torch.zeros(1, 0, dtype=torch.long))
    with pytest.raises(UserError, match="length"):
        build_model("ssmfnn1", vocab=5, n_out=2, length=0)
    with pytest.raises(UserError, match="window must be >= 1"):
        build_model("ssmfnn1", vocab=5, n_out=2, length=8, window=0)
    with pytest.raises(UserError, match="exceeds"):
        build_model("tf1", vocab=5, n_out=2, length=4, d=8)(torch.ones(1, 6, dtype=torch.long))


# ---- generators ---------------------------------------------------------------------------------

def test_associative_recall_keys_distinct_query_among_keys_target_its_value():
    d = make_associative_recall(500, n_pairs=8, n_keys=32, n_values=32, seed=0)
    x, y = d.x.numpy(), d.y.numpy()
    keys, values, q = x[:, 0:-1:2], x[:, 1:-1:2], x[:, -1]
    assert all(len(set(k)) == 8 for k in keys)
    assert ((keys >= 1) & (keys <= 32)).all() and ((values >= 33) & (values <= 64)).all()
    j = np.argmax(keys == q[:, None], axis=1)
    assert (keys[np.arange(500), j] == q).all()
    assert (values[np.arange(500), j] - 33 == y).all()
    assert np.bincount(d.info["query_pair"], minlength=8).min() > 30  # queries spread over the pairs


def test_associative_recall_refuses_more_pairs_than_keys():
    with pytest.raises(UserError, match="n_pairs = 40 > n_keys = 32"):
        make_associative_recall(4, n_pairs=40, n_keys=32)


def test_copy_source_has_no_repeated_trigrams_and_targets_are_the_source():
    d = make_copy(300, length=16, n_symbols=16, seed=1)
    sep = 17
    for x, y, prefix, ell in zip(d.x.numpy(), d.y.numpy(), d.future_mask.numpy(), d.info["source_length"],
                                 strict=True):
        assert 8 <= ell <= 16
        src = x[:ell]
        grams = [tuple(src[i:i + 3]) for i in range(ell - 2)]
        assert len(grams) == len(set(grams))
        assert x[ell] == sep and (x[ell + 1:2 * ell] == src[:-1]).all() and (x[2 * ell:] == 0).all()
        assert (y[ell:2 * ell] == src - 1).all()
        assert (y[:ell] == IGNORE).all() and (y[2 * ell:] == IGNORE).all()
        assert prefix[:ell + 1].all() and not prefix[ell + 1:].any()
    assert len(set(d.info["source_length"])) > 5  # the copy shift depends on the input


def test_no_repeat_sampler_and_its_impossible_case():
    s = sample_no_repeat(30, 4, 3, np.random.default_rng(0))
    assert len({tuple(s[i:i + 3]) for i in range(28)}) == 28
    with pytest.raises(UserError, match="only 4 exist"):
        sample_no_repeat(20, 2, 2, np.random.default_rng(0))


def test_selection_target_on_a_hand_made_input():
    x = np.zeros((1, 3, 4))
    x[0, 0] = [0.9, 0.9, 0.9, 0.1]
    x[0, 1] = [0.25, 0.0, 0.5, 0.8]  # most important (x_4 = 0.8)
    x[0, 2] = [0.0, 0.6, 0.0, 0.5]  # second
    assert selection_target(x)[0] == pytest.approx(np.sin(2 * np.pi * 0.25) + 0.6 * 0.5)


def test_selection_regression_noise_and_permutation_invariance():
    d = make_selection_regression(4000, seed=2)
    assert float((d.y - d.y_clean).std()) == pytest.approx(0.1, rel=0.05)
    perm = np.random.default_rng(0).permutation(32)
    assert np.allclose(selection_target(d.x.numpy()[:, perm]), d.y_clean.numpy(), atol=1e-6)


def test_motif_is_planted_in_positives_only():
    d = make_motif_dna(200, length=50, motif="ACGTTGCA", seed=3)
    m = [1 + "ACGT".index(c) for c in "ACGTTGCA"]
    for x, y, s in zip(d.x.numpy(), d.y.numpy(), d.info["motif_start"], strict=True):
        hits = [i for i in range(43) if list(x[i:i + 8]) == m]
        assert hits == ([s] if y == 1 else [])
    assert d.y.float().mean() == 0.5


def test_splice_is_the_keel_set():
    d = load_splice()
    assert d.x.shape == (3190, 60) and d.vocab == 6
    assert np.bincount(d.y.numpy()).tolist() == [767, 768, 1655]  # EI, IE, N


def test_encode_text_chars_words_and_empty():
    x, alphabet = encode_text(["ACG", "TA"])
    assert alphabet == ["A", "C", "G", "T"] and x.tolist() == [[1, 2, 3], [4, 1, 0]]
    x, alphabet = encode_text(["the cat", "a cat sat"], split=" ")
    assert x.shape == (2, 3) and "cat" in alphabet
    with pytest.raises(UserError, match="sequence 1 is empty"):
        encode_text(["AC", ""])
