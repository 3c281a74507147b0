import subprocess
import sys

import pytest

from iclr25.core import registry


def test_all_19_papers_in_order():
    assert [p.number for p in registry.PAPERS] == list(range(1, 20))
    assert len(registry.BY_SLUG) == 19
    assert registry.info("softmatcha").number == 11


def test_unknown_slug_message_lists_known():
    with pytest.raises(registry.UnknownPaper, match="softmatcha"):
        registry.info("nope")


def test_registry_import_does_not_load_torch():
    code = "import sys, iclr25.core.registry, iclr25.core.cli; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_papers_load_with_claims_equal_to_their_light_claims_module():
    for p in registry.PAPERS:
        paper = registry.load(p.slug)
        assert paper.slug == p.slug and paper.claims
        assert len({c.key for c in paper.claims}) == len(paper.claims)
        assert [c.to_dict() for c in registry.claims(p.slug)] == [c.to_dict() for c in paper.claims]
