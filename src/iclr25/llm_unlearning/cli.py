"""`iclr25 llm_unlearning ...`: plant facts in a TinyGPT (or start from SmolLM2 or a local GGUF model),
unlearn them with one of 13 methods, evaluate with the six TOFU metrics, or unlearn tasks in sequence.
Inputs are TOFU JSON lines (one object per line with "question" and "answer"; evaluation also needs
"perturbed_answer", optionally "paraphrased_answer").

    iclr25 llm_unlearning pretrain --train all.jsonl -o m.pt
    iclr25 llm_unlearning unlearn --model m.pt --forget f.jsonl --retain r.jsonl --method idk+ap -o u.pt
    iclr25 llm_unlearning unlearn --model smollm2 --forget f.jsonl --retain r.jsonl -o u.pt
    iclr25 llm_unlearning eval --model u.pt --forget f_eval.jsonl --retain r_eval.jsonl
    iclr25 llm_unlearning continual --model m.pt --forget f.jsonl --retain r.jsonl --method me+gd -o c.pt
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path
from iclr25.core.options import Seed, count, finite
from iclr25.llm_unlearning.checkpoints import MODEL_HELP

app = typer.Typer(help="LLM unlearning (ICLR 2025): ME and AP losses, 13 methods, the six-metric TOFU "
                       "evaluation, on a TinyGPT trained here.", no_args_is_help=True, add_completion=False)

METHOD_HELP = ("ga | ga+gd | ga+kl | npo | npo+gd | npo+kl | me | me+gd | idk | idk+gd | dpo | dpo+gd | "
               "idk+ap")
MIN_STEPS = 30  # default epochs give at least this many optimizer steps (2 forget pairs: 30 epochs)
MOVED = 0.05  # forget ROUGE must fall by at least this much, else the command warns


def _load_model(spec: str):
    from iclr25.llm_unlearning.checkpoints import load_model
    return load_model(spec)


def _save(model, out: Path) -> None:
    from iclr25.core.models import lm_bytes
    from iclr25.core.runtime import atomic_write
    with atomic_write(out) as f:
        f.write(lm_bytes(model))


def _say(msg: str) -> None:
    import sys
    print(msg, file=sys.stderr, flush=True)


def _rouge(model, rows, max_new: int = 48) -> float:
    """Mean ROUGE-L recall of greedy answers against the rows' answers."""
    from iclr25.llm_unlearning.experiments import _forget_rouge
    return _forget_rouge(model, rows, max_new)


def _check_method(method: str) -> str:
    from iclr25.llm_unlearning.unlearn import METHODS
    if method not in METHODS:
        raise UserError(f"--method: unknown method {method!r}; choose from {', '.join(METHODS)}")
    return method


@app.command()
def pretrain(
    train: Annotated[Path, typer.Option(help="JSON lines of question/answer pairs to plant in the model")],
    out: Annotated[Path, typer.Option("--out", "-o", help="where to save the model (.pt)")],
    vocab: Annotated[Path | None, typer.Option(help="extra JSON lines whose words (e.g. evaluation "
                                                    "paraphrases/perturbations) join the vocabulary")] = None,
    epochs: Annotated[int, count("fine-tuning epochs", 10_000)] = 40,
    layers: Annotated[int, count("transformer layers", 48)] = 4,
    width: Annotated[int, count("model width d (multiple of 4)", 2048)] = 128,
    lr: Annotated[float, typer.Option(help="AdamW learning rate")] = 2e-3,
    seed: Seed = 0,
) -> None:
    """Fine-tune a fresh TinyGPT (word vocabulary) on question -> answer pairs; default 4 x 128."""
    from iclr25.core.runtime import pin_threads
    from iclr25.llm_unlearning.data import load_tofu
    from iclr25.llm_unlearning.model import PretrainConfig
    from iclr25.llm_unlearning.model import pretrain as fit
    pin_threads()
    finite(lr, "--lr", 0, 10, low_open=True)
    if width % 4:
        raise UserError(f"--width must be a multiple of 4 (4 heads), got {width}")
    out = output_path(out, "--out")
    rows = load_tofu(train, "--train file")
    extra = load_tofu(vocab, "--vocab file") if vocab is not None else []
    _say(f"fine-tuning a {layers} x {width} TinyGPT for {epochs} epochs")  # once the inputs are read
    model = fit(rows, PretrainConfig(n_layer=layers, d_model=width, epochs=epochs, lr=lr, seed=seed),
                vocab=extra, cache=False)
    _save(model, out)
    typer.echo(f"trained {model.n_params:,} parameters on {len(rows)} pairs, final loss "
               f"{model.train_info['final_loss']:.3f} -> {out}")


@app.command()
def unlearn(
    model: Annotated[str, typer.Option(help=MODEL_HELP)],
    forget: Annotated[Path, typer.Option(help="JSON lines: the facts to forget")],
    out: Annotated[Path, typer.Option("--out", "-o", help="where to save the unlearned model (.pt)")],
    retain: Annotated[Path | None, typer.Option(help="JSON lines: facts to keep (needed by +gd/+kl/+ap)")]
    = None,
    method: Annotated[str, typer.Option(help=METHOD_HELP)] = "me+gd",
    beta: Annotated[float, typer.Option(help="beta of NPO / DPO / AP")] = 0.1,
    epochs: Annotated[int | None, typer.Option(min=1, max=10_000, help="passes over the forget set (default: "
                                               f"5, or more so that training takes at least {MIN_STEPS} "
                                               "steps)")] = None,
    lr: Annotated[float | None, typer.Option(help="AdamW learning rate (default: 1e-3 for a TinyGPT; the "
                                                  "paper's 1e-5 for SmolLM2 / GGUF models)")] = None,
    seed: Seed = 0,
) -> None:
    """Unlearn the forget set (AdamW, wd 0.01, batch 32, 1 warm-up epoch; c_f 0.1 for ME+GD, else 1).
    Prints forget (and retain) ROUGE before and after; warns when forget ROUGE did not fall."""
    from iclr25.core.runtime import pin_threads
    from iclr25.llm_unlearning.checkpoints import default_lr
    from iclr25.llm_unlearning.data import load_tofu
    from iclr25.llm_unlearning.unlearn import UnlearnConfig
    from iclr25.llm_unlearning.unlearn import unlearn as run_unlearn
    pin_threads()
    _check_method(method)
    finite(beta, "--beta", 0, 1e6, low_open=True)
    finite(lr, "--lr", 0, 10, low_open=True)
    if "+" in method and retain is None:
        raise UserError(f"--retain is required by method {method!r}")
    out = output_path(out, "--out")
    f_rows = load_tofu(forget, "--forget file")
    r_rows = load_tofu(retain, "--retain file") if retain is not None else []
    m = _load_model(model)
    lr = default_lr(m) if lr is None else lr
    steps_per_epoch = -(-len(f_rows) // UnlearnConfig().batch)
    epochs = epochs or max(5, -(-MIN_STEPS // steps_per_epoch))
    cfg = _config(method, beta, epochs, lr, seed)
    before = _rouge(m, f_rows)
    r_before = _rouge(m, r_rows) if r_rows else None
    _say(f"{method}: {len(f_rows)} forget pairs, {epochs} epochs ({epochs * steps_per_epoch} steps), lr "
         f"{lr:g}")
    u = run_unlearn(m, None, f_rows, r_rows, config=cfg,
                    on_step=lambda s, loss: _say(f"  step {s + 1}: loss "
                                                 f"{loss:.4f}") if (s + 1) % 10 == 0 else None)
    _save(u, out)
    after = _rouge(u, f_rows)
    line = (f"{method}: forget ROUGE-L {before:.3f} -> {after:.3f} (before unlearning -> after; "
            "lower = forgotten)")
    if r_rows:
        line += f"; retain ROUGE-L {r_before:.3f} -> {_rouge(u, r_rows):.3f} (higher = kept)"
    typer.echo(line)
    typer.echo(f"wrote {out}")
    if before - after < MOVED:
        _say(f"warning: forget ROUGE-L fell by {before - after:.3f} (< {MOVED}): the model did not forget; "
             "raise --epochs or --lr")


def _config(method: str, beta: float, epochs: int, lr: float, seed: int):
    from iclr25.llm_unlearning.unlearn import UnlearnConfig
    _check_method(method)
    finite(beta, "--beta", 0, 1e6, low_open=True)
    finite(lr, "--lr", 0, 10, low_open=True)
    return UnlearnConfig(method=method, beta=beta, epochs=epochs, lr=lr, seed=seed)


@app.command(name="eval")
def evaluate(
    model: Annotated[str, typer.Option(help=MODEL_HELP)],
    forget: Annotated[Path | None, typer.Option(help="JSON lines: forget set (needs perturbed_answer)")]
    = None,
    retain: Annotated[Path | None, typer.Option(help="JSON lines: retain set (needs perturbed_answer)")]
    = None,
    real_authors: Annotated[Path | None, typer.Option(help="JSON lines: Real Authors set")] = None,
    world_facts: Annotated[Path | None, typer.Option(help="JSON lines: World Facts set")] = None,
    retain_model: Annotated[str | None, typer.Option(help="a retain-only model: adds TOFU Forget "
                                                          "Quality")] = None,
    json_out: Annotated[Path | None, typer.Option("-o", "--out", "--json", help="write all numbers and the "
                                                  "generations to this JSON file")] = None,
    max_new_tokens: Annotated[int, count("longest generated answer, tokens", 4096)] = 96,
) -> None:
    """ROUGE-L, Probability, Truth Ratio, Token Entropy, Cosine Similarity, Entailment per set; MU, FE."""
    from iclr25.core.runtime import pin_threads
    from iclr25.llm_unlearning.data import load_tofu
    from iclr25.llm_unlearning.evaluate import METRICS, evaluate_set, evaluate_unlearning
    pin_threads()
    given = {k: p for k, p in (("forget", forget), ("retain", retain), ("real_authors", real_authors),
                                ("world_facts", world_facts)) if p is not None}
    if not given:
        raise UserError("give at least one of --forget, --retain, --real-authors, --world-facts")
    if retain_model is not None and "forget" not in given:
        raise UserError("--retain-model needs --forget (Forget Quality compares forget-set truth ratios)")
    json_out = output_path(json_out, "--json") if json_out is not None else None
    need = ("question", "answer")
    sets = {k: load_tofu(p, f"--{k.replace('_', '-')} file", need) for k, p in given.items()}
    for k, rows in sets.items():
        if any("perturbed_answer" not in r for r in rows):
            raise UserError(f"--{k.replace('_', '-')}: every row needs 'perturbed_answer' (a list of wrong "
                            f"answers) for Probability and Truth Ratio")
    m = _load_model(model)
    tr = None
    if retain_model is not None:
        tr = evaluate_set(_load_model(retain_model), sets["forget"], "forget", encoder=False,
                          max_new_tokens=max_new_tokens).items["tr_raw"]
    rep = evaluate_unlearning(m, sets, retain_truth_ratios=tr, max_new_tokens=max_new_tokens)
    typer.echo(f"{'set':<14}" + "".join(f"{k:>12}" for k in (*METRICS, "refusal")))
    for k, r in rep.sets.items():
        typer.echo(f"{k:<14}" + "".join(f"{r.metrics[x]:>12.4f}" for x in (*METRICS, "refusal")))
    line = (f"MU {rep.mu:.4f}  FE {rep.fe:.4f}  (both in [0, 1]; MU higher = more utility kept, FE higher = "
            "more forgotten)")
    if rep.forget_quality is not None:
        line += f"  Forget Quality {rep.forget_quality:.4g}"
    typer.echo(line)
    if json_out is not None:
        from iclr25.core.runtime import atomic_write
        payload = {"summary": rep.summary(),
                   "generations": {k: r.generations for k, r in rep.sets.items()}}
        with atomic_write(json_out, "w") as f:
            json.dump(payload, f, indent=1)


@app.command()
def continual(
    model: Annotated[str, typer.Option(help=MODEL_HELP)],
    forget: Annotated[Path, typer.Option(help="JSON lines with a 'task_id' per row: tasks run in "
                                              "ascending task order")],
    out: Annotated[Path, typer.Option("--out", "-o", help="where to save the final model (.pt)")],
    retain: Annotated[Path | None, typer.Option(help="JSON lines: facts to keep (needed by +gd/+kl/+ap)")]
    = None,
    method: Annotated[str, typer.Option(help=METHOD_HELP)] = "me+gd",
    ref: Annotated[str, typer.Option(help="reference of NPO/DPO/KL: previous (moves each task) | initial")]
    = "previous",
    beta: Annotated[float, typer.Option(help="beta of NPO / DPO / AP")] = 0.1,
    epochs: Annotated[int, count("unlearning epochs per task (passes over the task's forget "
                                 "rows)", 10_000)] = 5,
    lr: Annotated[float | None, typer.Option(help="AdamW learning rate (default: 1e-3 for a TinyGPT, 1e-5 "
                                                  "otherwise)")] = None,
    seed: Seed = 0,
) -> None:
    """Unlearn the tasks of the forget file one after another, each from the previous model."""
    from iclr25.core.runtime import pin_threads
    from iclr25.llm_unlearning.checkpoints import default_lr
    from iclr25.llm_unlearning.data import load_tofu
    from iclr25.llm_unlearning.unlearn import REFERENCES, continual_unlearn
    pin_threads()
    _check_method(method)
    finite(beta, "--beta", 0, 1e6, low_open=True)
    finite(lr, "--lr", 0, 10, low_open=True)
    if ref not in REFERENCES:
        raise UserError(f"--ref: unknown reference {ref!r}; choose from {', '.join(REFERENCES)}")
    if "+" in method and retain is None:
        raise UserError(f"--retain is required by method {method!r}")
    out = output_path(out, "--out")
    rows = load_tofu(forget, "--forget file")
    tasks: dict[str, list] = {}
    for r in rows:
        tasks.setdefault(str(r.get("task_id", "1")), []).append(r)
    order = sorted(tasks, key=lambda t: (not t.isdigit(), int(t) if t.isdigit() else 0, t))
    r_rows = load_tofu(retain, "--retain file") if retain is not None else []
    m = _load_model(model)
    cfg = _config(method, beta, epochs, default_lr(m) if lr is None else lr, seed)
    final = continual_unlearn(m, None, [tasks[t] for t in order], r_rows, ref=ref, config=cfg,
                              after_task=lambda i, _: typer.echo(f"task {order[i]} done"))
    _save(final, out)
    typer.echo(f"{method} ({ref} reference): unlearned {len(order)} tasks -> {out}")
