"""The README's "score your own model" example runs and says what it claims (docstring examples are run
for every module by tests/core/test_doctests.py)."""

from __future__ import annotations

import re
from pathlib import Path

import iclr25.cate_benchmark as pkg


def test_readme_example_scores_a_trial(capsys):
    text = (Path(pkg.__file__).parent / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Q̂ = -" in out and "degenerate: False" in out
