"""Alignment / AUC metrics, the 2-D toy's analytic filter direction, and the synthetic latent."""

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.pattern_cav import FilterConfig, alignment, compute_cav, concept_auc, cosine
from iclr25.pattern_cav.synthetic import LatentConfig, latent_data
from iclr25.pattern_cav.toy import analytic_filter_cos, toy_data, true_direction


def test_cosine_and_alignment_known_values():
    assert cosine([1, 0], [0, 3]) == 0.0
    assert np.isclose(cosine([1, 1], [2, 2]), 1.0)
    # differences (2, 0) and (1, 1): cos 1 and 1/sqrt(2)
    assert np.isclose(alignment([1, 0], [[2, 0], [1, 1]], [[0, 0], [0, 0]]), (1 + 2 ** -0.5) / 2)
    # precomputed differences, and zero differences are skipped
    assert np.isclose(alignment([0, 1], [[0, 2], [0, 0]]), 1.0)


def test_auc_is_one_for_perfect_separation_and_half_for_an_orthogonal_cav():
    a = np.array([[0.0, 5], [1, -5], [2, 5], [3, -5]])
    assert concept_auc([1, 0], a, [0, 0, 1, 1]) == 1.0
    assert concept_auc([0, 1], a, [0, 0, 1, 1]) == 0.5


def test_metric_bad_input():
    with pytest.raises(UserError, match="different lengths"):
        cosine([1, 0], [1, 0, 0])
    with pytest.raises(UserError, match="same shape"):
        alignment([1, 0], np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(UserError, match="3 dims"):
        alignment([1, 0, 0], np.ones((3, 2)), np.zeros((3, 2)))
    with pytest.raises(UserError, match="non-zero"):
        cosine([0, 0], [1, 0])


@pytest.mark.parametrize("angle,expected", [(0, 1.0), (30, 0.928), (45, 0.856), (60, 0.800), (90, 1.0)])
def test_analytic_filter_cos_matches_the_spec_values(angle, expected):
    assert abs(float(analytic_filter_cos(angle)) - expected) < 1e-3


def test_analytic_minimum_is_near_65_degrees():
    r = np.linspace(0, 90, 901)
    c = analytic_filter_cos(r)
    assert abs(r[np.argmin(c)] - 65) < 3 and abs(c.min() - 0.797) < 2e-3


def test_toy_pattern_stays_on_concept_and_ridge_follows_the_analytic_filter():
    a, t = toy_data(45.0, np.random.default_rng(0), )
    assert cosine(compute_cav(a, t), true_direction()) > 0.99
    ridge = cosine(compute_cav(a, t, "ridge", FilterConfig(grid=(1e-3,))), true_direction())
    assert abs(ridge - float(analytic_filter_cos(45.0))) < 0.04


def test_latent_pattern_recovers_h_and_filters_diverge():
    cfg = LatentConfig(dim=16, n=4000, n_distractors=2, distractor_strength=2.0, correlation=0.7, noise=0.3)
    a, t, h = latent_data(cfg, np.random.default_rng(0))
    assert a.shape == (4000, 16) and np.isclose(np.linalg.norm(h), 1)
    p = cosine(compute_cav(a, t), h)
    r = cosine(compute_cav(a, t, "ridge", FilterConfig(grid=(1e-3,))), h)
    assert p > 0.97 and r < p - 0.1


def test_auc_after_p_clarc_projection_is_exactly_a_half():
    """Issue #47: after P-ClArC every score along the CAV is m0 up to rounding; the AUC ranked that noise
    (0.45). Near-ties are ties now."""
    rng = np.random.default_rng(3)
    a, t = rng.normal(size=(200, 16)) * 7.3, np.repeat([0, 1], 100)
    a[t == 1] += 4 * rng.normal(size=16)
    v = compute_cav(a, t).vector
    m0 = float(np.mean(a[t == 0] @ v))
    projected = a + (m0 - a @ v)[:, None] * v / (v @ v)  # the P-ClArC map, in float64
    scores = projected @ v
    assert np.ptp(scores) > 0  # rounding noise is there ...
    assert concept_auc(v, projected, t) == 0.5  # ... and is not ranked
    assert concept_auc(v, a, t) > 0.9  # real differences still are


def test_auc_counts_exact_ties_one_half():
    a = np.array([[0.0], [1.0], [1.0], [2.0]])
    assert concept_auc([1.0], a, [0, 0, 1, 1]) == 0.875  # one tied pair of four
