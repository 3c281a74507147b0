"""Paper packages are lazy (core.lazy): importing a paper's CLI loads no heavy library, and every exported
name still resolves, PAPER included."""

import importlib
import subprocess
import sys

import pytest

from iclr25.core import registry
from iclr25.core.lazy import lazy_package

SLUGS = [p.slug for p in registry.PAPERS if p.implemented]
HEAVY = ("torch", "sklearn", "scipy", "pandas", "matplotlib")


def test_paper_clis_import_no_heavy_library():
    """`iclr25 <slug> --help` imports the package and its cli module, nothing heavier."""
    code = ("import sys\n" + "".join(f"import iclr25.{s}.cli\n" for s in SLUGS)
            + f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("slug", SLUGS)
def test_every_exported_name_resolves(slug):
    pkg = importlib.import_module(f"iclr25.{slug}")
    assert sorted(dir(pkg)) == sorted(pkg.__all__)
    assert [n for n in pkg.__all__ if getattr(pkg, n, None) is None] == []
    assert pkg.PAPER.slug == slug and pkg.PAPER.claims == tuple(pkg.CLAIMS)


def test_lazy_package_semantics():
    getattr_, dir_, all_ = lazy_package("iclr25.core", {"errors": ["UserError"]})
    from iclr25.core.errors import UserError
    assert all_ == ["PAPER", "UserError"] and dir_() == all_
    assert getattr_("UserError") is UserError
    assert getattr_("stats") is importlib.import_module("iclr25.core.stats")  # submodules stay reachable
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        getattr_("nope")
