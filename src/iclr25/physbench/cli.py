"""`iclr25 physbench ...`: score predictions with the official rule, evaluate a served VLM (optionally
wrapped in PhysAgent), and generate PhysBench-Synth.

    iclr25 physbench score --pred preds.json --gt val_answer.json
    iclr25 physbench eval --data ./PhysBench --split val --base-url http://127.0.0.1:8000/v1 --model NAME
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
    json_out: Annotated[
        Path | None, typer.Option("--json", help="also write the report as JSON here")
    ] = None,
) -> None:
    """Score predictions with the official rule (pred == gt or pred.startswith(gt), over submitted rows)
    and print accuracy overall and per domain / sub-type / ability / mode."""
    import json

    from iclr25.physbench.scoring import score as score_fn

    if json_out is not None:
        output_path(json_out, "--json", (".json",))
    rep = score_fn(read_json(pred, "--pred"), read_json(gt, "--gt"), lenient=lenient)
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
            help="wrap the model in PhysAgent (router, experts, knowledge, 3-run self-verification)"
        ),
    ] = False,
    n_frames: Annotated[int, count("frames sampled uniformly per video", 64)] = 8,
    limit: Annotated[int | None, count("ask only the first N questions", 100_000)] = None,
    out: Annotated[Path | None, typer.Option(help="write the predictions (EvalAI format) here")] = None,
    api_key: Annotated[
        str | None, typer.Option(envvar="OPENAI_API_KEY", help="bearer token, if the server needs one")
    ] = None,
    timeout: Annotated[float, typer.Option(help="seconds per request")] = 60.0,
) -> None:
    """Ask a served VLM every question (8 uniform frames per video, the official prompt), write the
    submission file, and score it when the answers are in the folder."""
    from iclr25.core.runtime import pin_threads
    from iclr25.physbench.evaluate import OpenAICompatibleVLM, evaluate
    from iclr25.physbench.harness import load
    from iclr25.physbench.scoring import check_answers, write_submission

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
        from iclr25.physbench.depthnet import DepthNet
        from iclr25.physbench.experts import BlobDetector
        from iclr25.physbench.knowledge import KnowledgeMemory

        runner = PhysAgent(
            vlm, {"detector": BlobDetector(), "depth": DepthNet().fit()}, KnowledgeMemory.default()
        )
    preds, rep = evaluate(runner, items, answers, n_frames=n_frames)
    typer.echo(f"asked {len(items)} questions ({vlm.calls} model calls)")
    if rep is not None:
        typer.echo(rep.table())
    if out is not None:
        write_submission(preds, out)
        typer.echo(f"wrote {out}")


@app.command()
def synth(
    out: Annotated[Path, typer.Option(help="folder to write test.json, val_answer.json, image/, video/")],
    n: Annotated[int, count("number of items", 200_000)] = 2000,
    seed: Seed = 0,
    part: Annotated[
        str, typer.Option(help="train | test: which half of the attribute table's objects")
    ] = "test",
) -> None:
    """Generate PhysBench-Synth in the official layout (videos as mp4 via PyAV)."""
    from iclr25.physbench import synth as synth_mod

    output_dir(out, "--out")
    s = synth_mod.generate(n, seed=seed, part=part)
    synth_mod.write(s, out)
    typer.echo(f"wrote {n} items to {out}")
