"""`iclr25 physbench ...`: score predictions with the official rule, evaluate a served VLM (optionally
wrapped in PhysAgent), and generate PhysBench-Synth.

    iclr25 physbench score --pred preds.json --gt val_answer.json
    iclr25 physbench eval --data ./PhysBench --split val --base-url http://127.0.0.1:8000/v1 --model NAME
    iclr25 physbench eval ... --grid          # single-image models: 2x2 grid of the video frames
    iclr25 physbench synth --n 2000 --out synth/
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_dir, output_path, read_json
from iclr25.core.options import Seed, count, finite

app = typer.Typer(
    help="PhysBench: official scoring, evaluation of a served VLM (+ PhysAgent), PhysBench-Synth.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command()
def score(
    pred: Annotated[Path, typer.Option(help="predictions: JSON list of {idx, answer} (the EvalAI format)")],
    gt: Annotated[
        Path,
        typer.Option(
            help="answers: JSON list of {idx, answer, task_type, sub_type, "
            "ability_type, mode} (e.g. val_answer.json)"
        ),
    ],
    lenient: Annotated[
        bool,
        typer.Option(
            help="extract a letter from free-form replies first (not the "
            "official rule; default: official strict rule)"
        ),
    ] = False,
    json_out: Annotated[Path | None, typer.Option("-o", "--out", help="also write the report as JSON here")
                        ] = None,
    json_alias: Annotated[Path | None, typer.Option("--json", hidden=True)] = None,
    all_rows: Annotated[
        bool,
        typer.Option(help="also count answer rows without a prediction as wrong (the official denominator "
                          "is the submitted rows only)"),
    ] = False,
) -> None:
    """Score predictions with the official rule (pred == gt or pred.startswith(gt), over submitted rows)
    and print accuracy overall and per domain / sub-type / ability / mode."""
    import json

    from iclr25.physbench.scoring import score as score_fn

    json_out = json_out if json_alias is None else json_alias  # --json: the old spelling of -o/--out
    if json_out is not None:
        output_path(json_out, "--out", (".json",))
    preds, truth = read_json(pred, "--pred"), read_json(gt, "--gt")
    rep = score_fn(preds, truth, lenient=lenient, missing="wrong" if all_rows else "drop")
    n_truth = len(truth) if isinstance(truth, list) else 0
    n_pred = len(preds) if isinstance(preds, list) else 0
    if not all_rows and n_pred < n_truth:
        typer.echo(f"note: {n_truth - n_pred} answer rows have no prediction; the official rule leaves them "
                   f"out "
                   "of the denominator (--all-rows counts them wrong)")
    typer.echo(rep.table())
    if json_out is not None:
        json_out.write_text(json.dumps(rep.to_dict(), indent=1))
        typer.echo(f"wrote {json_out}")


@app.command("eval")
def eval_(
    data: Annotated[
        Path,
        typer.Option(
            help="PhysBench folder in the official layout (test.json, image/, "
            "video/; val_answer.json for scores)"
        ),
    ],
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")],
    model: Annotated[str, typer.Option(help="model name the server expects")],
    split: Annotated[str, typer.Option(help="val | test")] = "val",
    mode: Annotated[str, typer.Option(help="general (all) | image&video | image-only")] = "general",
    agent: Annotated[
        bool,
        typer.Option(
            help="wrap the model in PhysAgent: its tools' notes (facts, the option they point to) go into "
            "the prompt and the model answers (one call per question)"
        ),
    ] = False,
    grid: Annotated[
        bool,
        typer.Option(help="single-image models: tile each video's frames into one numbered 2x2 image "
                          "(the official harness's grid, with its prompt prefix)"),
    ] = False,
    n_frames: Annotated[int, count("frames sampled uniformly per video", 64)] = 8,
    limit: Annotated[int | None, count("ask only the first N questions", 100_000)] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the predictions (EvalAI format) "
                                                                   "here")] = None,
    api_key: Annotated[
        str | None, typer.Option(envvar="OPENAI_API_KEY", help="bearer token, if the server needs one")
    ] = None,
    timeout: Annotated[float, typer.Option(help="seconds per request")] = 60.0,
) -> None:
    """Ask a served VLM every question (8 uniform frames per video, the official prompt), write the
    submission file, and score it when the answers are in the folder: the official strict rule and a
    lenient letter extraction side by side. A failed request leaves its question unanswered (counted
    wrong); the run stops only when the first three requests fail."""
    from iclr25.core.runtime import pin_threads
    from iclr25.physbench.evaluate import OpenAICompatibleVLM, evaluate
    from iclr25.physbench.harness import load
    from iclr25.physbench.scoring import check_answers, lenient_letter, score, write_submission

    finite(timeout, "--timeout", 0.0, 3600.0, low_open=True)
    if out is not None:
        output_path(out, "--out", (".json",))
    vlm = OpenAICompatibleVLM(base_url, model, api_key=api_key, timeout=timeout)
    items = load(data, split, mode)[:limit]
    answers = None
    ans_path = data / f"{split}_answer.json"
    if ans_path.is_file():
        answers = list(check_answers(read_json(ans_path, str(ans_path)), str(ans_path)).values())
        known = {a["idx"] for a in answers}
        items = [it for it in items if it.idx in known]
        if not items:
            raise UserError(f"no question in {data / 'test.json'} has an answer in {ans_path}")
    runner = vlm
    if agent:
        pin_threads()
        from iclr25.physbench.agent import PhysAgent

        runner = PhysAgent(vlm, mode="prompted", n_frames=n_frames, grid=grid)
    preds, _ = evaluate(runner, items, None, n_frames=n_frames, grid=grid, skip_failures=True)
    unanswered = len(items) - len(preds)
    no_letter = sum(1 for p in preds.values() if not lenient_letter(p))
    typer.echo(f"asked {len(items)} questions with {vlm.calls} model calls"
               + (f" ({'2x2 grid' if grid else f'{n_frames} frames'} per video)"))
    if unanswered:
        typer.echo(f"warning: {unanswered} requests failed; those questions have no prediction and are "
                   "counted wrong", err=True)
    if answers is not None:
        asked = [a for a in answers if a["idx"] in {it.idx for it in items}]
        strict = score(preds, asked, missing="wrong")
        loose = score(preds, asked, lenient=True, missing="wrong")
        typer.echo(f"official rule (pred == gt or pred.startswith(gt)): {strict.overall:.2f} "
                   f"({strict.correct}/{strict.total}); lenient letter extraction (not official): "
                   f"{loose.overall:.2f} ({loose.correct}/{loose.total}); chance 25.00")
        if no_letter:
            typer.echo(f"{no_letter} replies hold no answer letter at all")
        if loose.correct > strict.correct:
            typer.echo("note: replies are not bare letters ('The answer is B.'); the official rule scores "
                       "them wrong, the lenient row reads the letter")
        typer.echo(strict.table())
        if strict.overall <= 25.0:
            typer.echo("warning: the model does not beat chance (25 %) under the official rule", err=True)
    if out is not None:
        write_submission({i: lenient_letter(p) or p for i, p in preds.items()}, out)
        typer.echo(f"wrote {out} (replies reduced to their letter where one was found)")


@app.command()
def synth(
    out: Annotated[Path, typer.Option("-o", "--out", help="folder to write test.json, val_answer.json, "
                                                         "image/, video/")],
    n: Annotated[int, count("number of items", 200_000)] = 2000,
    seed: Seed = 0,
    part: Annotated[
        str, typer.Option(help="train | test: which half of the attribute table's objects")
    ] = "test",
    heldout: Annotated[
        bool, typer.Option(help="held-out wordings and scene parameters outside the training ranges (an "
                                "evaluation set no model was trained on)")
    ] = False,
) -> None:
    """Generate PhysBench-Synth in the official layout (videos as mp4 via PyAV)."""
    from iclr25.physbench import synth as synth_mod

    output_dir(out, "--out")
    s = synth_mod.generate(n, seed=seed, part=part, heldout=heldout)
    synth_mod.write(s, out)
    typer.echo(f"wrote {n} items to {out}" + (" (held-out wordings and scenes)" if heldout else ""))
