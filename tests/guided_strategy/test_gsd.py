"""The GSD estimator: its methods' relations, the demo-code posterior, persistence, and input checks."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.guided_strategy import GSD, Demos, GSDConfig, PointLane, lane_demos

SMALL = {"hidden": (16, 16), "d_batch": 64, "ppo_epochs": 2, "ppo_minibatches": 2, "clip": 5.0,
         "gp_lambda": 0.01}


@pytest.fixture(scope="module")
def demos():
    d = lane_demos(per_level=2, seed=0)
    return Demos(d["observations"], d["actions"], d["rewards"], d["levels"])


def _params(model: GSD) -> list[torch.Tensor]:
    return [p.detach().clone() for net in (model.policy, model.value, model.disc, model.decoder)
            for p in net.parameters()]


def _fit(demos, method, lambda_c=None, iterations=2):
    return GSD(2, 2, method, lambda_c=lambda_c, seed=3, **SMALL).fit(demos.select([1, 3, 5]), PointLane(),
                                                                       iterations=iterations, n_envs=8,
                                                                       show_progress=False)


def test_gsd_with_infinite_lambda_c_is_infogail_m(demos):
    ref = _params(_fit(demos, "infogail_m"))
    loose = _params(_fit(demos, "gsd", lambda_c=1e6))
    tight = _params(_fit(demos, "gsd", lambda_c=1e-3))
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(ref, loose, strict=True))
    assert not all(torch.allclose(a, b, atol=1e-6) for a, b in zip(ref, tight, strict=True))


def test_the_methods_differ_only_where_the_paper_says(demos):
    ig, igm, sn = (GSD(2, 2, m, seed=0, **SMALL) for m in ("infogail", "infogail_m", "infogail_m_sn"))
    assert ig.disc.clip is None and igm.disc.clip == 5.0 and sn.disc.clip == 5.0
    assert sn.decoder.sn_scale == 1.0 and GSD(2, 2, "infogail_m_sn", lambda_c=0.2).decoder.sn_scale == 0.2
    sn.decoder.eval()
    for _ in range(5):  # power iterations converge
        sn.decoder.train()(torch.randn(4, 4))
    sn.decoder.eval()
    for layer in [*sn.decoder.body, sn.decoder.mean_head]:
        if isinstance(layer, torch.nn.Linear):
            assert torch.linalg.matrix_norm(layer.weight, ord=2) < 1.05


def test_infer_latent_is_the_precision_weighted_mean(demos, monkeypatch):
    model = GSD(2, 2, "gsd", seed=0, **SMALL)
    model._set_normalizer(demos, PointLane())
    mu = torch.tensor([[0.0, 0.0], [3.0, 3.0]]).repeat(5, 1)  # two steps per trajectory, 5 trajectories
    log_std = torch.log(torch.tensor([[1.0, 1.0], [0.5, 2.0]])).repeat(5, 1)
    monkeypatch.setattr(model.decoder, "forward", lambda sa: (mu[:len(sa)], log_std[:len(sa)]))
    z = model.infer_latent(demos.observations[:5, :2], demos.actions[:5, :2])
    # precisions 1 and 4 (dim 0), 1 and 1/4 (dim 1)
    assert np.allclose(z, [[3.0 * 4 / 5, 3.0 * 0.25 / 1.25]] * 5)


def test_save_load_round_trip(demos, tmp_path):
    model = _fit(demos, "gsd", iterations=1)
    model.save(tmp_path / "m.pt")
    back = GSD.load(tmp_path / "m.pt")
    obs, z = np.zeros((3, 2)), np.ones((3, 2))
    assert np.array_equal(model.act(obs, z), back.act(obs, z))
    assert np.allclose(model.infer_latent(demos.observations, demos.actions),
                       back.infer_latent(demos.observations, demos.actions))
    assert back.env_name_ == "point-lane" and back.config == model.config
    (tmp_path / "bad.pt").write_text("nope")
    with pytest.raises(UserError, match="cannot read model"):
        GSD.load(tmp_path / "bad.pt")


def test_rollout_and_act_use_the_env_units(demos):
    model = _fit(demos, "infogail", iterations=1)
    ro = model.rollout(PointLane(), np.zeros((4, 2)))
    assert ro["observations"].shape == (4, 25, 2) and np.abs(ro["actions"]).max() <= 0.25
    assert model.act(np.zeros(2), np.zeros(2)).shape == (1, 2)


def test_bad_input_is_refused():
    with pytest.raises(UserError, match="unknown method 'gail'"):
        GSD(2, 2, "gail")
    with pytest.raises(UserError, match="unknown GSD option 'lr'"):
        GSD(2, 2, lr=0.1)
    with pytest.raises(UserError, match="lambda_c must be > 0"):
        GSDConfig(lambda_c=0.0)
    model = GSD(3, 2, **SMALL)
    with pytest.raises(UserError, match="not fitted"):
        model.infer_latent(np.zeros((1, 4, 3)), np.zeros((1, 4, 2)))
    bad = Demos(np.zeros((2, 5, 2)), np.zeros((2, 5, 2)))
    with pytest.raises(UserError, match="observation dim 2, the model expects 3"):
        model.fit(bad, PointLane(), iterations=1)


def test_inference_inputs_are_checked(demos):
    model = GSD(2, 2, **SMALL)
    model._set_normalizer(demos, PointLane())
    with pytest.raises(UserError, match="expects \\(2, 2\\)"):
        model.infer_latent(np.zeros((1, 4, 3)), np.zeros((1, 4, 2)))
    with pytest.raises(UserError, match="NaN"):
        model.infer_latent(np.full((1, 4, 2), np.nan), np.zeros((1, 4, 2)))
    with pytest.raises(UserError, match="z must be"):
        model.act(np.zeros((2, 2)), np.zeros((2, 3)))
