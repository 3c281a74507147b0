"""One thread per test process, as in every reproduction run (oversubscribed OpenMP threads on a shared
machine are many times slower)."""

import pytest

from iclr25.core.runtime import pin_threads


@pytest.fixture(autouse=True, scope="session")
def _one_thread() -> None:
    import torch  # noqa: F401  (pin_threads pins torch only once it is imported)

    pin_threads()
