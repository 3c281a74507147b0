"""The Melting Pot 2.0 normaliser (the environment itself is not installable here)."""

import pytest

from iclr25.advantage_alignment.melting_pot import default_baselines_path, load_bounds, normalise
from iclr25.core.errors import UserError


def test_normalise_min_and_max_map_to_0_and_1(tmp_path):
    p = tmp_path / "b.csv"
    p.write_text("scenario,mapla,training_run,focal_per_capita_return\ns,a,0,2.0\ns,b,0,6.0\ns,c,1,4.0\n")
    b = load_bounds(p)
    assert b == {"s": (2.0, 6.0)}
    assert [normalise(x, "s", b) for x in (2.0, 4.0, 6.0)] == [0.0, 0.5, 1.0]
    with pytest.raises(UserError, match="unknown scenario 'x'"):
        normalise(1.0, "x", b)


@pytest.mark.skipif(not default_baselines_path().is_file(),
                    reason="shared/data/02-advantage-alignment/ (MP2 baseline results) is not present")
def test_shipped_baselines_cover_both_commons_harvest_open_scenarios():
    b = load_bounds()
    assert {"commons_harvest__open_0", "commons_harvest__open_1"} <= set(b)
    for lo, hi in b.values():
        assert lo < hi
