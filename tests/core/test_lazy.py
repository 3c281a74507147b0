"""Paper packages are lazy (core.lazy): importing a paper's CLI loads no heavy library, and every exported
name still resolves, PAPER included."""

import importlib
import subprocess
import sys

import pytest

from iclr25.core import registry

SLUGS = [p.slug for p in registry.PAPERS]
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


def test_lazy_package_semantics(tmp_path, monkeypatch):
    """A throwaway package `lazyprobe` exporting `mod` (a function in submodule mod) and `other`."""
    pkg = tmp_path / "lazyprobe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from iclr25.core.lazy import lazy_package\n"
                                     "__getattr__, __dir__, __all__ = lazy_package(__name__, "
                                     "{'mod': ['mod', 'other']})\n")
    (pkg / "mod.py").write_text("def mod():\n    return 42\n\nother = 7\n")
    (pkg / "extra.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import lazyprobe
    import lazyprobe.mod  # the submodule first: the import system would set lazyprobe.mod to the module
    try:
        assert lazyprobe.__all__ == ["PAPER", "mod", "other"] and dir(lazyprobe) == lazyprobe.__all__
        assert lazyprobe.mod() == 42 and lazyprobe.other == 7  # the exported function wins
        assert lazyprobe.extra.X == 1  # other submodules stay reachable as attributes
        with pytest.raises(AttributeError, match="no attribute 'nope'"):
            lazyprobe.nope  # noqa: B018
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "lazyprobe"]:
            del sys.modules[name]
