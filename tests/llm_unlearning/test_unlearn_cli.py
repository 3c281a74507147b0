"""unlearn / continual_unlearn on a tiny model, evaluation shapes, and bad input (one line, exit 2)."""

from __future__ import annotations

import json

import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.llm_unlearning import (
    METHODS,
    PretrainConfig,
    continual_unlearn,
    evaluate_unlearning,
    pretrain,
    unlearn,
)

FACTS = [{"question": f"Where does person {w} live?", "answer": f"Person {w} lives in {c}.",
          "paraphrased_answer": f"{c} is home to person {w}.",
          "perturbed_answer": [f"Person {w} lives in {o}." for o in ("Lima", "Oslo") if o != c],
          "task_id": str(1 + i % 2)}
         for i, (w, c) in enumerate(zip("ABCDEFGH", ["Paris", "Rome", "Lima", "Oslo", "Cairo", "Quito",
                                                      "Seoul", "Dakar"], strict=True))]
TINY = PretrainConfig(n_layer=1, d_model=16, n_head=2, block_size=48, epochs=2, batch=4)


@pytest.fixture(scope="module")
def model():
    return pretrain(FACTS, TINY, cache=False)


def _params(m):
    return torch.cat([p.detach().flatten() for p in m.parameters()])


@pytest.mark.parametrize("method", METHODS)
def test_every_method_changes_the_model_and_leaves_the_input(model, method):
    before = _params(model).clone()
    out = unlearn(model, model.tokenizer, FACTS[:4], FACTS[4:], method=method, epochs=1, lr=1e-3)
    assert torch.equal(_params(model), before)
    assert not torch.equal(_params(out), before)
    assert torch.isfinite(_params(out)).all()


def test_continual_with_fixed_and_moving_reference(model):
    tasks = [FACTS[:2], FACTS[2:4]]
    seen = []
    moving = continual_unlearn(model, None, tasks, FACTS[4:], method="npo+gd", ref="previous",
                               after_task=lambda i, m: seen.append(i))
    fixed = continual_unlearn(model, None, tasks, FACTS[4:], method="npo+gd", ref="initial")
    assert seen == [0, 1]
    assert not torch.equal(_params(moving), _params(fixed))  # the reference matters from task 2 on


def test_evaluation_report(model):
    rows = [{k: v for k, v in r.items() if k != "task_id"} for r in FACTS]
    rep = evaluate_unlearning(model, {"forget": rows[:3], "retain": rows[3:6]}, encoder=False)
    for res in rep.sets.values():
        assert set(res.metrics) >= {"rouge", "prob", "truth_ratio", "te", "es", "refusal"}
        assert len(res.generations) == 3 and all(0 <= x <= 1 for x in res.items["te"])
    assert 0 <= rep.sets["retain"].metrics["prob"] <= 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(method="gradient ascent"), "unknown method"),
    (dict(beta=0.0), "beta"),
    (dict(beta=-1.0), "beta"),
    (dict(lr=float("nan")), "lr"),
])
def test_bad_arguments(model, kwargs, match):
    with pytest.raises(UserError, match=match):
        unlearn(model, None, FACTS[:2], FACTS[2:], **{"method": "ga+gd", **kwargs})


def test_bad_sets(model):
    with pytest.raises(UserError, match="forget set is empty"):
        unlearn(model, None, [], FACTS, method="ga+gd")
    with pytest.raises(UserError, match="missing key 'answer'"):
        unlearn(model, None, [{"question": "q"}], FACTS, method="ga+gd")
    with pytest.raises(UserError, match="retain set is empty"):
        unlearn(model, None, FACTS, [], method="me+gd")
    with pytest.raises(UserError, match="perturbed_answer"):
        evaluate_unlearning(model, {"forget": [{"question": "q", "answer": "a"}]}, encoder=False)


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_cli_pretrain_unlearn_eval_continual(tmp_path, iclr25_cli):
    f = _write(tmp_path / "f.jsonl", FACTS[:4])
    r = _write(tmp_path / "r.jsonl", FACTS[4:])
    m, u, c = tmp_path / "m.pt", tmp_path / "u.pt", tmp_path / "c.pt"
    code, out, err = iclr25_cli("llm_unlearning", "pretrain", "--train", f, "--vocab", r, "-o", m,
                                "--epochs", 1, "--layers", 1, "--width", 16)
    assert code == 0, err
    code, out, err = iclr25_cli("llm_unlearning", "unlearn", "--model", m, "--forget", f, "--retain", r,
                                "--method", "idk+ap", "-o", u, "--epochs", 1)
    assert code == 0 and u.is_file(), err
    code, out, err = iclr25_cli("llm_unlearning", "continual", "--model", m, "--forget", f, "--retain", r,
                                "-o", c, "--epochs", 1)
    assert code == 0 and "2 tasks" in out, err
    code, out, err = iclr25_cli("llm_unlearning", "eval", "--model", u, "--forget", f, "--retain", r,
                                "--json", tmp_path / "e.json", "--max-new-tokens", 8)
    assert code == 0 and "MU" in out, err
    assert "forget_rouge" in json.loads((tmp_path / "e.json").read_text())["summary"]


@pytest.mark.parametrize("case, says", [("missing_key", "missing key 'answer'"), ("empty", "no records"),
                                        ("method", "unknown method"), ("beta", "--beta"),
                                        ("model", "not a language model")])
def test_cli_bad_input_is_one_line_exit_2(tmp_path, iclr25_cli, case, says):
    good = _write(tmp_path / "g.jsonl", FACTS[:2])
    model_file = tmp_path / "m.pt"
    model_file.write_bytes(b"not a model")
    args = {"missing_key": ["--forget", _write(tmp_path / "b.jsonl", [{"question": "q"}])],
            "empty": ["--forget", _write(tmp_path / "e.jsonl", [])],
            "method": ["--forget", good, "--method", "magic"],
            "beta": ["--forget", good, "--beta", 0],
            "model": ["--forget", good]}[case]
    code, out, err = iclr25_cli("llm_unlearning", "unlearn", "--model", model_file, "--retain", good,
                                "-o", tmp_path / "o.pt", *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert says in err


@pytest.mark.parametrize("mask_question", [True, False])
def test_head_at_labelled_positions_only_gives_the_full_logits_losses(model, mask_question):
    """unlearn and evaluation run the output head only where a label is: same NLLs and ME as full logits."""
    from iclr25.llm_unlearning import losses as L  # noqa: N812
    from iclr25.llm_unlearning.model import (
        answer_nll,
        collate,
        encode_qa,
        labelled_logits,
        logits_of,
        summed_nll,
        token_nll,
    )
    tok = model.tokenizer
    rows = [encode_qa(tok, r["question"], r["answer"], mask_question) for r in FACTS[:5]]
    rows[1] = encode_qa(tok, FACTS[1]["question"], "Lima.", mask_question)  # rows of different lengths
    ids, labels, mask = collate(rows, tok.pad_id, model.max_length)
    full = logits_of(model, ids, mask)
    total, count = summed_nll(model, ids, mask, labels)
    torch.testing.assert_close(total, L.sequence_nll(full, labels))
    assert count.tolist() == (labels[:, 1:] != L.IGNORE).sum(1).tolist()
    torch.testing.assert_close(answer_nll(model, ids, mask, labels), token_nll(full, labels))
    torch.testing.assert_close(L.me_of_logits(labelled_logits(model, ids, mask, labels)[0]),
                               L.me_loss(full, labels))


def test_each_forget_example_keeps_its_retain_partner_and_template(model, monkeypatch):
    """As the official data module (seeded by the example's index): one retain partner and one refusal
    template per forget example for the whole run, the same template for its forget and retain pair."""
    import importlib
    U = importlib.import_module("iclr25.llm_unlearning.unlearn")  # noqa: N806 (the package exports unlearn())
    seen: dict[str, set] = {}
    real = U.unlearning_loss

    def spy(model, ref, cfg, forget, retain, idk_f, idk_r, encoded=None):
        for f, r, a, b in zip(forget, retain, idk_f, idk_r, strict=True):
            assert a == b
            seen.setdefault(f["question"], set()).add((r["question"], a))
        return real(model, ref, cfg, forget, retain, idk_f, idk_r, encoded)

    monkeypatch.setattr(U, "unlearning_loss", spy)
    U.unlearn(model, None, FACTS[:4], FACTS[4:], method="idk+ap", epochs=4, lr=1e-3,
              config=U.UnlearnConfig(method="idk+ap", epochs=4, lr=1e-3, batch=2))
    assert len(seen) == 4 and all(len(v) == 1 for v in seen.values())


def test_cli_defaults_unlearn_two_pairs_and_print_rouge_before_and_after(tmp_path, iclr25_cli):
    """The issue's case: 2 forget pairs with the defaults left forget ROUGE 0.929 -> 0.929 and printed
    'unlearned 2 pairs'. Default epochs now give at least 30 steps, and the command prints the before/after
    ROUGE (its trivial baseline: the model before unlearning)."""
    f = _write(tmp_path / "f.jsonl", FACTS[:2])
    r = _write(tmp_path / "r.jsonl", FACTS[2:])
    m, u = tmp_path / "m.pt", tmp_path / "u.pt"
    code, out, err = iclr25_cli("llm_unlearning", "pretrain", "--train", _write(tmp_path / "a.jsonl", FACTS),
                                "-o", m, "--epochs", 120, "--layers", 2, "--width", 32, "--lr", 3e-3)
    assert code == 0, err
    code, out, err = iclr25_cli("llm_unlearning", "unlearn", "--model", m, "--forget", f, "--retain", r,
                                "-o", u)
    assert code == 0, err
    assert "30 epochs (30 steps)" in err
    before, after = (float(x) for x in out.split("forget ROUGE-L ")[1].split(" (")[0].split(" -> "))
    assert before > 0.8 and after < before - 0.05 and "warning" not in err
    code, out, err = iclr25_cli("llm_unlearning", "unlearn", "--model", m, "--forget", f, "--retain", r,
                                "-o", u, "--epochs", 1, "--lr", 1e-7)
    assert code == 0 and "warning: forget ROUGE-L fell by" in err


@pytest.mark.slow
def test_cli_unlearns_smollm2_and_saves_a_loadable_llama(tmp_path, iclr25_cli):
    from iclr25.core.models import Llama
    from iclr25.llm_unlearning.checkpoints import load_model
    f = _write(tmp_path / "f.jsonl", FACTS[:1])
    r = _write(tmp_path / "r.jsonl", FACTS[1:2])
    u = tmp_path / "u.pt"
    code, out, err = iclr25_cli("llm_unlearning", "unlearn", "--model", "smollm2", "--forget", f,
                                "--retain", r, "-o", u, "--epochs", 1, "--method", "ga+gd")
    assert code == 0, err
    assert "lr 1e-05" in err and "forget ROUGE-L" in out
    model = load_model(u)
    assert isinstance(model, Llama) and model.vocab_size == 49152
    assert model.generate(["Question: Where? Answer:"], max_new_tokens=2, temperature=0.0)
