"""The shared data folder of paper 15: the path, or the test is skipped with the reason."""

import pytest

from iclr25.core.data import shared_data, shared_root

FOLDER = "15-underdamped-bridges"


@pytest.fixture
def shared_udb():
    path = shared_data(FOLDER)
    if path is None:
        pytest.skip(f"needs {shared_root() / 'data' / FOLDER} (the project's shared data), absent here")
    return path
