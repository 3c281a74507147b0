"""A fake paper for the core tests: two claims, one verdict each, and user text that needs escaping."""

from iclr25.core.claims import Claim, Finding, at_least, at_most
from iclr25.core.paper import Paper

CLAIMS = [
    Claim("fast", "Search is <b>fast</b> & exact", "< 1 s", "p50 < 1 s"),
    Claim("big", "Recall beats exact", "x2", "ratio >= 2"),
]


def run(profile, ctx):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = float(ctx.rng().uniform(0.1, 0.5))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, x])
    fig.savefig(ctx.out_dir / "curve.png")
    plt.close(fig)
    return [Finding("fast", at_most(x, 1.0), {"latency_s_p50": x}, f"ours {x:.2f} s", ["curve.png"]),
            Finding("big", at_least(1.5, 2.0), {"ratio": 1.5}, "ours x1.5")]


def slow(profile, ctx):
    import time
    time.sleep(600)  # a paper that cannot finish within any test's budget
    return run(profile, ctx)


def broken(profile, ctx):
    raise RuntimeError("experiment exploded")


def fake_paper(slug: str, fn=run) -> Paper:
    return Paper(slug, 7, "Fake <script>alert(1)</script>", CLAIMS, fn)
