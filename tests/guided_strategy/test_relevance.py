"""Task-relevance measurements: AUC, decoder sensitivity by relevance band, random-action rollouts."""

import numpy as np

from iclr25.guided_strategy.envs import PointLane
from iclr25.guided_strategy.relevance import auc, random_rollouts, sensitivity_ratio


def test_auc_extremes_and_ties():
    assert auc(np.array([2.0, 3.0]), np.array([0.0, 1.0])) == 1.0
    assert auc(np.array([0.0]), np.array([1.0])) == 0.0
    assert auc(np.array([1.0, 1.0]), np.array([1.0])) == 0.5
    assert np.isnan(auc(np.array([]), np.array([1.0])))


def test_sensitivity_ratio_skips_still_pairs_and_needs_both_bands():
    rho = np.array([[0.9, 0.1, 0.1]])
    assert sensitivity_ratio(rho, np.array([[1.0, 2.0]]), np.array([[4.0, 1.0]])) == 0.125
    assert sensitivity_ratio(rho, np.array([[1.0, 0.0]]), np.array([[4.0, 1.0]])) != 0.125  # NaN
    assert np.isnan(sensitivity_ratio(np.full((1, 3), 0.9), np.ones((1, 2)), np.ones((1, 2))))


def test_random_rollouts_stay_in_the_action_box():
    obs, act = random_rollouts(PointLane(), 6, seed=0)
    assert obs.shape == (6, 25, 2) and act.shape == (6, 25, 2)
    assert np.abs(act).max() <= 0.25 and act.std() > 0.1
