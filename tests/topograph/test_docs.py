"""The docstring examples of the public modules run and give what they say."""

import doctest
import importlib

import pytest

MODULES = ["checks", "graph", "metrics", "losses", "ph", "data", "unet", "bench", "__init__"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module("iclr25.topograph" + ("" if name == "__init__" else f".{name}"))
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0 or name == "checks"
