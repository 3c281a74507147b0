"""Every docstring example in the package (core and every implemented paper) runs and prints what it
says: one test per module, so each paper's examples are checked the same way."""

import doctest
import importlib
import pkgutil

import pytest

import iclr25

MODULES = sorted(m.name for m in pkgutil.walk_packages(iclr25.__path__, "iclr25."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} failing example(s) in {name}"
