"""The README's own-model example runs as written."""

import re
from pathlib import Path

import iclr25.pattern_cav as pc


def test_readme_model_example_runs(capsys):
    text = (Path(pc.__file__).parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    example = next(b for b in blocks if "collect_activations(model" in b)
    exec(compile(example, "README.md", "exec"), {})
    lines = capsys.readouterr().out.split()
    assert len(lines) == 2 and all(-1.0 <= float(x) <= 1.0 for x in lines)
