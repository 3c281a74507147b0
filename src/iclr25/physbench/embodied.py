"""Embodied transfer (the paper's MOKA experiment, as a pymunk proxy): three closed-loop tasks where a
robot picks 1 of 4 actions by asking a QA model about the scene it sees, then the action is executed in
pymunk and scored. stack: place a block so the tower stands; throw: put the catcher where the ball will
land; push: push a ball into a resting one and predict where both end up (the grasp point of the next
step)."""

from __future__ import annotations

import numpy as np

from iclr25.physbench.harness import Item
from iclr25.physbench.synth import make_item
from iclr25.physbench.synth import physics as ph
from iclr25.physbench.synth.scenes import BLOCK_H, TABLE_Y, _pick_colours, random_tower, tower_image
from iclr25.physbench.taxonomy import LETTERS

TASKS = ("stack", "throw", "push")


def stack_episode(rng: np.random.Generator, idx: int) -> tuple[Item, dict[str, bool]]:
    """A stable 2-block tower and a third block; 4 candidate placements (option images), one stable.
    Returns the question and, per letter, whether pymunk keeps the tower standing after that action."""
    base = random_tower(rng, "stays", n=2)
    cols = _pick_colours(rng, 3)
    stable, falling = [], []
    w = float(rng.uniform(12, 20))
    for x in rng.permutation(np.linspace(base[1][0] - 22, base[1][0] + 22, 23)):
        blocks = [*base, (float(x), w)]
        verdict = ph.tower_verdict(blocks)
        sim = ph.simulate_tower(blocks, TABLE_Y, BLOCK_H)[0]
        if verdict != sim:
            continue
        (stable if sim == "stays" else falling).append(blocks)
        if stable and len(falling) >= 3:
            break
    candidates = [stable[0], *falling[:3]]
    order = rng.permutation(4)
    options = [candidates[j] for j in order]
    media = [tower_image(base, cols[:2])] + [tower_image(b, cols) for b in options]
    question = (
        "<image>\nThe robot holds a block above this tower. Which placement keeps the tower standing?"
        + "".join(f"\n{k}. <image>" for k in LETTERS)
    )
    names = [f"stack_{idx}_{k}.png" for k in range(5)]
    item = Item(idx=idx, question=question, file_name=names, mode="general", media=media, source="simulation")
    outcome = {
        k: ph.simulate_tower(b, TABLE_Y, BLOCK_H)[0] == "stays" for k, b in zip(LETTERS, options, strict=True)
    }
    return item, outcome


def throw_episode(rng: np.random.Generator, idx: int) -> tuple[Item, dict[str, bool]]:
    """A ball in flight; the action is the zone the catcher goes to; success iff the simulated ball
    lands there."""
    seed = int(rng.integers(2**31))
    item, answer, truth = make_item(0, seed, "throwing", LETTERS[int(rng.integers(4))], "test", idx)
    zone_w = 22.0
    landed = int((truth["sim_landing_x"] - 4) // zone_w)  # the zone pymunk's ball reaches
    names = {k: t.split()[1] for k, t in item.options.items()}
    right = names[answer["answer"]]
    outcome = {k: (n == right) and landed == truth["zone_index"] for k, n in names.items()}
    return item, outcome


def push_episode(rng: np.random.Generator, idx: int) -> tuple[Item, dict[str, bool]]:
    """The robot pushes one ball into another; it acts on the predicted outcome (option image), and
    succeeds iff that image matches pymunk's final state to 2 px per ball."""
    seed = int(rng.integers(2**31))
    item, answer, truth = make_item(0, seed, "collision", LETTERS[int(rng.integers(4))], "test", idx)
    outcome = {k: k == answer["answer"] for k in LETTERS}
    return item, outcome


EPISODES = {"stack": stack_episode, "throw": throw_episode, "push": push_episode}


def run_task(task: str, model, episodes: int, seed: int) -> list[bool]:
    """Closed loop per episode: observe -> ask the model (`qa_item` for an agent, else `qa`) -> act ->
    simulate -> success."""
    from iclr25.physbench.harness import frames

    rng = np.random.default_rng([seed, TASKS.index(task), 99])
    out = []
    for e in range(episodes):
        item, outcome = EPISODES[task](rng, 900_000 + e)
        if hasattr(model, "qa_item"):
            letter = model.qa_item(item)
        else:
            letter = model.qa(frames(item), item.prompt(), item.mode)
        out.append(bool(outcome.get(letter[:1], False)))
    return out
