"""Same seed, same findings; another seed, other findings: every paper's smoke profile run twice with
seed 0 and once with seed 1, each time on a cache holding nothing but the dequantised pretrained models,
gives identical measurements for every claim not marked as a timing claim with seed 0 twice, and at least
one different non-timing measurement with seed 1 (a paper that ignores --seed fails). Timing claims are
decided by wall clocks, which vary with the
machine's load). Wall-clock numbers reported beside other measurements carry a time unit in their name
(`build_s`, `cpu_s_motif`, `s_per_iter`, `latency_ms`, `cpu_hours`: see docs/ADDING_A_PAPER.md) and are
the only measurements allowed to differ."""

from __future__ import annotations

import json
import re

import pytest

from iclr25.core import registry
from iclr25.core.runtime import RunContext, cache_dir

WALL_CLOCK = re.compile(r"(^|_)(s|ms|us|seconds|hours)(_|$)")


def _findings(slug: str, out_dir, seed: int) -> dict[str, str]:
    paper = registry.load(slug)
    timing = {c.key for c in paper.claims if c.timing}
    findings = paper.reproduce("smoke", RunContext(seed=seed, profile="smoke", out_dir=out_dir))
    return {f.claim: json.dumps({"verdict": str(f.verdict), "measured": f.measured}, sort_keys=True,
                                default=str)
            for f in findings if f.claim not in timing}


def test_wall_clock_names():
    assert all(WALL_CLOCK.search(m) for m in ("build_s", "cpu_s_ssm1", "s_per_iter_k4", "latency_ms",
                                              "paper_cpu_hours", "seconds"))
    assert not any(WALL_CLOCK.search(m) for m in ("acc_ssm1", "samples", "n_seeds", "speedup", "msd_ratio"))


def _differences(x: dict[str, str], y: dict[str, str]) -> dict[str, dict]:
    """Per claim, the measurements (wall clocks aside) and verdicts that differ between two runs."""
    differ = {}
    for key in x:
        a, b = json.loads(x[key]), json.loads(y[key])
        names = set(a["measured"]) | set(b["measured"])
        bad = {m: (a["measured"].get(m), b["measured"].get(m)) for m in names
               if a["measured"].get(m) != b["measured"].get(m) and not WALL_CLOCK.search(m)}
        if bad or a["verdict"] != b["verdict"]:
            differ[key] = {"verdicts": (a["verdict"], b["verdict"]), **bad}
    return differ


@pytest.mark.parametrize("slug", [p.slug for p in registry.PAPERS])
def test_same_seed_same_findings_other_seed_other_findings(slug, tmp_path, monkeypatch):
    models = cache_dir() / "models"
    models.mkdir(exist_ok=True)
    runs = []
    for k, seed in enumerate((0, 0, 1)):
        cache = tmp_path / f"cache{k}"
        cache.mkdir()
        (cache / "models").symlink_to(models)  # weights only: no experiment result is reused
        monkeypatch.setenv("ICLR25_CACHE", str(cache))
        runs.append(_findings(slug, tmp_path / f"run{k}", seed))
    same = _differences(runs[0], runs[1])
    assert not same, same
    assert _differences(runs[0], runs[2]), f"{slug} gave the same measurements with seeds 0 and 1"
