"""The Coin Game (LOQA/POLA version): 3x3 torus, two agents, one coin whose colour alternates."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr25.advantage_alignment.envs.base import Obs, Step
from iclr25.core.errors import UserError

MOVES = torch.tensor([[0, 1], [0, -1], [1, 0], [-1, 0]])  # right, left, down, up (row, col)
OWNER_PENALTY = -2.0  # the owner's reward when any other agent picks up its coin


@dataclass
class CoinGame:
    """Every agent landing on the coin gets +1; if a non-owner took it, the owner gets -2.
    The coin respawns only after a pickup, never on an agent, and its colour (owner) flips.

    Observation per seat: 4 planes of the grid (me, other, my coin, other's coin), flattened.

    >>> env = CoinGame(); g = torch.Generator().manual_seed(0); o1, o2 = env.reset(5, g)
    >>> tuple(o1.shape), bool((o1[:, :9].sum(-1) == 1).all())
    ((5, 36), True)
    """

    T: int = 50
    grid: int = 3
    gamma: float = 0.96
    name: str = "coin"
    action_dims: tuple[int, ...] = (4,)

    def __post_init__(self) -> None:
        if self.T < 1 or self.grid < 2:
            raise UserError(f"coin game needs T >= 1 and grid >= 2, got T={self.T}, grid={self.grid}")
        self.obs_dim = 4 * self.grid * self.grid

    # state: pos (B, 2, 2) agents x (row, col); coin (B, 2); owner (B,) in {0, 1}
    def reset(self, batch: int, gen: torch.Generator) -> Obs:
        self.pos = torch.randint(0, self.grid, (batch, 2, 2), generator=gen)
        self.owner = torch.randint(0, 2, (batch,), generator=gen)
        everywhere = torch.ones(batch, dtype=torch.bool)
        self.coin = self._spawn_coin(everywhere, torch.zeros(batch, 2, dtype=torch.long), gen)
        return self._obs()

    def set_state(self, pos: torch.Tensor, coin: torch.Tensor, owner: torch.Tensor) -> Obs:
        """Place agents and coin by hand (tests, demos)."""
        self.pos, self.coin, self.owner = pos.clone(), coin.clone(), owner.clone()
        return self._obs()

    def _cell(self, rc: torch.Tensor) -> torch.Tensor:
        return rc[..., 0] * self.grid + rc[..., 1]

    def _spawn_coin(self, where: torch.Tensor, old: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        """A uniform free cell (not under an agent) for rows in `where`; keep `old` elsewhere."""
        b, n = where.shape[0], self.grid * self.grid
        free = torch.ones(b, n)
        free.scatter_(1, self._cell(self.pos), 0.0)
        cell = torch.multinomial(free, 1, generator=gen).squeeze(1)
        new = torch.stack([cell // self.grid, cell % self.grid], -1)
        return torch.where(where[:, None], new, old)

    def _obs(self) -> Obs:
        b, n = self.pos.shape[0], self.grid * self.grid
        ar = torch.arange(b)

        def plane(cell: torch.Tensor, on: torch.Tensor | None = None) -> torch.Tensor:
            p = torch.zeros(b, n)
            p[ar, cell] = 1.0 if on is None else on.float()
            return p

        c0, c1, cc = self._cell(self.pos[:, 0]), self._cell(self.pos[:, 1]), self._cell(self.coin)
        red, blue = plane(cc, self.owner == 0), plane(cc, self.owner == 1)
        o1 = torch.cat([plane(c0), plane(c1), red, blue], -1)
        o2 = torch.cat([plane(c1), plane(c0), blue, red], -1)
        return o1, o2

    def step(self, a1: torch.Tensor, a2: torch.Tensor, gen: torch.Generator) -> Step:
        moves = torch.stack([MOVES[a1], MOVES[a2]], 1)  # (B, 2, 2)
        self.pos = (self.pos + moves) % self.grid
        got = (self.pos == self.coin[:, None, :]).all(-1)  # (B, 2) which agent is on the coin
        is_owner = torch.stack([self.owner == 0, self.owner == 1], -1)
        rewards = got.float()
        stolen = (got & ~is_owner).any(-1)  # a non-owner picked it up
        rewards = rewards + OWNER_PENALTY * (stolen[:, None] & is_owner).float()
        picked = got.any(-1)
        info = {"own_coins": (got & is_owner).sum(-1).float(), "coins": got.sum(-1).float()}
        self.owner = torch.where(picked, 1 - self.owner, self.owner)
        self.coin = self._spawn_coin(picked, self.coin, gen)
        return Step(self._obs(), (rewards[:, 0], rewards[:, 1]), info)

    def fixed_action(self, kind: str, obs: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        """"cooperate" (AC) chases only its own coin, "defect" (AD) every coin, "random" moves at random."""
        b, n = obs.shape[0], self.grid * self.grid
        rand = torch.randint(0, 4, (b,), generator=gen)
        if kind == "random":
            return rand
        if kind not in ("cooperate", "defect"):
            raise UserError(f"unknown fixed strategy {kind!r} for coin; "
                            "choose from cooperate, defect, random")
        me = obs[:, :n].argmax(-1)
        mine, theirs = obs[:, 2 * n:3 * n], obs[:, 3 * n:]
        has_mine = mine.sum(-1) > 0
        coin = (mine + theirs).argmax(-1)
        toward = self._toward(me, coin)
        if kind == "defect":
            return toward
        # AC: chase its own coin; otherwise move at random but never onto the other's coin
        dest = self._cell((torch.stack([me // self.grid, me % self.grid], -1) + MOVES[rand]) % self.grid)
        avoid = torch.where(dest == coin, (rand + 2) % 4, rand)  # (+2) % 4 flips the axis
        return torch.where(has_mine, toward, avoid)

    def _toward(self, src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
        """A shortest torus move from cell src to cell dst (rows first)."""
        g = self.grid
        dr, dc = (dst // g - src // g) % g, (dst % g - src % g) % g
        row_move = torch.where(dr <= g // 2, torch.full_like(dr, 2), torch.full_like(dr, 3))
        col_move = torch.where(dc <= g // 2, torch.full_like(dc, 0), torch.full_like(dc, 1))
        return torch.where(dr != 0, row_move, col_move)
