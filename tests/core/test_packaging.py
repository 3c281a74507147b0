"""Install what you use (issue #50): every third-party module a paper imports comes from its extra (or the
core requirements), and `pip install "iclr25[softmatcha]"` gives a working SoftMatcha without torch."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import pytest

from iclr25.core import extras, registry

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "iclr25"
CORE_DEPS = {"numpy", "typer", "rich", "jinja2", "fastapi", "uvicorn", "threadpoolctl", "starlette", "click"}


def _imports(files: list[Path], module_level: bool = False) -> dict[str, set[str]]:
    """Top-level third-party module -> the files importing it (anywhere in the file, or at module level)."""
    std = set(sys.stdlib_module_names)
    out: dict[str, set[str]] = {}
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in (tree.body if module_level else ast.walk(tree)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for n in names:
                top = n.split(".")[0]
                if top not in std and top != "iclr25":
                    out.setdefault(top, set()).add(f.name)
    return out


@lru_cache(maxsize=1)
def _module_dists() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _dists(module: str) -> set[str]:
    return {_norm(d) for d in _module_dists().get(module, [module])}


def _allowed(extra: str) -> set[str]:
    return {_norm(d) for d in extras.distributions(extra)} | CORE_DEPS


@pytest.mark.parametrize("slug", [p.slug for p in registry.PAPERS])
def test_a_paper_imports_only_what_its_extra_installs(slug):
    allowed = _allowed(slug)
    bad = {}
    for module, files in _imports(list((SRC / slug).rglob("*.py"))).items():
        ok = _dists(module) & (allowed | _allowed(extras.OPTIONAL.get(module, slug)))
        if not ok:
            bad[module] = sorted(files)
    assert not bad, f"{slug} imports modules its extra does not install: {bad} (add them to its extra)"


def test_core_imports_only_the_core_requirements():
    """At import, the core (its models aside) needs only the core requirements; inside functions it may use
    what the papers that call it install (models, plots, sci) or an optional extra (extras.OPTIONAL)."""
    core = [f for f in (SRC / "core").rglob("*.py") if "models" not in f.relative_to(SRC / "core").parts]
    for module, files in _imports(core, module_level=True).items():
        assert _dists(module) & CORE_DEPS, f"{sorted(files)} import {module} at module level"
    anywhere = _allowed("models") | _allowed("plots") | _allowed("sci")
    for module, files in _imports(list((SRC / "core").rglob("*.py"))).items():
        assert _dists(module) & (anywhere | _allowed(extras.OPTIONAL.get(module, "models"))), (module, files)


def test_core_requirements_are_ranges_and_torch_is_exact():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if "==" in d]
    optional = [d for ds in project["optional-dependencies"].values() for d in ds]
    assert "torch==2.13.0" in optional and not [d for d in optional if d.startswith("torch") and "==" not in d
                                                  and not d.startswith(("torch-", "torch_"))]
    pinned = (ROOT / "constraints.txt").read_text()
    assert "numpy==" in pinned and "torch==2.13.0" in pinned


@pytest.mark.slow
def test_lean_softmatcha_install_has_no_torch(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    env = {**os.environ, "PIP_NO_INPUT": "1"}
    done = subprocess.run([*pip, "-c", str(ROOT / "constraints.txt"), f"{ROOT}[softmatcha]"], env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    py, iclr25 = venv / "bin" / "python", venv / "bin" / "iclr25"
    for heavy in ("torch", "scipy", "sklearn"):
        assert subprocess.run([py, "-c", f"import {heavy}"], capture_output=True).returncode != 0, heavy
    corpus = tmp_path / "c.txt"
    corpus.write_text("In the beginning God created the heaven and the earth.\n"
                      "And God said, Let there be light: and there was light.\n")
    grep = subprocess.run([iclr25, "softmatcha", "grep", "light", str(corpus)], capture_output=True,
                          text=True)
    assert grep.returncode == 0 and "there was light" in grep.stdout
    idx = subprocess.run([iclr25, "softmatcha", "index", str(corpus), "-o", str(tmp_path / "idx")],
                         capture_output=True, text=True)
    assert idx.returncode == 0, idx.stderr
    hits = subprocess.run([iclr25, "softmatcha", "search", str(tmp_path / "idx"), "the earth"],
                          capture_output=True, text=True)
    assert hits.returncode == 0 and "the heaven and the earth" in hits.stdout
    papers = subprocess.run([iclr25, "papers"], capture_output=True, text=True).stdout
    rows = {line.split("\t")[1]: line.split("\t")[2] for line in papers.splitlines()}
    assert rows["softmatcha"] == "installed" and rows["hive"] == "pip install 'iclr25[hive]'"
    missing = subprocess.run([iclr25, "advantage_alignment", "train"], capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1, missing.stderr
    assert "pip install 'iclr25[advantage_alignment]'" in missing.stderr
    run = subprocess.run([iclr25, "reproduce", "advantage_alignment", "--profile", "smoke", "--out",
                          str(tmp_path / "r")], capture_output=True, text=True)
    assert run.returncode == 1 and "pip install 'iclr25[advantage_alignment]'" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
