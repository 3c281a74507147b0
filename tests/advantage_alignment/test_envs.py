"""Game rules: IPD payoffs and observations, Coin Game dynamics, Negotiation splits, fixed agents."""

import pytest
import torch

from iclr25.advantage_alignment import IPD, CoinGame, FixedAgent, NegotiationGame, make_env, rollout
from iclr25.advantage_alignment.envs.ipd import state_index
from iclr25.core.errors import UserError

G = torch.Generator().manual_seed(0)


@pytest.mark.parametrize(("a1", "a2", "r1", "r2"), [(0, 0, -1, -1), (0, 1, -3, 0), (1, 0, 0, -3),
                                                    (1, 1, -2, -2)])
def test_ipd_payoffs(a1, a2, r1, r2):
    env = IPD()
    env.reset(1, G)
    s = env.step(torch.tensor([a1]), torch.tensor([a2]), G)
    assert (s.rewards[0].item(), s.rewards[1].item()) == (r1, r2)


def test_ipd_observation_is_the_last_joint_action_from_each_seat():
    env = IPD()
    o1, o2 = env.reset(1, G)
    assert state_index(o1).item() == 0 and o1.abs().sum() == 0  # start: all zeros
    o1, o2 = env.step(torch.tensor([0]), torch.tensor([1]), G).obs
    assert o1.tolist() == [[1, 0, 0, 1]] and o2.tolist() == [[0, 1, 1, 0]]
    assert state_index(o1).item() == 2 and state_index(o2).item() == 3  # CD for me is DC for them


def test_ipd_fixed_strategies():
    env = IPD(T=5)
    b = rollout(env, (FixedAgent(env, "tit_for_tat"), FixedAgent(env, "defect")), 3, G)
    assert b.actions[0].tolist() == [[0, 1, 1, 1, 1]] * 3  # cooperate first, then copy
    assert b.reward_per_step() == (pytest.approx((-3 - 2 * 4) / 5), pytest.approx((0 - 2 * 4) / 5))


def _coin(pos, coin, owner):
    env = CoinGame(T=5)
    env.reset(1, G)
    env.set_state(torch.tensor([pos]), torch.tensor([coin]), torch.tensor([owner]))
    return env


RIGHT, LEFT, DOWN, UP = 0, 1, 2, 3


def test_coin_owner_picks_up_own_coin():
    env = _coin([[0, 0], [2, 2]], [0, 1], owner=0)
    s = env.step(torch.tensor([RIGHT]), torch.tensor([UP]), G)
    assert (s.rewards[0].item(), s.rewards[1].item()) == (1.0, 0.0)
    assert s.info["own_coins"].item() == 1 and s.info["coins"].item() == 1
    assert env.owner.item() == 1  # colour alternates after a pickup
    assert not (env.coin[:, None, :] == env.pos).all(-1).any()  # never respawns on an agent


def test_coin_stolen_costs_the_owner_two():
    env = _coin([[0, 0], [1, 0]], [0, 1], owner=1)  # agent 0 takes agent 1's coin
    s = env.step(torch.tensor([RIGHT]), torch.tensor([DOWN]), G)
    assert (s.rewards[0].item(), s.rewards[1].item()) == (1.0, -2.0)
    assert s.info["own_coins"].item() == 0


def test_coin_both_land_on_it():
    env = _coin([[0, 0], [0, 2]], [0, 1], owner=0)
    s = env.step(torch.tensor([RIGHT]), torch.tensor([LEFT]), G)  # both reach (0, 1); torus not needed
    assert (s.rewards[0].item(), s.rewards[1].item()) == (1.0 - 2.0, 1.0)


def test_coin_torus_wraps_and_coin_stays_without_pickup():
    env = _coin([[0, 0], [1, 1]], [2, 2], owner=0)
    s = env.step(torch.tensor([UP]), torch.tensor([LEFT]), G)
    assert env.pos.tolist() == [[[2, 0], [1, 0]]]
    assert env.coin.tolist() == [[2, 2]] and env.owner.item() == 0
    assert s.rewards[0].item() == 0 and s.rewards[1].item() == 0


def test_coin_observation_planes_are_swapped_per_seat():
    env = _coin([[0, 0], [1, 1]], [2, 2], owner=0)
    o1, o2 = env._obs()
    assert o1[0, :9].argmax() == 0 and o1[0, 9:18].argmax() == 4 and o1[0, 18 + 8] == 1  # my coin at (2,2)
    assert o2[0, :9].argmax() == 4 and o2[0, 27 + 8] == 1  # for seat 2 it is the other's coin


def test_coin_always_defect_chases_every_coin():
    env = _coin([[0, 0], [1, 1]], [0, 1], owner=1)
    o1, _ = env._obs()
    assert FixedAgent(env, "defect").act(o1, 0, G).item() == RIGHT
    assert FixedAgent(env, "cooperate").act(o1, 0, G).item() != RIGHT  # not its coin: never steps on it


def test_negotiation_benchmarks_per_round():
    env = NegotiationGame(T=20)
    ac, ad = FixedAgent(env, "cooperate"), FixedAgent(env, "defect")
    # both cooperative: each item goes to the one who values it 5 -> 15; both greedy: halves of 6 -> 9
    assert torch.allclose(rollout(env, (ac, ac), 8, G).info["welfare"], torch.tensor(15.0))
    assert torch.allclose(rollout(env, (ad, ad), 8, G).info["welfare"], torch.tensor(9.0))
    b = rollout(env, (ac, ad), 4000, G)
    assert b.reward_per_step()[0] == pytest.approx(3.75, abs=0.05)  # AC against AD


def test_negotiation_proportional_split():
    env = NegotiationGame(T=1)
    env.reset(1, G)
    env.u1, env.u2 = torch.tensor([[5.0, 1.0, 5.0]]), torch.tensor([[1.0, 5.0, 1.0]])
    s = env.step(torch.tensor([[3, 0, 0]]), torch.tensor([[1, 2, 0]]), G)
    # item 0: 3/4 of 5; item 1: 0 of 1; item 2: nobody proposed -> nobody gets it
    assert s.rewards[0].item() == pytest.approx(3.75) and s.rewards[1].item() == pytest.approx(0.25 + 5.0)


def test_bad_env_input():
    with pytest.raises(UserError, match="unknown env 'chess'; choose from ipd, coin, negotiation"):
        make_env("chess")
    with pytest.raises(UserError, match="tit_for_tat"):
        FixedAgent(make_env("coin"), "tit_for_tat")
    with pytest.raises(UserError, match="T must be positive"):
        IPD(T=0)
