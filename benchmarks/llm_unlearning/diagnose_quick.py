"""Can the quick setup show the paper's effects? Prints the signals behind the README's reading of the quick
run, on the quick world (forget01 task 1, 10 retain90 authors, 40 + 40 RA/WF), seed 0, the calibrated lr.

    .venv/bin/python benchmarks/llm_unlearning/diagnose_quick.py [--lr 1e-3] [--no-prior]

1. Targeted (IDK): refusal NLL per token on forget questions and the refusal rates IDK+GD / IDK+AP reach in
   the protocol's 10 steps, for the world model as the reproduction trains it (it also learns the 100
   templates as plain sentences) and, with --no-prior, for one that never saw them (one more fine-tune,
   ~3 CPU-min, cached).
2. Untargeted (ME): KL(U || p) on forget positions before and after ME+GD (0 = maximum entropy), and the
   forget metrics behind FE for GA+GD, NPO+GD, ME+GD.
3. Retain-only model: its forget ROUGE against what fluent wrong answers score on the same references
   (TOFU's perturbed answers; the retain answer to the most similar trained question; the best of all
   trained retain answers), and its ROUGE on retain90 authors neither model was trained on.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict

import numpy as np
import torch

from iclr25.core.data import shared_data
from iclr25.core.runtime import pin_threads
from iclr25.llm_unlearning.data import TOFU_DIR, idk_templates, load_tofu, tofu_world
from iclr25.llm_unlearning.evaluate import avg_nll, evaluate_set, evaluate_unlearning, generate_answers
from iclr25.llm_unlearning.experiments import _encoder, _pretrained, eval_sets
from iclr25.llm_unlearning.losses import me_loss
from iclr25.llm_unlearning.metrics import is_refusal, rouge_l, words
from iclr25.llm_unlearning.model import PretrainConfig, collate, encode_qa, logits_of, pretrain
from iclr25.llm_unlearning.unlearn import UnlearnConfig, unlearn


def refusals(model, rows) -> float:
    gens, _ = generate_answers(model, [r["question"] for r in rows], 96)
    return float(np.mean([is_refusal(g) for g in gens]))


def targeted(model, world, lr: float, tag: str) -> None:
    forget, retain_eval, t = world.forget([1]), world.retain_eval[:40], idk_templates()
    nll = avg_nll(model, [(r["question"], t[i % len(t)]) for i, r in enumerate(forget)]).mean()
    print(f"[IDK] {tag}: refusal NLL on forget questions before unlearning {nll:.2f} nats/token")
    for method in ("idk+gd", "idk+ap"):
        out = unlearn(model, None, forget, world.retain, config=UnlearnConfig(method=method, lr=lr, seed=0))
        print(f"[IDK] {tag}: {method.upper()} refuses {refusals(out, forget):.0%} of forget and "
              f"{refusals(out, retain_eval):.0%} of retain questions", flush=True)


def me_kl(model, rows) -> float:
    tok = model.tokenizer
    ids, labels, mask = collate([encode_qa(tok, r["question"], r["answer"], False) for r in rows],
                                tok.pad_id, model.max_length)
    with torch.no_grad():
        return float(me_loss(logits_of(model, ids, mask), labels))


def untargeted(model, world, lr: float) -> None:
    forget, sets = world.forget([1]), eval_sets(world, [1], 40)
    print(f"[ME] initial model: KL(U || p) on forget positions {me_kl(model, forget):.2f} nats")
    for method in ("ga+gd", "npo+gd", "me+gd"):
        out = unlearn(model, None, forget, world.retain, config=UnlearnConfig(method=method, lr=lr, seed=0))
        rep = evaluate_unlearning(out, sets, encoder=_encoder())
        f = rep.sets["forget"].metrics
        print(f"[ME] {method.upper()}: FE {rep.fe:.3f}, MU {rep.mu:.3f}; forget ROUGE {f['rouge']:.3f}, "
              f"Prob {f['prob']:.3f}, TR {f['truth_ratio']:.3f}, CS {f['cs']:.3f}, ES {f['es']:.3f}; "
              f"KL(U || p) {me_kl(out, forget):.2f}; e.g. {rep.sets['forget'].generations[0][:90]!r}",
              flush=True)


def hallucination(world, pcfg: dict) -> None:
    forget, retain = world.forget([1]), world.retain
    model = _pretrained(world, pcfg, False)
    res = evaluate_set(model, forget, "forget", encoder=False)
    print(f"[retain-only] forget ROUGE-L recall {res.metrics['rouge']:.3f}, TE {res.metrics['te']:.3f}, "
          f"refusals {res.metrics['refusal']:.0%}; e.g. {res.generations[1][:90]!r}")
    pert = np.mean([np.mean([rouge_l(r["answer"], p)[0] for p in r["perturbed_answer"]]) for r in forget])
    qw = [words(r["question"]) for r in retain]
    near, best = [], []
    for r in forget:
        q = words(r["question"])
        j = max(range(len(retain)), key=lambda k: len(q & qw[k]) / len(q | qw[k]))
        near.append(rouge_l(r["answer"], retain[j]["answer"])[0])
        best.append(max(rouge_l(r["answer"], x["answer"])[0] for x in retain))
    print(f"[retain-only] references on the same truths: TOFU perturbed answers {pert:.3f}, retain answer to "
          f"the most similar trained question {np.mean(near):.3f}, best of the {len(retain)} trained retain "
          f"answers {np.mean(best):.3f}")
    seen = {r["question"] for r in retain}
    unseen = [r for r in load_tofu(shared_data(TOFU_DIR) / "retain_perturbed.json", "retain_perturbed")
              if r["question"] not in seen][:40]
    res = evaluate_set(model, unseen, "retain", encoder=False)
    print(f"[retain-only] ROUGE-L recall on 40 questions about untrained retain90 authors "
          f"{res.metrics['rouge']:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lr", type=float, default=1e-3, help="the quick run's calibrated lr")
    ap.add_argument("--no-prior", action="store_true", help="also a world model without the templates")
    args = ap.parse_args()
    pin_threads(1)
    world = tofu_world(shared_data(TOFU_DIR), [1], 10, 40)
    pcfg = asdict(PretrainConfig())
    model = _pretrained(world, pcfg, True)
    targeted(model, world, args.lr, "templates known (the reproduction)")
    if args.no_prior:
        bare = pretrain(world.training_qa(True), PretrainConfig(), vocab=world.vocab_rows)
        targeted(bare, world, args.lr, "templates never seen")
    untargeted(model, world, args.lr)
    hallucination(world, pcfg)


if __name__ == "__main__":
    main()
