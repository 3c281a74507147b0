"""One thread per test process, as the library runs (more threads only spin on 2 shared cores)."""

import pytest

from iclr25.core.runtime import pin_threads


@pytest.fixture(scope="session", autouse=True)
def _one_thread() -> None:
    import torch  # noqa: F401  (pin_threads pins torch only once it is imported)
    pin_threads(1)
