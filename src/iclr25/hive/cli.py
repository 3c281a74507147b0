"""`iclr25 hive ...`: run a request over your models, plan over PDDL domains, evaluate on MuSE.

iclr25 hive run "Transcribe ./talk.wav and summarise it" --registry m.jsonl --prefs p.json -o out.md
iclr25 hive plan --domain-dir DIR --domains audio summarisation --goal "(AbstractSummary input_text)"
iclr25 hive muse-eval --system hive --backend minilm
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.options import Seed, count, finite

app = typer.Typer(
    help="Hive (ICLR 2025): explainable PDDL plans over many models under your constraints.",
    no_args_is_help=True,
    add_completion=False,
)

PLANNER_HELP = "pyperplan | lapkt-bfws (the paper's 1-BFWS) | fast-downward"
BACKEND_HELP = "minilm | smollm2 | openai (needs --url and --model)"


def _domains(domain_dir: Path | None):
    from iclr25.hive.muse import load_domains

    return load_domains(domain_dir)


def _check_choice(value: str, choices: tuple[str, ...], option: str) -> str:
    if value not in choices:
        raise UserError(f"{option} must be one of {', '.join(choices)}, got {value[:40]!r}")
    return value


@app.command()
def run(
    query: Annotated[
        str,
        typer.Argument(
            help="the request; media paths in it (./talk.wav, ./cat.jpg) and text files (./memo.txt) are "
            "read relative to --base-dir"
        ),
    ],
    registry: Annotated[
        Path | None,
        typer.Option(
            help="model cards, one JSON per line (id, task, license, "
            "params, downloads, scores); default: the C-KG excerpt "
            "when the shared data is present"
        ),
    ] = None,
    prefs: Annotated[
        Path | None,
        typer.Option(
            help='preferences JSON: {"licenses": [...] | "any_license", '
            '"size": "no_constraints" | "7B", "benchmarks": '
            "{task: {dataset: metric}}} (default: none)"
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("-o", "--out", help="write the 7-section Markdown report here (.md)")
    ] = None,
    report: Annotated[Path | None, typer.Option("--report", hidden=True)] = None,
    backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "minilm",
    url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    ] = None,
    model: Annotated[str | None, typer.Option(help="model name at --url")] = None,
    planner: Annotated[str, typer.Option(help=PLANNER_HELP)] = "lapkt-bfws",
    domain_dir: Annotated[
        Path | None,
        typer.Option(help="folder of PDDL domain files (default: the shipped 10 domains in the shared data)"),
    ] = None,
    base_dir: Annotated[Path, typer.Option(help="folder the query's media paths are relative to")] = Path(
        "."
    ),
    out_dir: Annotated[Path, typer.Option(help="folder for the produced images and audio")] = Path(
        "hive-out"
    ),
    tau_domain: Annotated[float | None, typer.Option(
        help="keep the domains scoring within this margin of a part's best (default: per backend, fitted "
             "on MuSE)")] = None,
    tau_action: Annotated[float | None, typer.Option(
        help="keep the actions scoring within this margin of a part's best action")] = None,
    tau_part: Annotated[float | None, typer.Option(
        help="skip a part of the request whose best action scores below this (it is reported)")] = None,
) -> None:
    """Plan, select models under your preferences, execute, and report. The request is split into parts
    (sentences, "and", "then", commas) and each part is matched on its own.

    Exit status: 0 when every part of the request ran on a real local model; 1 when something was not
    done (a part matched no action, or a step had no local model and a stub returned a placeholder):
    each is named on stderr and in the report; 2 on bad input."""
    from iclr25.core.io import output_dir, output_path
    from iclr25.hive.backends import BACKENDS, make_backend
    from iclr25.hive.executors import local_cards
    from iclr25.hive.hive import Hive, HiveConfig
    from iclr25.hive.muse import data_root
    from iclr25.hive.planners import PLANNERS
    from iclr25.hive.registry import Preferences, Registry

    if not query.strip():
        raise UserError("the query is empty")
    _check_choice(backend, BACKENDS, "--backend")
    _check_choice(planner, PLANNERS, "--planner")
    for v, name in ((tau_domain, "--tau-domain"), (tau_action, "--tau-action"), (tau_part, "--tau-part")):
        finite(v, name)
    report = out or report
    if report is not None:
        output_path(report, "report", (".md",))
    output_dir(out_dir, "--out-dir")
    p = Preferences.load(prefs) if prefs is not None else Preferences()
    if registry is not None:
        cards = Registry.from_jsonl(registry).models
    else:
        root = data_root()
        cards = Registry.from_kg_files(root / "C-KG_excerpt" / "src").models if root else []
    known = {c.id for c in cards}
    reg = Registry(cards + [c for c in local_cards() if c.id not in known])
    config = HiveConfig(planner=planner, tau_domain=tau_domain, tau_action=tau_action, tau_part=tau_part)
    hive = Hive(make_backend(backend, url, model), reg, _domains(domain_dir), config=config)
    res = hive.run(query, p, base_dir=base_dir, out_dir=out_dir)
    for i, a in enumerate(res.flow.order, 1):
        sel = res.models[a]
        o = res.outputs[i - 1]
        src = res.flow.inputs_of(a)
        reads = f"step {res.flow.order.index(src[0]) + 1}" if src else "the request"
        ran = f"a stub ({o.note})" if o.stub else o.note
        typer.echo(f"{i}. {a} (reads {reads}): selected {sel.model.id.split('#')[0]} [{sel.model.license}]; "
                   f"ran {ran} -> {o.modality}: {o.preview(100)}")
    if report is not None:
        report.write_text(res.report.to_markdown(), encoding="utf-8")
        typer.echo(f"report: {report}")
    if res.unmet:
        for u in res.unmet:
            typer.echo(f"not done: {u}", err=True)
        raise typer.Exit(1)


@app.command()
def plan(
    domains: Annotated[
        list[str],
        typer.Option(help="domains to merge (names inside the files), e.g. --domains audio summarisation"),
    ],
    goal: Annotated[
        str,
        typer.Option(
            help='goal atoms, e.g. "(AbstractSummary input_text)" or "(and (A x) '
            '(B y))"; objects are typed from the predicates'
        ),
    ],
    more: Annotated[
        list[str] | None, typer.Argument(help="more domain names (after --domains)", show_default=False)
    ] = None,
    domain_dir: Annotated[
        Path | None, typer.Option(help="folder of PDDL domain files (default: the shipped 10 domains)")
    ] = None,
    planner: Annotated[str, typer.Option(help=PLANNER_HELP)] = "pyperplan",
) -> None:
    """Merge domains, build the problem for a goal, plan, and print the plan and its data flow (which
    step reads which output; a step that needs a passage never reads a label). Goals of more than 12
    atoms are refused (planning time doubles with each independent atom)."""
    from iclr25.hive.pddl import merge_domains
    from iclr25.hive.planners import PLANNERS
    from iclr25.hive.planners import plan as make_plan
    from iclr25.hive.tasks import goal_problem

    _check_choice(planner, PLANNERS, "--planner")
    pool = _domains(domain_dir)
    names = [n.lower() for n in [*domains, *(more or [])]]
    unknown = [n for n in names if n not in pool]
    if unknown:
        raise UserError(f"unknown domain {unknown[0][:60]!r}; {', '.join(sorted(pool))} are loaded")
    merged = merge_domains([pool[n] for n in names])
    problem = goal_problem(merged, goal)
    result = make_plan(merged, problem, planner)
    typer.echo(f"; domain {merged.name}, {len(result.steps)} step(s), {planner}, {result.seconds:.3f} s")
    typer.echo(result.to_text())
    flow = result.dag(inputs=tuple({t for _, t in problem.objects} & {"text", "image", "audio"}))
    edges = [f"{a} -> {b}" for a, b in sorted(flow.edges)]
    own = [a for a in flow.order if not flow.inputs_of(a)]
    reads_input = ["reading the input: " + ", ".join(own)] if own else []
    typer.echo("; data flow: " + "; ".join([*edges, *reads_input]))


@app.command("muse-eval")
def muse_eval(
    system: Annotated[str, typer.Option(help="hive | hugginggpt | controlllm")] = "hive",
    backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "minilm",
    url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (backend openai)")] = None,
    model: Annotated[str | None, typer.Option(help="model name at --url")] = None,
    limit: Annotated[int, count("evaluate the first N queries", 100)] = 100,
    data_dir: Annotated[
        Path | None, typer.Option(help="the 07-hive data folder (default: the shared data)")
    ] = None,
    seed: Seed = 0,
) -> None:
    """Task selection (TS: exact task set) and flow of thought (FoT: the chained flow equals our gold DAG,
    multi-task queries) on MuSE, margins 2-fold cross-fitted; TS per #tasks and setting."""
    import numpy as np

    from iclr25.hive.backends import BACKENDS, make_backend
    from iclr25.hive.evaluation import cross_fitted, fot_hit, ts_hit
    from iclr25.hive.muse import data_root, load_domains, load_queries
    from iclr25.hive.routes import ROUTES, score_query

    _check_choice(system, ROUTES, "--system")
    _check_choice(backend, BACKENDS, "--backend")
    root = data_root(data_dir)
    if root is None or not (root / "MuSE_Benchmark").is_dir():
        raise UserError(
            f"MuSE not found: {root or 'the shared data folder 07-hive is absent'} (pass --data-dir)"
        )
    queries = load_queries(root)[:limit]
    if len(queries) < 2:
        raise UserError("cross-fitting needs at least 2 queries (--limit)")
    domains = load_domains(root / "PDDL-domain-files")
    b = make_backend(backend, url, model)
    from iclr25.core.runtime import progress

    scores = [score_query(b, q.text, domains) for q in progress(queries, "scoring")]
    all_preds, margins = cross_fitted(scores, queries, domains, seed)
    preds = all_preds[system]
    hits = [ts_hit(p, q) for p, q in zip(preds, queries, strict=True)]
    fitted = "; ".join(", ".join(f"{x:.3g}" for x in m) for m in margins[system])
    from collections import Counter

    common = Counter(frozenset(q.actions) for q in queries).most_common(1)[0][1] / len(queries)
    typer.echo(f"{system} on {backend}: TS {np.mean(hits):.1%} over {len(queries)} queries (always answering "
               f"the commonest task set: {common:.1%}; fitted margins per fold: {fitted})")
    for k in (1, 2, 3):
        sub = [h for h, q in zip(hits, queries, strict=True) if len(q.tasks) == k]
        if sub:
            typer.echo(f"  {k}-task: {np.mean(sub):.1%} (n={len(sub)})")
    multi = [(p, q) for p, q in zip(preds, queries, strict=True) if len(q.tasks) > 1]
    if multi:
        fot = [fot_hit(system, p, q, domains) for p, q in multi]
        typer.echo(f"  FoT (multi-task, chained flow = gold DAG): {np.mean(fot):.1%} (n={len(multi)})")
    for setting in sorted({q.setting for q in queries}):
        sub = [h for h, q in zip(hits, queries, strict=True) if q.setting == setting]
        typer.echo(f"  {setting}: {np.mean(sub):.1%} (n={len(sub)})")
