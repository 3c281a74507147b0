"""Every docstring example in the package runs and prints what it says."""

import doctest
import importlib

import pytest

MODULES = ["encoding", "statistics", "pvalues", "power", "lm", "distortions", "sampling"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(f"iclr25.model_equality.{name}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_package_example():
    import iclr25.model_equality as me
    result = doctest.testmod(me)
    assert result.attempted > 0 and result.failed == 0
