"""The official layout: loading, prompts, uniform frame sampling (PyAV), the numbered grid, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.physbench import synth
from iclr25.physbench.harness import Item, frames, load, sample_indices, tile_grid
from iclr25.physbench.taxonomy import OFFICIAL_END_PROMPT


def test_uniform_indices_include_both_ends():
    assert list(sample_indices(16, 8)) == [0, 2, 4, 6, 9, 11, 13, 15]
    assert list(sample_indices(3, 8)) == [0, 1, 2]
    assert sample_indices(100, 2).tolist() == [0, 99]
    with pytest.raises(UserError):
        sample_indices(0, 8)


def test_prompt_and_options():
    it = Item(idx=1, question="<image>\nWhich is red?\nA. x\nB. y\nC. z\nD. w", file_name=["a.png"])
    assert it.prompt() == it.question + OFFICIAL_END_PROMPT
    assert it.options == {"A": "x", "B": "y", "C": "z", "D": "w"} and it.stem == "Which is red?"


def test_grid_is_two_by_two_of_frames():
    f = [np.full((10, 12, 3), k * 20, np.uint8) for k in range(8)]
    g = tile_grid(f)
    assert g.shape == (20, 24, 3)
    assert g[9, 11, 0] == 0 and g[19, 23, 0] == 140  # tiles are frames 0 and 7 (both ends)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    d = tmp_path_factory.mktemp("synth")
    s = synth.generate(15, seed=3)
    synth.write(s, d)
    return d, s


def test_written_layout_loads_and_mp4_decodes(written):
    d, s = written
    items = load(d, "val", "general")
    assert [it.idx for it in items] == [it.idx for it in s.items]
    video = next(it for it in items if it.mode == "image&video")
    fr = frames(video, n=8)
    mem = frames(next(it for it in s.items if it.idx == video.idx), n=8)
    assert len(fr) == 8 and fr[0].shape == (96, 96, 3)
    assert np.abs(fr[-1].astype(int) - mem[-1].astype(int)).mean() < 6  # lossy codec, same picture
    assert len(load(d, "val", "image-only")) < len(load(d, "val", "image&video")) < len(items)


def test_bad_roots_splits_modes(written, tmp_path):
    d, _ = written
    with pytest.raises(UserError, match="no test.json"):
        load(tmp_path)
    with pytest.raises(UserError, match="unknown split"):
        load(d, "train")
    with pytest.raises(UserError, match="unknown mode"):
        load(d, "val", "video")
    (tmp_path / "test.json").write_text(json.dumps([{"idx": 1, "question": "q", "file_name": []}] * 2))
    with pytest.raises(UserError, match="duplicate idx 1"):
        load(tmp_path)
