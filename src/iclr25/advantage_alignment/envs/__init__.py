"""Vectorised two-player games: iterated prisoner's dilemma, Coin Game, Negotiation game."""

from __future__ import annotations

from iclr25.advantage_alignment.envs.base import MarkovGame, Step
from iclr25.advantage_alignment.envs.coin_game import CoinGame
from iclr25.advantage_alignment.envs.ipd import IPD
from iclr25.advantage_alignment.envs.negotiation import NegotiationGame
from iclr25.core.errors import UserError

ENVS = {"ipd": IPD, "coin": CoinGame, "negotiation": NegotiationGame}


def make_env(name: str, T: int | None = None) -> MarkovGame:
    """`make_env("ipd", T=16)`; T defaults to the paper's episode length for that game."""
    if name not in ENVS:
        raise UserError(f"unknown env {name!r}; choose from {', '.join(ENVS)}")
    return ENVS[name]() if T is None else ENVS[name](T=T)


__all__ = ["ENVS", "IPD", "CoinGame", "MarkovGame", "NegotiationGame", "Step", "make_env"]
