import os

import pytest

from iclr25.core.runtime import pin_threads


@pytest.fixture(autouse=True, scope="session")
def _one_thread():
    os.environ.setdefault("ICLR25_NO_PROGRESS", "1")
    pin_threads(1)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    # trained models are cached; keep tests away from the user's cache
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
