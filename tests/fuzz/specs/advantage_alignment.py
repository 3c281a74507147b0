from __future__ import annotations

from ..spec import Spec

SPECS = [Spec("advantage_alignment train", {"env": "ipd", "iters": "2", "batch": "4"})]


def valid(d):
    return {}
