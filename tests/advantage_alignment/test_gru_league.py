"""GRU policies (the paper's IPD setting), LOLA-DiCE through a GRU, saved agents and the league."""

import pytest
import torch

from iclr25.advantage_alignment.envs import make_env
from iclr25.advantage_alignment.gru import GRUPolicy, gru_learner, lola_dice_update_gru
from iclr25.advantage_alignment.league import league, load_agent, save_agent
from iclr25.advantage_alignment.rollout import rollout
from iclr25.advantage_alignment.train import default_config, make_learner, train
from iclr25.core.errors import UserError

AA = "advantage_alignment"


def test_gru_step_by_step_equals_the_whole_sequence():
    torch.manual_seed(0)
    pol = GRUPolicy(4, (2,), hidden=8)
    obs = torch.randn(3, 5, 4)
    whole = pol.logits(obs)[0]
    h, steps = None, []
    for t in range(5):
        lg, h = pol.step(obs[:, t], h)
        steps.append(lg[0])
    assert torch.allclose(torch.stack(steps, 1), whole, atol=1e-6)


def test_recurrent_learner_plays_and_updates():
    env = make_env("ipd", 4)
    cfg = default_config("ipd", "adalign", critic_warmup=0, actor_lr=1e-2, critic_lr=1e-2)
    a, b = gru_learner(env, cfg, 0, hidden=8), gru_learner(env, cfg, 1, hidden=8)
    before = [p.clone() for p in a.policy.parameters()]
    batch = rollout(env, (a, b), 16, torch.Generator().manual_seed(0))
    a.update(batch)
    assert batch.actions[0].shape == (16, 4)
    assert any(not torch.equal(x, y) for x, y in zip(before, a.policy.parameters(), strict=True))


def test_lola_dice_through_a_gru_moves_both_players():
    env = make_env("ipd", 4)
    torch.manual_seed(0)
    pols = (GRUPolicy(4, (2,), 8), GRUPolicy(4, (2,), 8))
    opts = tuple(torch.optim.SGD(p.parameters(), lr=0.1) for p in pols)
    before = [[q.clone() for q in p.parameters()] for p in pols]
    lola_dice_update_gru(env, pols, opts, 16, torch.Generator().manual_seed(0))
    for old, p in zip(before, pols, strict=True):
        assert any(not torch.equal(x, y) for x, y in zip(old, p.parameters(), strict=True))


def test_saved_agent_plays_exactly_like_the_original(tmp_path):
    res = train("ipd", "adalign", iters=3, batch=8, T=5, seed=1)
    path = save_agent(res.learner, res.env, tmp_path / "a.pt")
    loaded, env = load_agent(path)
    assert (env.name, env.T) == ("ipd", 5)
    assert torch.equal(loaded.policy.theta, res.learner.policy.theta)
    assert loaded.config == res.learner.config


def test_league_of_fixed_strategies_has_the_ipd_payoffs():
    env = make_env("ipd", 4)
    from iclr25.advantage_alignment.agents import FixedAgent
    t = league({"tft": FixedAgent(env, "tit_for_tat")}, env, ("cooperate", "defect"), batch=4)
    assert t["tft"]["cooperate"] == -1.0
    assert t["tft"]["defect"] == pytest.approx((-3 - 2 * 3) / 4)  # sucker once, then mutual defection
    assert t["tft"]["tft"] == -1.0


def test_load_agent_refuses_foreign_files(tmp_path):
    (tmp_path / "x.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(UserError, match="is not a saved agent"):
        load_agent(tmp_path / "x.pt")
    torch.save({"format": "other"}, tmp_path / "y.pt")
    with pytest.raises(UserError, match="expected format"):
        load_agent(tmp_path / "y.pt")
    env = make_env("coin")
    good = save_agent(make_learner(env, default_config("coin", "adalign"), 0), env, tmp_path / "c.pt")
    state = torch.load(good, weights_only=True)
    state["env"] = "ipd"  # coin weights under an ipd label
    torch.save(state, tmp_path / "bad.pt")
    with pytest.raises(UserError, match="weights do not fit"):
        load_agent(tmp_path / "bad.pt")


def test_cli_train_save_then_league(tmp_path, iclr25_cli):
    code, _, err = iclr25_cli(AA, "train", "--iters", "2", "--batch", "4", "--save", str(tmp_path / "ag"))
    assert code == 0, err
    code, out, err = iclr25_cli(AA, "league", str(tmp_path / "ag" / "agent0.pt"),
                          str(tmp_path / "ag" / "agent1.pt"), "--batch", "8")
    assert code == 0, err
    assert "tit-for-tat" in out and "always-defect" in out and "agent1" in out


def test_cli_league_refuses_mixed_games_in_one_line(tmp_path, iclr25_cli):
    for env in ("ipd", "negotiation"):
        g = make_env(env)
        save_agent(make_learner(g, default_config(env, "adalign"), 0), g, tmp_path / f"{env}.pt")
    code, _, err = iclr25_cli(AA, "league", str(tmp_path / "ipd.pt"), str(tmp_path / "negotiation.pt"))
    assert code == 2 and "different games" in err and len(err.strip().splitlines()) == 1
