"""Training entry points and the CLI: outputs, bad input (UserError, exit 2 with one line)."""


import pytest

from iclr25.advantage_alignment import evaluate, ipd_policy_table, train
from iclr25.core.errors import UserError

AA = "advantage_alignment"


def test_train_returns_histories_and_a_readable_ipd_policy():
    res = train("ipd", "adalign", iters=4, batch=16, T=5)
    assert len(res.history["reward_0"]) == 4
    table = ipd_policy_table(res.learner)
    assert list(table) == ["start", "CC", "CD", "DC", "DD"] and all(0 < p < 1 for p in table.values())


@pytest.mark.parametrize(("env", "algo", "key"), [("coin", "adalign", "own_coin_fraction"),
                                                  ("negotiation", "adap", "welfare_per_round")])
def test_train_runs_on_the_other_games(env, algo, key):
    res = train(env, algo, iters=2, batch=4, T=3)
    m = evaluate(res.env, res.agents, batch=8)
    assert key in m and m[key] == m[key]  # present and not NaN


def test_learning_against_a_fixed_opponent():
    res = train("ipd", "naive", "defect", iters=2, batch=4, T=3)
    assert res.agents[1].kind == "defect"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"env": "chess"}, "unknown env 'chess'; choose from ipd, coin, negotiation"),
    ({"algo": "dqn"}, "unknown algo 'dqn'; choose from adalign, adap, naive, ppo"),
    ({"opponent": "grim"}, "unknown opponent 'grim'"),
    ({"batch": 0}, "batch size must be positive, got 0"),
    ({"iters": -1}, "iters must be positive, got -1"),
])
def test_train_bad_input(kwargs, message):
    with pytest.raises(UserError, match=message):
        train(**kwargs)


def test_cli_train_ipd_prints_the_learned_policy(iclr25_cli):
    code, out, err = iclr25_cli(AA, "train", "--env", "ipd", "--algo", "adalign", "--iters", "3",
                                "--batch", "8")
    assert code == 0, err
    assert "P(C|CD)" in out and "reward_0" in out


def test_cli_exact_lola(iclr25_cli):
    code, out, err = iclr25_cli(AA, "train", "--env", "ipd", "--algo", "lola", "--iters", "2")
    assert code == 0, err
    assert "P(C|start)" in out


@pytest.mark.parametrize(("args", "message"), [
    (("--env", "go"), "iclr25: error: unknown env 'go'; choose from ipd, coin, negotiation"),
    (("--algo", "sac"), "iclr25: error: unknown algo 'sac'; choose from adalign, adap, naive, ppo, lola"),
    (("--batch", "0"), "iclr25: error: Invalid value for '--batch'"),
    (("--env", "coin", "--algo", "lola"), "iclr25: error: algo 'lola' is exact LOLA on the ipd"),
])
def test_cli_bad_input_exits_2_with_one_line(iclr25_cli, args, message):
    code, _, err = iclr25_cli(AA, "train", *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message)
