"""`iclr25 rm_bench ...`: score a reward model on RM-Bench and read its style-substance matrix.

    iclr25 rm_bench eval --data DIR --scorer length -o res.json     # a built-in scorer
    iclr25 rm_bench eval --data DIR --policy dpo.gguf --ref sft.gguf -o res.json   # a DPO model
    iclr25 rm_bench export --data DIR -o todo.jsonl                 # rows to score with your own RM
    iclr25 rm_bench score --data DIR --scores done.jsonl -o res.json
    iclr25 rm_bench report res.json --plot matrix.png --worst 10
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from iclr25.core.errors import UserError
from iclr25.core.options import Seed, count

app = typer.Typer(help="RM-Bench: style-substance accuracy (Easy / Normal / Hard) of reward models.",
                  no_args_is_help=True, add_completion=False)

SCORERS = ("length", "neg-length", "markdown", "random", "minilm", "bt-tfidf", "bt-minilm", "bt-tfidf-all",
           "bt-minilm-all", "smollm2", "smollm2-sum", "hf", "dpo")
ROLES = ("chosen", "rejected")
MAX_SCORE_ROWS = 2_000_000

DataOpt = Annotated[Path, typer.Option("--data", help="folder with RM-Bench's per-domain files (or "
                                                      "total_dataset.json), or one such file")]
DomainsOpt = Annotated[str | None, typer.Option(help="comma-separated domains to keep: chat, code, math, "
                                                     "safety (both safety files), safety-refuse, "
                                                     "safety-response (default: all found)")]
TiesOpt = Annotated[str, typer.Option(help="strict: a tie counts as wrong (the paper); half: as 1/2")]


def _check_ties(ties: str) -> str:
    if ties not in ("strict", "half"):
        raise UserError(f"--ties must be strict or half, got {ties[:40]!r}")
    return ties


def make_scorer(name: str, seed: int = 0, model_dir: Path | None = None, policy: str | None = None,
                ref: str | None = None, ref_free: str = "avg", max_tokens: int = 256, batch: int = 4) -> Any:
    """The scorer behind a CLI name."""
    from iclr25.rm_bench import scorers
    if name not in SCORERS:
        raise UserError(f"unknown scorer {name[:40]!r}; choose from {', '.join(SCORERS)}")
    if name == "hf" and model_dir is None:
        raise UserError("--scorer hf needs --model-dir (a local Hugging Face sequence-classification RM)")
    if name == "dpo":
        if policy is None:
            raise UserError("--scorer dpo needs --policy (the DPO-trained model) and, for the paper's "
                            "reward, --ref (the model it was trained from)")
        from iclr25.rm_bench.implicit import dpo_scorer
        return dpo_scorer(policy, ref, ref_free, max_tokens, batch)
    if policy is not None or ref is not None:
        raise UserError(f"--policy/--ref are for --scorer dpo, not {name[:40]!r}")
    if name.startswith("bt-"):
        from iclr25.rm_bench.bt import BTRewardModel
        _, features, *pairs = name.split("-")
        return BTRewardModel(features, "all" if pairs else "diagonal", seed=seed)
    if name.startswith("smollm2"):
        from iclr25.rm_bench.implicit import SmolLM2Scorer
        return SmolLM2Scorer("sum" if name.endswith("sum") else "avg")
    if name == "hf":
        from iclr25.rm_bench.implicit import HFSequenceClassifierScorer
        return HFSequenceClassifierScorer(model_dir)
    return {"length": scorers.Length(), "neg-length": scorers.NegLength(), "markdown": scorers.Markdown(),
            "random": scorers.Random(seed), "minilm": scorers.MiniLMRelevance()}[name]


def format_result(res: dict[str, Any]) -> str:
    """The per-domain Easy / Normal / Hard / Avg table and the overall 3×3 matrix, as text."""
    import numpy as np
    lines = [f"{'domain':<10}{'n':>5}{'Easy':>8}{'Normal':>8}{'Hard':>8}{'Avg':>8}"]
    for d, r in res["domains"].items():
        lines.append(f"{d:<10}{r['n']:>5}{r['easy']:>8.1f}{r['normal']:>8.1f}{r['hard']:>8.1f}{r['avg']:>8.1f}")
    o = res["overall"]
    lines.append(f"{'overall':<10}{'':>5}{o['easy']:>8.1f}{o['normal']:>8.1f}{o['hard']:>8.1f}"
                 f"{o['avg']:>8.1f}")
    m = np.mean([np.asarray(r["matrix"], dtype=float) for r in res["domains"].values()], axis=0)
    lines += ["", "overall matrix (rows: chosen style, columns: rejected style; upper triangle = Hard)",
              f"{'':<10}{'concise':>9}{'plain':>9}{'markdown':>9}"]
    for name, row in zip(("concise", "plain", "markdown"), m, strict=True):
        lines.append(f"{name:<10}" + "".join(f"{x:>9.1f}" for x in row))
    lines.append("chance (a random scorer): 50.0 at every level; below 50 on Hard, the RM prefers a wrong "
                 "answer in a more formatted style")
    lines.append("paper, best RM (Skywork-Reward-Llama-3.1-8B): Easy 89.0, Normal 74.7, Hard 46.6, Avg 70.1")
    return "\n".join(lines)


def _write(res: dict[str, Any], out: Path) -> None:
    from iclr25.core.runtime import atomic_write
    with atomic_write(out, "w") as f:
        json.dump(res, f, indent=1)


@app.command("eval")
def eval_(
    data: DataOpt,
    scorer: Annotated[str | None, typer.Option(help=f"one of: {', '.join(SCORERS)} (default: length, or dpo "
                                                    "with --policy)")] = None,
    out: Annotated[Path, typer.Option("-o", "--out", help="results JSON to write (with every item's "
                                                          "scores)")] = Path("rmbench.json"),
    domains: DomainsOpt = None,
    ties: TiesOpt = "strict",
    model_dir: Annotated[Path | None, typer.Option(help="local Hugging Face reward model (for --scorer hf)")]
    = None,
    policy: Annotated[str | None, typer.Option(help="DPO policy for --scorer dpo: smollm2, a Llama .gguf "
                                                    "file or a TinyGPT checkpoint")] = None,
    ref: Annotated[str | None, typer.Option(help="its reference model (the one DPO started from), in the "
                                                 "same forms; without it the reward is reference-free")]
    = None,
    ref_free: Annotated[str, typer.Option(help="reference-free reward without --ref: avg (mean token "
                                               "log-prob, rewardbench's default) or sum")] = "avg",
    max_tokens: Annotated[int, count("response tokens scored by --scorer dpo (the rest is cut)", 4096)] = 256,
    batch_size: Annotated[int, count("sequences per forward pass for --scorer dpo", 1024)] = 4,
    seed: Seed = 0,
) -> None:
    """Score every response with a built-in scorer or a DPO model and write the style-substance results."""
    from iclr25.core.io import output_path
    from iclr25.core.runtime import pin_threads
    from iclr25.rm_bench.data import load_rmbench
    from iclr25.rm_bench.metric import evaluate_scores, item_scores, per_item
    pin_threads()
    _check_ties(ties)
    if ref_free not in ("avg", "sum"):
        raise UserError(f"--ref-free must be avg or sum, got {ref_free[:40]!r}")
    if ref is not None and policy is None:
        raise UserError("--ref needs --policy (the DPO-trained model it is compared with)")
    name = scorer or ("dpo" if policy is not None else "length")
    if str(out) != "-":
        output_path(out, "results", (".json",))
    items = load_rmbench(data, domains)
    model = make_scorer(name, seed, model_dir, policy, ref, ref_free, max_tokens, batch_size)
    ch, rej = item_scores(model, items)
    res = {"scorer": getattr(model, "name", name) if name == "dpo" else name, "items": len(items),
           **evaluate_scores(items, ch, rej, ties), "per_item": per_item(items, ch, rej, ties)}
    if name == "dpo":
        res["models"] = {"policy": str(policy), "ref": None if ref is None else str(ref),
                         "max_response_tokens": max_tokens}
    _write(res, out)
    typer.echo(format_result(res), err=str(out) == "-")
    typer.echo(f"wrote {out}", err=str(out) == "-")


@app.command()
def export(
    data: DataOpt,
    out: Annotated[Path, typer.Option("-o", "--out", help="JSONL file of rows to score")]
    = Path("todo.jsonl"),
    domains: DomainsOpt = None,
) -> None:
    """Write one JSONL row per response (id, domain, role, style, prompt, response) to score elsewhere.

    Add a numeric "score" to each row and read the file back with `score`."""
    from iclr25.core.io import output_path
    from iclr25.core.runtime import atomic_write
    from iclr25.rm_bench.data import STYLES, load_rmbench
    output_path(out, "export", (".jsonl",))
    items = load_rmbench(data, domains)
    with atomic_write(out, "w") as f:
        for it in items:
            for role in ROLES:
                for style, y in zip(STYLES, getattr(it, role), strict=True):
                    f.write(json.dumps({"id": it.id, "domain": it.domain, "role": role, "style": style,
                                        "prompt": it.prompt, "response": y}) + "\n")
    typer.echo(f"wrote {6 * len(items)} rows ({len(items)} items) to {out}")


def read_scores(path: Path, items: list) -> tuple[Any, Any]:
    """(chosen (n, 3), rejected (n, 3)) from a JSONL of rows with id, domain, role, style and score."""
    import numpy as np

    from iclr25.rm_bench.data import STYLES
    if not path.is_file():
        raise UserError(f"scores file not found: {path}")
    row_of = {(it.domain, it.id): i for i, it in enumerate(items)}
    scores = np.full((len(items), 2, 3), np.nan)
    with open(path, encoding="utf-8", errors="replace") as f:
        for k, line in enumerate(f, 1):
            if k > MAX_SCORE_ROWS:
                raise UserError(f"{path} has more than {MAX_SCORE_ROWS:,} rows")
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except (ValueError, RecursionError):
                raise UserError(f"{path} line {k} is not valid JSON") from None
            if not isinstance(r, dict) or any(c not in r for c in ("id", "domain", "role", "style", "score")):
                raise UserError(f"{path} line {k} needs id, domain, role, style and score")
            key = (str(r["domain"]), str(r["id"]))
            if key not in row_of:
                raise UserError(f"{path} line {k}: no item {key[1][:40]!r} in domain {key[0][:40]!r}")
            if r["role"] not in ROLES or r["style"] not in STYLES:
                raise UserError(f"{path} line {k}: role must be chosen/rejected and style one of "
                                f"{', '.join(STYLES)}")
            s = r["score"]
            if isinstance(s, bool) or not isinstance(s, int | float) or not math.isfinite(s):
                raise UserError(f"{path} line {k}: score must be a finite number, got {str(s)[:40]!r}")
            scores[row_of[key], ROLES.index(r["role"]), STYLES.index(r["style"])] = float(s)
    missing = np.argwhere(np.isnan(scores))
    if len(missing):
        i, role, style = missing[0]
        it = items[i]
        raise UserError(f"{path} lacks the score of {it.domain} id {it.id!r} {ROLES[role]} {STYLES[style]} "
                        f"({len(missing)} missing)")
    return scores[:, 0], scores[:, 1]


@app.command()
def score(
    data: DataOpt,
    scores: Annotated[Path, typer.Option(help="JSONL rows from `export`, each with a numeric \"score\"")],
    out: Annotated[Path, typer.Option("-o", "--out", help="results JSON to write")] = Path("rmbench.json"),
    domains: DomainsOpt = None,
    ties: TiesOpt = "strict",
) -> None:
    """Read scores from your own reward model (one per exported row) and write the results."""
    from iclr25.core.io import output_path
    from iclr25.rm_bench.data import load_rmbench
    from iclr25.rm_bench.metric import evaluate_scores, per_item
    _check_ties(ties)
    output_path(out, "results", (".json",))
    items = load_rmbench(data, domains)
    ch, rej = read_scores(scores, items)
    res = {"scorer": f"file:{scores.name}", "items": len(items), **evaluate_scores(items, ch, rej, ties),
           "per_item": per_item(items, ch, rej, ties)}
    _write(res, out)
    typer.echo(format_result(res))
    typer.echo(f"wrote {out}")


@app.command()
def report(
    results: Annotated[Path, typer.Argument(help="results JSON written by eval or score")],
    plot: Annotated[Path | None, typer.Option(help="draw the 3×3 style matrices (overall and per domain) as "
                                                   "a heat map: .png, .pdf or .svg")] = None,
    worst: Annotated[int, count("list the N items the reward model gets most wrong (needs the per-item "
                                "scores eval and score write)", 100_000, low=0)] = 0,
) -> None:
    """Print the Easy / Normal / Hard table and the overall matrix of a results file; draw it, and list the
    items that fail."""
    from iclr25.core.io import output_path, read_json
    from iclr25.rm_bench.metric import aggregate
    if plot is not None:
        output_path(plot, "--plot", (".png", ".pdf", ".svg"))
    res = read_json(results, "results")
    try:
        per = {d: {"matrix": r["matrix"], "n": r["n"]} for d, r in res["domains"].items()}
        checked = aggregate(per)  # recomputed, so a hand-edited file cannot print inconsistent numbers
        import numpy as np
        if not all(np.isfinite(np.asarray(r["matrix"], dtype=float)).all() for r in per.values()):
            raise ValueError
    except (KeyError, TypeError, ValueError, AttributeError):
        raise UserError(f"{results} is not an rm_bench results file (from eval or score)") from None
    typer.echo(f"scorer: {str(res.get('scorer', '?'))[:80]}, ties: {str(res.get('ties', '?'))[:10]}")
    typer.echo(format_result(checked))
    if worst:
        _print_worst(res.get("per_item"), worst, results)
    if plot is not None:
        from iclr25.rm_bench.plots import style_heatmap
        style_heatmap(checked, plot, str(res.get("scorer", ""))[:60])
        typer.echo(f"wrote {plot}")


def _print_worst(rows: Any, n: int, path: Path) -> None:
    """The n items with the fewest style pairs ordered right (ties broken by id)."""
    ok = isinstance(rows, list) and all(isinstance(r, dict) and {"id", "domain", "correct", "hard"} <= set(r)
                                        and isinstance(r["correct"], int | float) for r in rows)
    if not ok or not rows:
        raise UserError(f"{path} has no per-item scores (results from an older version?); run eval or score "
                        "again to list the failing items")
    rows = sorted(rows, key=lambda r: (float(r["correct"]), str(r["domain"]), str(r["id"])))[:n]
    typer.echo(f"\nthe {len(rows)} items ordered right in the fewest of the 9 (chosen, rejected) style "
               "pairs:")
    typer.echo(f"{'domain':<16}{'id':<14}{'right of 9':>11}{'Easy':>7}{'Normal':>8}{'Hard':>7}")
    for r in rows:
        typer.echo(f"{str(r['domain'])[:15]:<16}{str(r['id'])[:13]:<14}{r['correct']:>11g}"
                   f"{float(r.get('easy', float('nan'))):>7.0f}{float(r.get('normal', float('nan'))):>8.0f}"
                   f"{float(r['hard']):>7.0f}")
