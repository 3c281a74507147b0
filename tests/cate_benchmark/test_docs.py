"""The docstring examples and the README's "score your own model" example run and say what they claim."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

import iclr25.cate_benchmark as pkg

MODULES = ["q_hat", "sampling", "learners", "datasets", "benchmark", "summaries", "__init__"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = pkg if name == "__init__" else importlib.import_module(f"iclr25.cate_benchmark.{name}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_readme_example_scores_a_trial(capsys):
    text = (Path(pkg.__file__).parent / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Q̂ = -" in out and "degenerate: False" in out
