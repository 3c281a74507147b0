from functools import partial

import pytest

from iclr25.core.executors import get_executor
from iclr25.core.runtime import RunContext, child_seeds

# a library function (Ray workers import it by name; a test module is not importable there)
square_plus_noise = partial(child_seeds, n=3)


ITEMS = list(range(6))


def test_serial_equals_process():
    serial = get_executor("serial").map(square_plus_noise, ITEMS)
    process = get_executor("process", workers=2).map(square_plus_noise, ITEMS)
    assert serial == process == [square_plus_noise(x) for x in ITEMS]


@pytest.mark.slow
def test_ray_equals_serial():
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    try:
        out = get_executor("ray", workers=2).map(square_plus_noise, ITEMS)
    finally:
        ray.shutdown()
    assert out == [square_plus_noise(x) for x in ITEMS]


def test_ctx_map_uses_backend(tmp_path):
    ctx = RunContext(backend="process", workers=2, out_dir=tmp_path)
    assert ctx.map(square_plus_noise, ITEMS) == [square_plus_noise(x) for x in ITEMS]


def test_unknown_backend():
    with pytest.raises(ValueError, match="serial, process, ray"):
        get_executor("mpi")
