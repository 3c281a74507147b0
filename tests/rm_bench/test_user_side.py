"""What a user of `rm_bench` gets (issues #48, #52): every item's scores in the results JSON and the items
that fail most, the 3×3 style matrix as a heat map, the chance reference, and a DPO (implicit-reward)
scorer from the CLI for the user's own policy and reference checkpoints (tiny local models here)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.rm_bench.data import Item
from iclr25.rm_bench.metric import evaluate_scores, per_item

from .test_cli import _cli

# ---- per-item scores ---------------------------------------------------------------------------------

def test_per_item_records_average_to_the_matrix():
    rng = np.random.default_rng(0)
    items = [Item(str(i), "chat", "q", ("a",) * 3, ("b",) * 3) for i in range(50)]
    ch, rej = rng.normal(size=(50, 3)), rng.normal(size=(50, 3))
    rows = per_item(items, ch, rej)
    res = evaluate_scores(items, ch, rej)
    for lvl in ("easy", "normal", "hard"):
        # each item's levels are rounded to 1 decimal
        assert np.mean([r[lvl] for r in rows]) == pytest.approx(res["overall"][lvl], abs=0.06)
    assert np.mean([r["correct"] for r in rows]) / 9 * 100 == pytest.approx(res["overall"]["avg"])
    assert rows[3]["chosen"] == ch[3].tolist() and rows[3]["id"] == "3"


def test_eval_and_score_write_every_items_scores_and_report_lists_the_worst(tiny_dir, tmp_path):
    out = tmp_path / "res.json"
    assert _cli("eval", "--data", str(tiny_dir), "--scorer", "markdown", "-o", str(out)).returncode == 0
    res = json.loads(out.read_text())
    rows = res["per_item"]
    assert len(rows) == res["items"] == 13
    assert {"id", "domain", "chosen", "rejected", "correct", "easy", "normal", "hard"} <= set(rows[0])
    # the markdown scorer: every markdown answer has 4 marks, the others 0: only markdown beats plainer
    assert all(r["chosen"] == r["rejected"] == [0.0, 0.0, 4.0] and r["correct"] == 2 for r in rows)
    rep = _cli("report", str(out), "--worst", "2")
    assert rep.returncode == 0, rep.stderr
    assert "the 2 items ordered right in the fewest of the 9" in rep.stdout
    assert "chance (a random scorer): 50.0 at every level" in rep.stdout
    old = tmp_path / "old.json"  # a results file without per-item scores
    old.write_text(json.dumps({k: v for k, v in res.items() if k != "per_item"}))
    r = _cli("report", str(old), "--worst", "3")
    assert r.returncode == 2 and "no per-item scores" in r.stderr


def test_report_plot_draws_the_style_matrix(tiny_dir, tmp_path):
    out, png = tmp_path / "res.json", tmp_path / "matrix.png"
    _cli("eval", "--data", str(tiny_dir), "--scorer", "length", "-o", str(out))
    r = _cli("report", str(out), "--plot", str(png))
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    r = _cli("report", str(out), "--plot", str(tmp_path / "matrix.txt"))
    assert r.returncode == 2 and "must end in .png or .pdf or .svg" in r.stderr


# ---- DPO scorer on tiny local models -------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """A reference TinyGPT and a policy fine-tuned from it on the *chosen* answers of the tiny items: the
    implicit reward log π − log π_ref then favours chosen answers (what DPO training does, in miniature)."""
    from iclr25.core.models import TinyGPTConfig, TrainConfig, finetune, tiny_gpt

    from .helpers import make_items
    d = tmp_path_factory.mktemp("lms")
    import torch
    torch.manual_seed(0)
    ref = tiny_gpt(TinyGPTConfig(vocab_size=300, block_size=128, n_layer=1, n_head=2, d_model=32))
    chosen = [y for it in make_items(6, "chat") for y in it["chosen"]]
    policy = finetune(ref, chosen * 4, TrainConfig(steps=80, batch=8, lr=3e-3, warmup=5, seed=0), block=48)
    (d / "ref.pt").write_bytes(ref.state())
    (d / "policy.pt").write_bytes(policy.state())
    return d, ref, policy


def test_dpo_reward_is_the_difference_of_summed_log_probs(tiny_models):
    from iclr25.rm_bench.implicit import dpo_scorer
    d, ref, policy = tiny_models
    prompts, responses = ["Tell me about topic1?"] * 2, ["the correct fact about topic1", "**no**"]
    got = dpo_scorer(d / "policy.pt", d / "ref.pt")(prompts, responses)
    ctx = [p + "\n\n" for p in prompts]  # TinyGPT has no chat template: the prompt and a blank line
    want = [a.sum() - b.sum() for a, b in zip(policy.logprobs(responses, ctx), ref.logprobs(responses, ctx),
                                               strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    free = dpo_scorer(d / "policy.pt", None, "sum")(prompts, responses)
    np.testing.assert_allclose(free, [a.sum() for a in policy.logprobs(responses, ctx)], rtol=1e-5)


def test_cli_dpo_scorer_with_policy_and_reference(tiny_dir, tiny_models, tmp_path):
    d, _, _ = tiny_models
    out = tmp_path / "dpo.json"
    r = _cli("eval", "--data", str(tiny_dir), "--domains", "chat", "--policy", str(d / "policy.pt"),
             "--ref", str(d / "ref.pt"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["scorer"] == "dpo" and res["models"]["ref"] == str(d / "ref.pt")
    assert res["overall"]["avg"] > 75  # the fine-tuned policy prefers what it was tuned on
    # the same model as policy and reference: every reward is 0, every comparison a tie
    same = _cli("eval", "--data", str(tiny_dir), "--domains", "chat", "--scorer", "dpo", "--policy",
                str(d / "ref.pt"), "--ref", str(d / "ref.pt"), "--ties", "half", "-o",
                str(tmp_path / "s.json"))
    assert same.returncode == 0, same.stderr
    assert json.loads((tmp_path / "s.json").read_text())["overall"]["avg"] == 50.0


@pytest.mark.parametrize(("args", "needle"), [
    (["--scorer", "dpo"], "--scorer dpo needs --policy"),
    (["--ref", "REF"], "--ref needs --policy"),
    (["--scorer", "length", "--policy", "REF"], "--policy/--ref are for --scorer dpo"),
    (["--policy", "JUNK"], "is not a language model: expected smollm2"),
    (["--policy", "MISSING"], "file not found"),
    (["--policy", "REF", "--ref-free", "max"], "--ref-free must be avg or sum"),
])
def test_cli_dpo_bad_input_is_one_line(tiny_dir, tiny_models, tmp_path, args, needle):
    d, _, _ = tiny_models
    (tmp_path / "junk.pt").write_bytes(b"\x00not a model")
    subs = {"REF": str(d / "ref.pt"), "JUNK": str(tmp_path / "junk.pt"), "MISSING": str(tmp_path / "no.pt")}
    r = _cli("eval", "--data", str(tiny_dir), *[subs.get(a, a) for a in args], "-o", str(tmp_path / "x.json"))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], r.stderr


def test_policy_and_reference_must_share_a_tokenizer(tiny_models, tmp_path):
    from iclr25.core.models import TinyGPTConfig, Tokenizer, tiny_gpt
    from iclr25.rm_bench.implicit import dpo_scorer
    d, _, _ = tiny_models
    cfg = TinyGPTConfig(vocab_size=64, block_size=64, n_layer=1, n_head=1, d_model=8, tokenizer="word")
    words = tiny_gpt(cfg, Tokenizer.train(["a b c reward models"] * 3, kind="word", vocab_size=64))
    (tmp_path / "other.pt").write_bytes(words.state())
    with pytest.raises(UserError, match="split text differently"):
        dpo_scorer(d / "policy.pt", tmp_path / "other.pt")
