"""One thread per test process, as in every reproduction run (oversubscribed OpenMP threads on a shared
machine are many times slower), and a fresh run cache, so the smoke run really trains."""

import pytest

from iclr25.core.runtime import pin_threads


@pytest.fixture(autouse=True, scope="session")
def _one_thread() -> None:
    import torch  # noqa: F401  (pin_threads pins torch only once it is imported)

    pin_threads()


@pytest.fixture(autouse=True)
def _fresh_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path_factory.mktemp("cache")))
