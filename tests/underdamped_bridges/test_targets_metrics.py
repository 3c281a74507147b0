"""Targets (known normalisers, analytic scores = autograd, the logistic likelihood = scikit-learn's),
the real-data loaders, the Laplace-IS reference, the metrics, and what bad input gets."""

import math

import numpy as np
import pytest
import torch
from sklearn.metrics import log_loss

from iclr25.core.errors import UserError
from iclr25.underdamped_bridges import (
    LGCP,
    Funnel,
    GaussianMixture,
    ManyWell,
    Seeds,
    bayesian_logreg,
    elbo,
    emc,
    ess,
    from_log_prob,
    gmm40,
    laplace_is_log_z,
    load_blr,
    log_z_hat,
    sinkhorn,
)
from iclr25.underdamped_bridges.targets import Target

F64 = torch.float64


def _autograd_score(target: Target, x: torch.Tensor) -> torch.Tensor:
    return Target.score(target, x)  # the base class's autograd implementation


@pytest.mark.parametrize("target", [
    Funnel(5), ManyWell(6, m=2), gmm40(dim=4),
    bayesian_logreg(np.random.default_rng(0).normal(size=(30, 3)), np.arange(30) % 2, 2.0),
    LGCP(np.random.default_rng(1).uniform(size=(40, 2)), grid=4),
], ids=lambda t: t.name)
def test_analytic_scores_equal_autograd(target):
    x = 0.7 * torch.randn(6, target.dim, generator=torch.Generator().manual_seed(0), dtype=F64)
    if target.name == "gmm40":
        x = x + target.means[0]
    assert torch.allclose(target.score(x), _autograd_score(target, x), rtol=1e-8, atol=1e-8)


def _grid_integral(target: Target, lo: list[float], hi: list[float], n: int = 1201) -> float:
    """∫ρ over a 2-D box by the trapezoid rule (one batched log_prob call)."""
    axes = [torch.linspace(a, b, n, dtype=F64) for a, b in zip(lo, hi, strict=True)]
    grid = torch.stack(torch.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 2)
    dens = torch.exp(target.log_prob(grid)).reshape(n, n)
    return float(torch.trapezoid(torch.trapezoid(dens, axes[1], dim=1), axes[0]))


def test_funnel_is_the_normalised_product_of_its_conditionals():
    from scipy.stats import norm
    x = torch.randn(5, 4, generator=torch.Generator().manual_seed(0), dtype=F64)
    x0 = x[:, 0].numpy()
    ref = norm.logpdf(x0, scale=3) + norm.logpdf(x[:, 1:].numpy(), scale=np.exp(x0 / 2)[:, None]).sum(1)
    assert np.allclose(Funnel(4).log_prob(x).numpy(), ref)  # so log Z = 0


def test_many_well_normaliser_by_quadrature():
    well = ManyWell(2, m=1)
    assert math.log(_grid_integral(well, [-4, -9], [4, 9])) == pytest.approx(well.log_Z, abs=1e-6)
    assert ManyWell().log_Z == pytest.approx(42.8172, abs=1e-3)  # the paper's d = 50 value


def test_gaussian_mixture_is_normalised_and_samples_hit_its_modes():
    mix = GaussianMixture(np.array([[-3.0, 0.0], [3.0, 1.0]]), 0.7)
    assert _grid_integral(mix, [-9, -6], [9, 7]) == pytest.approx(1.0, abs=1e-6)
    x = mix.sample(2000, torch.Generator().manual_seed(0))
    assert emc(mix.modes(x).numpy(), 2) > 0.99


def test_logistic_likelihood_equals_sklearn_log_loss():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(50, 4)), rng.integers(0, 2, 50)
    target = bayesian_logreg(X, y, prior_std=1.5, intercept=True)
    w = torch.randn(3, 5, generator=torch.Generator().manual_seed(0), dtype=F64)
    for wi, ll in zip(w, target.log_likelihood(w), strict=True):
        p = 1 / (1 + np.exp(-(X @ wi[1:].numpy() + wi[0].item())))
        assert float(ll) == pytest.approx(-log_loss(y, p, normalize=False), rel=1e-10)
    # ±1 labels mean the same model as 0/1
    same = bayesian_logreg(X, 2 * y - 1, prior_std=1.5)
    assert torch.allclose(same.log_prob(w), target.log_prob(w))


def test_laplace_is_reference_matches_quadrature_in_one_dimension(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(25, 1)), rng.integers(0, 2, 25)
    target = bayesian_logreg(X, y, prior_std=2.0, intercept=False)
    from scipy.integrate import quad
    z, _ = quad(lambda w: math.exp(float(target.log_prob(torch.tensor([[w]], dtype=F64)))), -20, 20)
    ref = laplace_is_log_z(target, n=20_000, repeats=2)
    assert ref["log_z"] == pytest.approx(math.log(z), abs=max(4 * ref["se"], 1e-3))
    assert laplace_is_log_z(target, n=20_000, repeats=2) == ref  # cached


def test_seeds_model_is_finite_and_its_score_is_autograd():
    seeds = Seeds()
    x = 0.5 * torch.randn(4, 26, generator=torch.Generator().manual_seed(0), dtype=F64)
    assert torch.isfinite(seeds.log_prob(x)).all() and seeds.score(x).shape == (4, 26)


def test_real_logistic_sets_have_the_papers_dimensions(shared_udb):
    dims = {name: load_blr(name, shared_udb).dim for name in ("ionosphere", "sonar", "credit", "cancer")}
    assert dims == {"ionosphere": 35, "sonar": 61, "credit": 25, "cancer": 31}


def test_cancer_falls_back_to_scikit_learn(monkeypatch, tmp_path):
    monkeypatch.setenv("ICLR25_SHARED", str(tmp_path))  # no shared folder
    assert load_blr("cancer").dim == 31
    with pytest.raises(UserError, match="15-underdamped-bridges"):
        load_blr("ionosphere")


# ---- metrics -------------------------------------------------------------------------------------

def test_metrics_on_known_weights():
    lw = np.log([1.0, 1.0, 2.0, 4.0])
    assert log_z_hat(lw)[0] == pytest.approx(math.log(2.0))
    assert ess(lw) == pytest.approx(64 / (4 * 22))
    assert elbo(lw)[0] == pytest.approx(np.mean(lw))
    assert elbo([0.0, float("nan")])[0] == -math.inf  # a failed sample sinks the ELBO


def test_sinkhorn_is_zero_for_identical_samples_and_grows_with_a_shift():
    x = np.random.default_rng(0).normal(size=(300, 2))
    assert abs(sinkhorn(x, x)) < 1e-6
    assert sinkhorn(x, x + 1.0) > sinkhorn(x, x + 0.3) > 0.01


# ---- bad input -----------------------------------------------------------------------------------

def test_non_binary_labels_are_refused_with_the_values():
    with pytest.raises(UserError, match="binary"):
        bayesian_logreg(np.zeros((3, 2)), [0, 1, 2])


def test_bad_logistic_data_is_refused():
    with pytest.raises(UserError, match="non-finite"):
        bayesian_logreg(np.array([[1.0, np.nan]]), [1])
    with pytest.raises(UserError, match="3 rows but y has 2"):
        bayesian_logreg(np.zeros((3, 2)), [0, 1])


def test_non_finite_log_prob_at_the_prior_is_refused():
    with pytest.raises(UserError, match="not finite"):
        from_log_prob(lambda x: torch.log(x[:, 0]), 2)  # log of negative draws -> NaN


def test_wrong_dimension_is_refused():
    w = torch.ones(5, dtype=torch.float32)
    with pytest.raises(UserError, match="dimension 10"):
        from_log_prob(lambda x: -(x @ w), 10)
    with pytest.raises(UserError, match="must map"):
        from_log_prob(lambda x: -(x ** 2), 3)  # forgot the sum over the last axis
    with pytest.raises(UserError, match="dimension must be >= 1"):
        from_log_prob(lambda x: -(x ** 2).sum(-1), 0)


# ---- mode coverage and distances to reference samples (issue #52) ----------------------------------

def test_mmd_is_zero_for_one_law_and_sees_a_dropped_mode():
    from iclr25.underdamped_bridges import mmd
    rng = np.random.default_rng(1)
    both = np.concatenate([rng.normal(-4, 1, (500, 1)), rng.normal(4, 1, (500, 1))])
    again = np.concatenate([rng.normal(-4, 1, (500, 1)), rng.normal(4, 1, (500, 1))])
    one = rng.normal(4, 1, (1000, 1))  # the left mode dropped
    assert abs(mmd(both, again)) < 0.01 and mmd(both, one) > 0.2
    assert mmd(both, np.full((10, 1), np.nan)) == math.inf


def test_student_t_mixture_is_normalised_and_samples_its_own_law():
    from iclr25.underdamped_bridges import student_t_mixture
    t = student_t_mixture(3, 1, df=2.0, seed=0)
    grid = torch.linspace(-400, 400, 800_001, dtype=torch.float64)[:, None]
    mass = float(torch.exp(t.log_prob(grid)).sum() * (grid[1, 0] - grid[0, 0]))
    assert mass == pytest.approx(1.0, abs=5e-3)  # heavy tails: the grid misses ~1e-3 beyond ±400
    x = t.sample(4000, torch.Generator().manual_seed(0))
    assert emc(t.modes(x).numpy(), t.n_modes) > 0.95  # exact samples cover every component
    g = torch.randn(5, 1, dtype=torch.float64, requires_grad=True)
    (auto,) = torch.autograd.grad(t.log_prob(g).sum(), g)
    assert torch.allclose(t.score(g.detach()), auto)


def test_many_well_modes_cover_its_32_wells_for_exact_samples():
    t = ManyWell()
    x = t.sample(4000, torch.Generator().manual_seed(0))
    assert t.n_modes == 32 and emc(t.modes(x).numpy(), 32) > 0.97
    assert emc(t.modes(x.abs()).numpy(), 32) == 0.0  # every sample in the all-positive well


def test_evaluate_against_the_users_reference_samples_and_cli(tmp_path, capsys):
    import pandas as pd

    from iclr25.core.cli import main
    from iclr25.underdamped_bridges import Sampler
    s = Sampler(ManyWell(dim=6, m=2), method="ula", num_steps=4, seed=0)
    ref = ManyWell(dim=6, m=2).sample(300, torch.Generator().manual_seed(1)).numpy()
    m = s.evaluate(200, seed=0, reference=ref)
    assert {"mmd", "sinkhorn", "emc"} <= set(m) and 0 <= m["emc"] <= 1
    with pytest.raises(UserError, match="reference samples must be"):
        s.evaluate(200, reference=ref[:, :3])
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "underdamped_bridges", "fit", "--target", "many_well", "--method", "ula",
              "--sde-steps", "2", "--steps", "2", "--batch-size", "8", "--no-tune-dt", "--no-plots",
              "-o", str(run)])
    assert e.value.code == 0
    ref50 = ManyWell().sample(200, torch.Generator().manual_seed(2)).numpy()
    pd.DataFrame(ref50, columns=[f"x{i}" for i in range(50)]).to_csv(tmp_path / "ref.csv", index=False)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "underdamped_bridges", "eval", str(run), "--n", "100", "--reference",
              str(tmp_path / "ref.csv")])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "MMD" in out and "EMC" in out and "(1 = every mode)" in out
    pd.DataFrame({"a": [1.0, 2.0]}).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "underdamped_bridges", "eval", str(run), "--reference", str(tmp_path / "bad.csv")])
    assert e.value.code == 2 and "expected a CSV with columns x0..x49" in capsys.readouterr().err
