"""Fixtures: a tiny RM-Bench folder (two domains, checksummed)."""

from __future__ import annotations

import pytest

from iclr25.core import data

from .helpers import make_items, write_folder


@pytest.fixture
def tiny_dir(tmp_path):
    return write_folder(tmp_path, {"chat": make_items(6, "chat"), "safety-refuse": make_items(4, "x", 100),
                                   "safety-response": make_items(3, "y", 200)})


@pytest.fixture
def rmbench_dir():
    """The shipped RM-Bench files, or skip with the reason."""
    path = data.shared_data("03-rm-bench")
    if path is None:
        pytest.skip("needs shared/data/03-rm-bench (the project's shared data folder), which is absent")
    return path
