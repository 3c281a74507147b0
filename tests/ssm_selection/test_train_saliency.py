"""Training, evaluation, compare, and gradient × input saliency on cases with known answers."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.ssm_selection.models import FixedPositionMLP, build_model
from iclr25.ssm_selection.saliency import saliency, selection_sparsity, top_k_share, window_share
from iclr25.ssm_selection.tasks import SeqData, make_associative_recall, make_motif_dna
from iclr25.ssm_selection.train import TrainConfig, compare, evaluate, train


def _first_token_task(n=512, seed=0):
    """Label = first token: one SSM+FNN layer learns it in a few dozen steps."""
    x = torch.from_numpy(np.random.default_rng(seed).integers(1, 5, (n, 6)))
    return SeqData(x, x[:, 0] - 1, "classify", 4, vocab=5)


def test_training_learns_an_easy_task_and_early_stopping_keeps_the_best():
    torch.manual_seed(0)
    m = build_model("ssmfnn1", vocab=5, n_out=4, length=6, d=16)
    before = evaluate(m, _first_token_task(seed=1))["accuracy"]
    res = train(m, _first_token_task(), TrainConfig(steps=300, batch_size=64, lr=3e-3, eval_every=50),
                val=_first_token_task(128, seed=2))
    after = evaluate(m, _first_token_task(seed=1))["accuracy"]
    assert after > 0.95 > before
    assert res.best_step == max(res.val, key=lambda v: v[1])[0]
    assert res.losses[-1] < res.losses[0]


def test_stop_at_ends_training_once_validation_is_solved():
    torch.manual_seed(0)
    m = build_model("ssmfnn1", vocab=5, n_out=4, length=6, d=16)
    res = train(m, _first_token_task(), TrainConfig(steps=2000, batch_size=64, lr=3e-3, eval_every=25,
                                                    stop_at=0.99),
                val=_first_token_task(128, seed=2))
    assert res.steps < 2000 and res.val[-1][1] >= 0.99


def test_patience_stops_a_run_that_no_longer_improves():
    torch.manual_seed(0)
    m = build_model("ssm1", vocab=5, n_out=4, length=6, d=8)
    noise = SeqData(torch.randint(1, 5, (256, 6)), torch.randint(0, 4, (256,)), "classify", 4, vocab=5)
    res = train(m, noise, TrainConfig(steps=5000, batch_size=32, eval_every=5, patience=3), val=noise.take(
        slice(0, 64)))
    assert res.steps < 5000 and res.steps - res.best_step == 15


def test_train_refuses_a_mismatched_head_and_bad_configs():
    m = build_model("ssmfnn1", vocab=5, n_out=3, length=6, d=8)
    with pytest.raises(UserError, match="outputs"):
        train(m, _first_token_task(), TrainConfig(steps=1))
    with pytest.raises(UserError, match="steps"):
        TrainConfig(steps=0)
    with pytest.raises(UserError, match="learning rate"):
        TrainConfig(lr=float("nan"))


def test_compare_returns_one_row_per_model_size_and_seed():
    df = compare(["ssm1", "ssmfnn1"], lambda N, n, seed: make_associative_recall(n, N, 8, 8, seed=seed),
                 sizes=[2, 3], steps=3, seeds=[0, 1], n_test=32, size_name="n_pairs")
    assert len(df) == 8 and set(df["n_pairs"]) == {2, 3}
    params = df.groupby("model")["params"].max()
    assert df["accuracy"].between(0, 1).all() and params["ssm1"] < params["ssmfnn1"]


def test_saliency_is_zero_where_the_model_cannot_look_and_on_padding():
    torch.manual_seed(0)
    m = FixedPositionMLP(vocab=5, d=8, positions=3, n_out=2)
    x = torch.randint(1, 5, (4, 10))
    x[0, 7:] = 0
    s = saliency(m, x)
    assert s.shape == (4, 10) and (s[:, 3:] == 0).all() and (s[:, :3] > 0).any()


def test_gradient_times_input_of_a_linear_readout_sums_to_the_output():
    """For an affine model f = Σ_t a_t·e_t + b, Σ_t ⟨∂f/∂e_t, e_t⟩ = f − b (completeness)."""
    torch.manual_seed(1)
    m = build_model("ssm1", in_features=3, head="regress", length=7, d=8, pool="mean").double()
    x = torch.rand(5, 7, 3, dtype=torch.float64)
    captured = {}
    h = m.embed.register_forward_hook(lambda mod, i, o: captured.setdefault("e", o))
    out = m(x)
    h.remove()
    e = captured["e"]
    grad = torch.autograd.grad(out.sum(), e)[0]
    torch.testing.assert_close((grad * e).sum((1, 2)), out - m.readout.bias)
    s = saliency(m, x)
    torch.testing.assert_close(s, (grad * e).sum(-1).abs())


def test_share_functions_on_hand_made_profiles():
    s = torch.tensor([[0.0, 1.0, 1.0, 2.0], [1.0, 1.0, 1.0, 1.0]])
    assert top_k_share(s, 1).tolist() == pytest.approx([0.5, 0.25])
    assert window_share(s, np.array([1, 0]), 2).tolist() == pytest.approx([0.5, 0.5])
    rep = selection_sparsity(s, k=2)
    assert rep["uniform_share"] == 0.5 and rep["argmax_distinct"] == 2
    with pytest.raises(UserError):
        top_k_share(s, 0)


def test_saliency_bad_input():
    m = build_model("ssmfnn1", vocab=5, n_out=2, length=6, d=8)
    with pytest.raises(UserError, match="non-empty"):
        saliency(m, torch.zeros(0, 6, dtype=torch.long))
    with pytest.raises(UserError, match="target"):
        saliency(m, torch.ones(2, 6, dtype=torch.long), target=torch.tensor([0]))


def test_a_trained_motif_detector_attends_to_the_motif():
    """The sparse_dynamic_importance protocol in miniature: a small two-sided SSM+FNN learns a planted
    6-nt motif in 40-nt sequences (local window, as in the reproduction), and its saliency lands on the
    motif wherever it is, well above the uniform share 6/40."""
    torch.manual_seed(0)
    data, test = make_motif_dna(1500, 40, "ACGTAC", seed=0), make_motif_dna(200, 40, "ACGTAC", seed=1)
    m = build_model("ssmfnn2", vocab=5, n_out=2, length=40, d=32, pool="mean", window=8)
    train(m, data, TrainConfig(steps=150, lr=3e-3))
    assert evaluate(m, test)["accuracy"] > 0.95
    pos = test.info["motif_start"] >= 0
    s = saliency(m, test.x[torch.from_numpy(pos)])
    assert window_share(s, test.info["motif_start"][pos], 6).mean() > 1.5 * 6 / 40
