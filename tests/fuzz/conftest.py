"""Fixtures of the fuzz suite: valid small inputs for every command, and the pool of hostile files.
`ICLR25_FUZZ_EXAMPLES` sets examples per command (CI: a few; `make fuzz`: many)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from . import specs
from .nasty import make_nasty

settings.register_profile(
    "fuzz", max_examples=int(os.environ.get("ICLR25_FUZZ_EXAMPLES", "6")), deadline=None,
    derandomize=os.environ.get("ICLR25_FUZZ_EXAMPLES") is None,  # CI: the same examples every run
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large])


@pytest.fixture(scope="session")
def nasty(tmp_path_factory):
    return make_nasty(tmp_path_factory.mktemp("nasty"))


@pytest.fixture(scope="session")
def valid(tmp_path_factory):
    """slug -> the small valid inputs of that paper's base invocations (tests/fuzz/specs/<slug>.py)."""
    return {slug: m.valid(tmp_path_factory.mktemp(f"valid-{slug}")) for slug, m in specs.modules().items()}


def pytest_terminal_summary(terminalreporter):
    """How many CLI calls the suite made, by outcome (the count `make fuzz` is sized by)."""
    from .harness import CALLS
    if CALLS:
        terminalreporter.write_line(f"fuzz: {sum(CALLS.values()):,} CLI calls ("
                                    + ", ".join(f"{k}: {v:,}" for k, v in sorted(CALLS.items())) + ")")
