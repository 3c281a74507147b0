"""A fake paper for the core tests: two claims with declared rules, and user text that needs escaping."""

from iclr25.core import registry
from iclr25.core.claims import Claim, Finding
from iclr25.core.paper import Paper
from iclr25.core.rules import Mean, Rule, Test, Value

CLAIMS = [
    Claim("fast", "Search is <b>fast</b> & exact", "< 1 s", "latency of 5 fake queries",
          Rule(Test(Mean("latency_s", "latency", over="queries", log=True), "<", 1.0))),
    Claim("big", "Recall beats exact", "x2", "recall ratio of the fake index",
          Rule(Test(Value("ratio", "soft/exact recall"), ">=", 2.0))),
]


def run(profile, ctx):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = ctx.rng().uniform(0.1, 0.5, 5)
    fig, ax = plt.subplots()
    ax.plot(x)
    fig.savefig(ctx.out_dir / "curve.png")
    plt.close(fig)
    return [Finding.measure("fast", {"latency_s": list(x)}, f"ours {x.mean():.2f} s", ["curve.png"]),
            Finding.measure("big", {"ratio": 1.5}, "ours x1.5")]


def slow(profile, ctx):
    import time
    time.sleep(600)  # a paper that cannot finish within any test's budget
    return run(profile, ctx)


def broken(profile, ctx):
    raise RuntimeError("experiment exploded")


def fake_paper(slug: str, fn=run, claims=CLAIMS) -> Paper:
    return Paper(slug, 7, "Fake <script>alert(1)</script>", claims, fn)


def install(monkeypatch, papers: dict[str, Paper] | None = None, default=fake_paper) -> None:
    """Make the registry serve fake papers (and their claims) in place of the real ones."""
    papers = papers or {}

    def load(slug):
        return papers[slug] if slug in papers else default(slug)
    monkeypatch.setattr(registry, "load", load)
    monkeypatch.setattr(registry, "claims", lambda slug: load(slug).claims)
