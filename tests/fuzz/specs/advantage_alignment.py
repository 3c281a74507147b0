from __future__ import annotations

from ..spec import Spec

SPECS = [
    Spec("advantage_alignment train", {"env": "ipd", "steps": "2", "batch_size": "4", "out": "{tmp}/agents",
                                       "plot": "{tmp}/curves.png"}),
    Spec("advantage_alignment league", {"agents": ["{agent}", "{agent2}"], "batch_size": "16"}),
]


def valid(d):
    from iclr25.advantage_alignment.envs import make_env
    from iclr25.advantage_alignment.league import save_agent
    from iclr25.advantage_alignment.train import default_config, make_learner
    env = make_env("ipd")
    save_agent(make_learner(env, default_config("ipd", "adalign"), 0), env, d / "agent.pt")
    (d / "b").mkdir()
    save_agent(make_learner(env, default_config("ipd", "naive"), 1, "gru", 4), env, d / "b" / "agent.pt")
    return {"agent": str(d / "agent.pt"), "agent2": str(d / "b" / "agent.pt")}
