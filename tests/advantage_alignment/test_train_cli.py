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
    (("--batch-size", "0"), "iclr25: error: Invalid value for '--batch-size'"),
    (("--env", "coin", "--algo", "lola"), "iclr25: error: algo 'lola' is exact LOLA on the ipd"),
])
def test_cli_bad_input_exits_2_with_one_line(iclr25_cli, args, message):
    code, _, err = iclr25_cli(AA, "train", *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message)


# ---- issue #48: a run that learned nothing says so; a baseline beside every result ---------------

def test_cli_train_prints_the_random_baseline_and_warns_when_the_policy_never_moved(iclr25_cli):
    code, out, err = iclr25_cli(AA, "train", "--steps", "3", "--batch-size", "8")
    assert code == 0, err
    assert "uniform random play (baseline)" in out
    assert "the policy never moved: the first 100 iterations train only the critic" in out
    assert "│ 0.50       │ 0.50    │ 0.50    │ 0.50    │ 0.50    │" in out  # what the user saw, explained


def test_cli_train_after_the_warmup_gives_no_never_moved_warning(iclr25_cli):
    code, out, err = iclr25_cli(AA, "train", "--steps", "3", "--batch-size", "8", "--critic-warmup", "1")
    assert code == 0, err
    assert "never moved" not in out


def test_old_flag_spellings_still_work_and_are_hidden(iclr25_cli):
    code, out, err = iclr25_cli(AA, "train", "--iters", "2", "--batch", "4", "--T", "3")
    assert code == 0, err
    assert "2 iterations x 4 episodes, T=3" in out
    code, out, _ = iclr25_cli(AA, "train", "--help")
    assert "--steps" in out and "--batch-size" in out and "--horizon" in out
    assert "--iters" not in out and "--save" not in out
    code, _, err = iclr25_cli(AA, "train", "--steps", "2", "--iters", "2")
    assert code == 2 and "--steps and --iters are the same option" in err


# ---- issue #52: the official configuration from the CLI --------------------------------------------

def test_cli_exposes_the_learner_configuration_and_a_gru_policy(iclr25_cli, tmp_path):
    code, out, err = iclr25_cli(AA, "train", "--env", "negotiation", "--algo", "adap", "--steps", "2",
                                "--batch-size", "4", "--horizon", "3", "--policy", "gru", "--hidden", "8",
                                "--actor-lr", "5e-4", "--critic-lr", "1e-3", "--gamma", "0.96",
                                "--entropy", "0.005", "--beta", "0.3", "-o", str(tmp_path / "g"),
                                "--plot", str(tmp_path / "curves.png"))
    assert code == 0, err
    assert "gru policy" in out and "welfare_per_round" in out
    assert (tmp_path / "curves.png").stat().st_size > 1000
    from iclr25.advantage_alignment.gru import GRUPolicy
    from iclr25.advantage_alignment.league import load_agent
    learner, _ = load_agent(tmp_path / "g" / "agent0.pt")
    assert isinstance(learner.policy, GRUPolicy) and learner.policy.gru.hidden_size == 8
    assert learner.config.actor_lr == 5e-4 and learner.config.entropy == 0.005 and learner.config.beta == 0.3


def test_gru_ipd_policy_table_is_measured_on_episodes(iclr25_cli):
    code, out, err = iclr25_cli(AA, "train", "--steps", "2", "--batch-size", "4", "--policy", "gru",
                                "--hidden", "4", "--critic-warmup", "0")
    assert code == 0, err
    assert "measured on" in out and "fresh episodes" in out and "P(C|CD)" in out


@pytest.mark.parametrize(("args", "message"), [
    (("--policy", "lstm"), "unknown policy 'lstm'; choose from auto, tabular, mlp, gru"),
    (("--env", "coin", "--policy", "tabular"), "the tabular policy exists for the ipd only"),
    (("--gamma", "1.5"), "--gamma must be a finite number in (0, 1]"),
    (("--past", "sum"), "unknown --past 'sum'; choose from discounted, mean"),
])
def test_cli_configuration_bad_input(iclr25_cli, args, message):
    code, _, err = iclr25_cli(AA, "train", *args)
    assert code == 2 and err.strip().splitlines()[-1].endswith(message) or message in err


def test_empirical_table_equals_the_tabular_policy_for_a_tabular_learner():
    from iclr25.advantage_alignment.train import empirical_policy_table
    res = train("ipd", "naive", iters=2, batch=8, T=8)
    exact = ipd_policy_table(res.learner)
    seen = empirical_policy_table(res.env, res.agents, 0, batch=4096)
    assert all(abs(exact[s] - seen[s]) < 0.05 for s in exact)


# ---- issue #48: league rows and columns carry the same labels --------------------------------------

def test_league_labels_tell_same_named_files_apart(iclr25_cli, tmp_path):
    for run in ("aa", "pg"):
        code, _, err = iclr25_cli(AA, "train", "--steps", "1", "--batch-size", "4", "-o", str(tmp_path / run))
        assert code == 0, err
    code, out, err = iclr25_cli(AA, "league", str(tmp_path / "aa" / "agent0.pt"),
                                str(tmp_path / "pg" / "agent0.pt"), "--batch-size", "8")
    assert code == 0, err
    head = next(line for line in out.splitlines() if "┃ row agent" in line)
    assert "aa/agent0" in head and "pg/agent0" in head and "always-defect" in head
    assert sum(line.lstrip("│ ").startswith(("aa/agent0", "pg/agent0")) for line in out.splitlines()) == 2
