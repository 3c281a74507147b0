"""Scorers: heuristics, the Bradley–Terry reward model, the implicit reward, the markdown flattener."""

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.rm_bench.bt import BTRewardModel
from iclr25.rm_bench.data import Item, load_rmbench
from iclr25.rm_bench.implicit import DPOImplicitScorer, implicit_reward
from iclr25.rm_bench.metric import evaluate, item_scores
from iclr25.rm_bench.scorers import Length, Markdown, NegLength, Random, markdown_marks
from iclr25.rm_bench.style import flatten_markdown, make_style_variants


def test_length_scorers_and_markdown_count():
    assert Length()(["q", "q"], ["abc", ""]).tolist() == [3.0, 0.0]
    assert NegLength()(["q"], ["abcd"]).tolist() == [-4.0]
    assert markdown_marks("plain text, no marks.") == 0
    assert markdown_marks("# T\n\n| a | b |\n> quote\n```py\nx\n```") == 5  # heading, table, quote, 2 fences
    assert Markdown()(["q"], ["- a\n- b"]).tolist() == [2.0]
    with pytest.raises(UserError, match="2 prompts for 1"):
        Length()(["a", "b"], ["c"])


def test_random_scorer_is_a_function_of_seed_prompt_and_response():
    r = Random(0)
    a = r(["p", "p", "q"], ["x", "y", "x"])
    assert r(["q", "p"], ["x", "x"]).tolist() == [a[2], a[0]]  # order and batch do not matter
    assert not np.allclose(Random(1)(["p"], ["x"]), a[0])
    assert ((a >= 0) & (a < 1)).all()
    with pytest.raises(UserError, match="seed"):
        Random(-1)


def test_random_scorer_is_near_fifty_on_the_benchmark(rmbench_dir):
    res = evaluate(Random(0), load_rmbench(rmbench_dir))
    assert all(abs(res["overall"][k] - 50) < 4 for k in ("easy", "normal", "hard"))


def _items(n, start=0):
    return [Item(str(i), "chat", f"tell me about topic{i}",
                 (f"a correct fact on topic{i}", f"so, a correct fact on topic{i}. more words here",
                  f"1. **a correct fact** on topic{i}\n- more words here"),
                 (f"a wrong fact on topic{i}", f"so, a wrong fact on topic{i}. more words here",
                  f"1. **a wrong fact** on topic{i}\n- more words here"))
            for i in range(start, start + n)]


def test_bradley_terry_learns_the_signal_out_of_fold():
    items = _items(30)
    model = BTRewardModel("tfidf", "diagonal", folds=5, seed=0)
    ch, rej = item_scores(model, items)
    assert (ch > rej).all()  # "correct" vs "wrong" is learnt from other prompts' items
    fitted = BTRewardModel("tfidf").fit(items[:20])
    good, bad = fitted(["tell me about x"] * 2, ["a correct fact", "a wrong fact"])
    assert good > bad


def test_folds_keep_a_prompt_together_and_depend_on_the_seed():
    items = _items(10) + _items(10)  # each prompt twice
    m = BTRewardModel(folds=5, seed=3)
    folds = m.fold_of(items)
    assert (folds[:10] == folds[10:]).all() and set(folds) == set(range(5))
    assert not (BTRewardModel(folds=5, seed=4).fold_of(items) == folds).all()
    with pytest.raises(UserError, match="cannot fill"):
        BTRewardModel(folds=5).fold_of(_items(3))


@pytest.mark.parametrize("kwargs, msg", [({"features": "bow"}, "features"), ({"pairs": "some"}, "pairs"),
                                         ({"folds": 1}, "folds"), ({"C": float("nan")}, "C")])
def test_bt_bad_config(kwargs, msg):
    with pytest.raises(UserError, match=msg):
        BTRewardModel(**kwargs)
    with pytest.raises(UserError, match="fit the reward model"):
        BTRewardModel()(["q"], ["a"])


def test_implicit_reward_with_and_without_reference():
    pol = [np.array([-1.0, -2.0, -3.0]), np.array([-0.5])]
    ref = [np.array([-1.0, -1.0, -1.0]), np.array([-1.0])]
    assert implicit_reward(pol, ref).tolist() == [-3.0, 0.5]  # Σ log π − Σ log π_ref
    assert implicit_reward(pol, None, "avg").tolist() == [-2.0, -0.5]
    assert implicit_reward(pol, None, "sum").tolist() == [-6.0, -0.5]
    with pytest.raises(UserError, match="no tokens"):
        implicit_reward([np.array([])])
    with pytest.raises(UserError, match="ref_free"):
        implicit_reward(pol, None, "norm")


def test_dpo_scorer_calls_policy_and_reference():
    def policy(prompts, responses):  # a toy policy: every character costs log(0.5)
        return [np.full(len(y), np.log(0.5)) for y in responses]

    def ref(prompts, responses):
        return [np.full(len(y), np.log(0.25)) for y in responses]

    with_ref = DPOImplicitScorer(policy, ref)(["q", "q"], ["ab", "abcd"])
    np.testing.assert_allclose(with_ref, [2 * np.log(2), 4 * np.log(2)])  # longer: more reward
    np.testing.assert_allclose(DPOImplicitScorer(policy)(["q", "q"], ["ab", "abcd"]), [np.log(.5)] * 2)
    with pytest.raises(UserError, match="callables"):
        DPOImplicitScorer("not a function")


def test_flatten_markdown_matches_the_benchmark_plain_style(rmbench_dir):
    items = load_rmbench(rmbench_dir, ["chat"])
    same = sum(flatten_markdown(it.chosen[2])[:200] == it.chosen[1][:200] for it in items[:40])
    assert same >= 10  # many plain answers are exactly the flattened markdown ones


def test_flatten_keeps_code_and_drops_marks():
    text = "## Steps\n\n1. Run `pip`\n2. Then:\n\n```python\nx = 1  # **not bold**\n```\n\n---\n> done"
    flat = flatten_markdown(text)
    assert flat.startswith("Steps. First, Run pip. Second, Then:")
    assert "```python\nx = 1  # **not bold**\n```" in flat and "done" in flat and "---" not in flat
    assert make_style_variants(text) == {"plain": flat, "markdown": text}
    with pytest.raises(UserError):
        flatten_markdown(None)
