"""The docstring examples of the public modules run and give the stated results."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["cav", "metrics", "synthetic", "activations"])
def test_docstring_examples(name):
    mod = importlib.import_module(f"iclr25.pattern_cav.{name}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
