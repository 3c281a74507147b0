"""The authors' pendulum demonstrations, when the shared data folder has them."""

import pytest

from iclr25.core.data import shared_data


@pytest.fixture(scope="session")
def pendulum_h5():
    root = shared_data("09-gsd")
    path = None if root is None else root / "InvertedPendulumDetCustom_v2.h5"
    if path is None or not path.is_file():
        pytest.skip("needs ../shared/data/09-gsd/InvertedPendulumDetCustom_v2.h5 (the project's shared data "
                    "folder), which is absent here")
    return path
