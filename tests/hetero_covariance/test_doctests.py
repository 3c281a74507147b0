"""The docstring examples of the public API run and print what they claim."""

import doctest
import importlib

import pytest

MODULES = ["linalg", "losses", "metrics", "model", "pseudo_labels", "data", "estimator"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(f"iclr25.hetero_covariance.{name}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
