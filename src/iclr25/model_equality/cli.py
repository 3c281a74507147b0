"""`iclr25 model_equality ...`: test an API's completions against reference completions (JSONL rows
{"prompt", "completion"}), measure an effect size, sample a model and its distortions, estimate power."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.options import Seed, count, finite

MAX_L = 10_000  # characters (test, distance) or tokens (simulate) per completion
MAX_B = 100_000  # permutations / null simulations
MAX_PER_PROMPT = 10_000  # completions sampled per prompt
MAX_PROMPTS = 400  # the task's prompts are openings of the 401 held-out KJV verses of >= 20 words

app = typer.Typer(help="Model equality testing: is this API serving the model it claims?",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


def _length(length: int | None, old: int | None) -> int | None:
    """--length, or its old spelling --L (hidden)."""
    if length is not None and old is not None and length != old:
        raise UserError(f"give --length or its old spelling --L, not both (got {length} and {old})")
    return length if length is not None else old


LENGTH_HELP = "pad/truncate completions to this many characters (default: the longest)"
OldL = Annotated[int | None, typer.Option("--L", min=1, max=MAX_L, hidden=True)]


@app.command(epilog="Exit status: 0 whether or not H0 is rejected (read the 'decision:' line), unless "
                    "--fail-on-reject: then 1 when it is rejected; 2 on bad input.")
def test(
    ref: Annotated[Path, typer.Option(help="reference completions (JSONL: prompt, completion)")],
    api: Annotated[Path, typer.Option(help="the API's completions to the same prompts (JSONL)")],
    kernel: Annotated[str, typer.Option(
        help="two-sample: hamming | all_substrings | onehot | l1 | l2 | chi2; goodness of fit (needs a "
             "'logprob' field, the reference model's log-probability of each completion, in both files, "
             "and --pvalue null): g2 | pearson | gof_l1")] = "hamming",
    length: Annotated[int | None, count(LENGTH_HELP, MAX_L, flag="--length")] = None,
    old_l: OldL = None,
    b: Annotated[int, count("permutations or null simulations", MAX_B)] = 1000,
    alpha: Annotated[float, typer.Option(help="test level, in (0, 1)")] = 0.05,
    pvalue: Annotated[str, typer.Option(help="permutation | null (simulate from --ref; needs 2x the "
                                                 "API's samples per prompt)")] = "permutation",
    composite: Annotated[list[Path] | None, typer.Option(
        help="another acceptable reference (e.g. fp16 weights); reject only if all are rejected")] = None,
    denominator: Annotated[str, typer.Option(
        help="MMD normalisation: pairs (official code: each sum over its same-prompt pairs) | paper "
             "(Eq. 4: N(N-1), NM)")] = "pairs",
    fail_on_reject: Annotated[bool, typer.Option(help="exit with status 1 when H0 is rejected (for scripts); "
                                                      "default: 0 either way")] = False,
    seed: Seed = 0,
) -> None:
    """Test H0: the API samples from the reference model (same completion distribution per prompt).

    Exit status: 0 whether or not H0 is rejected, unless --fail-on-reject (then 1 on REJECT); 2 on bad
    input."""
    from iclr25.model_equality.encoding import read_jsonl, samples_from_rows
    from iclr25.model_equality.pvalues import PVALUE_METHODS, pool_test, two_sample_test
    from iclr25.model_equality.statistics import GOF_KINDS
    finite(alpha, "--alpha", 0.0, 1.0, low_open=True)
    stat = _statistic(kernel, denominator)
    if pvalue not in PVALUE_METHODS:
        raise UserError(f"unknown --pvalue {pvalue!r}; choose from {', '.join(PVALUE_METHODS)}")
    gof = kernel in GOF_KINDS
    if gof and pvalue != "null":
        raise UserError(f"--kernel {kernel} is a goodness-of-fit test: its null is simulated from the "
                        "reference file's completions and log-probabilities; use --pvalue null")
    L = _length(length, old_l)  # noqa: N806
    api_rows = read_jsonl(api, logprobs=gof)
    refs = [ref, *(composite or [])]
    ref_rows = [read_jsonl(r, logprobs=gof) for r in refs]
    if L is None:
        L = max(len(r[1]) for rows in [api_rows, *ref_rows] for r in rows)  # noqa: N806
    results = []
    for path, rows in zip(refs, ref_rows, strict=True):
        p, q, _ = samples_from_rows(rows, api_rows, L, names=(str(path), str(api)))
        if pvalue == "null":
            try:
                r = pool_test(p, q, stat, b=b, alpha=alpha, seed=seed)
            except UserError as e:
                raise UserError(f"{path}: {e}") from None
        else:
            r = two_sample_test(p, q, stat, "permutation", b=b, alpha=alpha, seed=seed)
        results.append(r)
        typer.echo(f"{path}: statistic {r.statistic:.6g}  p-value {r.pvalue:.4g}  "
                   f"({'reject' if r.reject else 'do not reject'} at alpha = {alpha})")
    reject = all(r.reject for r in results)
    prompts = len({r[0] for r in api_rows})
    typer.echo(f"kernel {kernel}, {prompts} prompts, {len(api_rows)} API completions, L = {L}, "
               f"{pvalue} p-values with b = {b}"
               + (f", {denominator} denominator" if hasattr(stat, "denominator") else ""))
    typer.echo("decision: " + ("REJECT: the API's completions do not match "
                               + ("any reference" if len(results) > 1 else "the reference")
                               if reject else "do not reject: consistent with "
                               + ("a reference" if len(results) > 1 else "the reference")))
    if reject and fail_on_reject:
        raise typer.Exit(1)


@app.command()
def distance(
    a: Annotated[Path, typer.Argument(help="JSONL completions")],
    b: Annotated[Path, typer.Argument(help="JSONL completions to the same prompts")],
    kernel: Annotated[str, typer.Option(help="hamming | all_substrings | onehot")] = "hamming",
    length: Annotated[int | None, count(LENGTH_HELP, MAX_L, flag="--length")] = None,
    old_l: OldL = None,
) -> None:
    """Effect size: sqrt(MMD^2) between two sets of completions (0 = indistinguishable, sqrt(2) = no
    symbol in common at any position)."""
    from iclr25.model_equality.encoding import read_jsonl, samples_from_rows
    from iclr25.model_equality.statistics import mmd_distance
    p, q, _ = samples_from_rows(read_jsonl(a), read_jsonl(b), _length(length, old_l), names=(str(a), str(b)))
    typer.echo(f"mmd distance ({kernel}): {mmd_distance(p, q, kernel):.6g} (0 = indistinguishable, "
               f"at most 1.414)")


@app.command("sample-size")
def sample_size(
    ref: Annotated[Path, typer.Option(help="reference completions (JSONL: prompt, completion)")],
    api: Annotated[Path, typer.Option(help="the API's completions to the same prompts (JSONL)")],
    kernel: Annotated[str, typer.Option(help="hamming | all_substrings | onehot | l1 | chi2")] = "hamming",
    length: Annotated[int | None, count(LENGTH_HELP, MAX_L, flag="--length")] = None,
    ns: Annotated[str | None, typer.Option(help="completions per prompt to try, e.g. 1,2,5,10 (default: ~8 "
                                                "values up to what the files allow)")] = None,
    sims: Annotated[int, count("simulations per sample size", 100_000)] = 100,
    b: Annotated[int, count("null simulations", MAX_B)] = 500,
    alpha: Annotated[float, typer.Option(help="test level, in (0, 1)")] = 0.05,
    target: Annotated[float, typer.Option(help="the power you want, in (0, 1)")] = 0.8,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the power-vs-N plot (PNG)")] = None,
    seed: Seed = 0,
) -> None:
    """How many samples do I need? Power of the test against your API sample at each N, by subsampling your
    two files (reference file: reference sample and null; API file: API sample), with the N that reaches
    --target. Power beside alpha: a test that sees no difference rejects at rate alpha."""
    from iclr25.core.io import output_path
    from iclr25.core.runtime import pin_threads
    from iclr25.model_equality import sample_size as ss
    from iclr25.model_equality.encoding import read_jsonl, samples_from_rows
    finite(alpha, "--alpha", 0.0, 1.0, low_open=True)
    finite(target, "--target", 0.0, 1.0, low_open=True)
    if out is not None:
        output_path(out, "--out plot", suffixes=(".png",))
    try:
        grid = [int(x) for x in ns.split(",")] if ns else None
    except ValueError:
        raise UserError(f"--ns must be comma-separated integers, e.g. 1,2,5,10; got {ns!r}") from None
    pin_threads()
    p, q, prompts = samples_from_rows(read_jsonl(ref), read_jsonl(api), length, names=(str(ref), str(api)),
                                      min_per_prompt=1)
    stat = _statistic(kernel, "pairs")
    points = ss.power_curve(p, q, stat, grid, sims=sims, b=b, alpha=alpha, seed=seed)
    small = int(q.counts().min())
    typer.echo(f"{kernel} test at alpha = {alpha}, {len(prompts)} prompts, L = {p.L} characters, {sims} "
               f"simulations each (a test that sees no difference rejects at {alpha})")
    typer.echo("n/prompt       N   power   ± 1.96 SE")
    for pt in points:
        flag = "  (over half of the API file: power of these files more than of the API)" \
            if 2 * pt.n_per_prompt > small else ""
        typer.echo(f"{pt.n_per_prompt:8d}  {pt.N:6d}   {pt.power:5.2f}   {1.96 * pt.stderr:5.2f}{flag}")
    hit = ss.needed(points, target)
    if hit is None:
        typer.echo(f"power {target:.0%} is not reached up to N = {points[-1].N} (what these files allow); "
                   "collect more completions of both")
    else:
        typer.echo(f"power {target:.0%} is reached at N = {hit.N} ({hit.n_per_prompt} per prompt)")
    if out is not None:
        ss.plot(points, out, alpha, target, f"{kernel}: {api.name} vs {ref.name}")
        typer.echo(f"wrote {out}")


@app.command()
def official(
    root: Annotated[Path, typer.Option(help="the released dataset's folder (with samples/)")],
    model: Annotated[str, typer.Option(help="e.g. meta-llama/Meta-Llama-3-8B-Instruct")],
    source: Annotated[str, typer.Option(
        help="fp32 | fp16 | nf4 | int8 | watermark (need --tokenizer) or an API: anyscale | amazon | "
             "fireworks | replicate | deepinfra | groq | perplexity | together | azure")],
    prompts: Annotated[str, typer.Option(help="dataset:id,id;dataset:id, e.g. wikipedia_en:0,1,4")],
    out: Annotated[Path, typer.Option("-o", "--out", help="JSONL to write (prompt, completion)")],
    tokenizer: Annotated[Path | None, typer.Option(help="the model's tokenizer.json (local sources hold "
                                                        "token ids)")] = None,
    eos_id: Annotated[int | None, typer.Option(min=0, help="end-of-sequence id (default: from the "
                                                           "tokenizer)")] = None,
) -> None:
    """Convert the paper's released samples (its dataset's samples/*.pkl layout) to our JSONL, for `test`,
    `distance` and `sample-size`. The pickles are read without running code (plain data only)."""
    from iclr25.core.io import output_path
    from iclr25.model_equality.official import parse_prompts, read_official
    output_path(out, "--out JSONL")
    rows = read_official(root, model, source, parse_prompts(prompts), tokenizer, eos_id)
    with out.open("w", encoding="utf-8") as f:
        for p, c in rows:
            f.write(json.dumps({"prompt": p, "completion": c}) + "\n")
    typer.echo(f"wrote {len(rows)} completions of {len({p for p, _ in rows})} prompts to {out}")


def _statistic(kernel: str, denominator: str):
    from iclr25.model_equality.statistics import DENOMINATORS, GOF_KINDS, STATISTICS, get_statistic
    if kernel in GOF_KINDS:
        return get_statistic(kernel)
    if denominator not in DENOMINATORS:
        raise UserError(f"unknown --denominator {denominator!r}; choose from {', '.join(DENOMINATORS)}")
    has = kernel in STATISTICS and "denominator" in STATISTICS[kernel].__dataclass_fields__
    return get_statistic(kernel, **({"denominator": denominator} if has else {}))


def _profile(profile: str, reference: str | None = None):
    """(reference, StudyConfig) of a profile: its first study, or the one of `reference`."""
    from iclr25.model_equality.experiments import PROFILES, profile_study
    if profile not in PROFILES:
        raise UserError(f"unknown --profile {profile!r}; choose from {', '.join(PROFILES)}")
    return profile_study(profile, reference)


@app.command()
def simulate(
    out: Annotated[Path, typer.Option("-o", "--out", help="folder for ref.jsonl and api.jsonl")],
    endpoint: Annotated[str, typer.Option(
        help="what the API serves: same | fp16 | bf16 | int8 | nf4 | watermark | finetune | swap")
    ] = "watermark",
    reference: Annotated[str, typer.Option(help="smollm2 (SmolLM2-135M-Instruct) | tinygpt (trained here "
                                                "on the KJV)")] = "smollm2",
    prompts: Annotated[int, count("number of prompts (openings of held-out KJV verses)", MAX_PROMPTS)] = 10,
    n_ref: Annotated[int, count("reference completions per prompt", MAX_PER_PROMPT)] = 40,
    n_api: Annotated[int, count("API completions per prompt", MAX_PER_PROMPT)] = 20,
    length: Annotated[int | None, count("tokens per completion (default 50)", MAX_L, flag="--length")] = None,
    old_l: OldL = None,
    profile: Annotated[str, typer.Option(help="model settings of a profile: smoke (a tiny TinyGPT) | quick | "
                                              "full")] = "quick",
    logprobs: Annotated[bool, typer.Option(help="add each completion's log-probability under the reference "
                                                "model ('logprob', for the goodness-of-fit tests)")] = False,
    seed: Seed = 0,
) -> None:
    """Sample JSONL completions (text) from a reference model and one distortion of it (a demo API)."""
    from dataclasses import replace

    from iclr25.core.io import output_dir
    from iclr25.core.runtime import pin_threads
    from iclr25.model_equality.corpus import prompts as task_prompts
    from iclr25.model_equality.endpoints import ENDPOINTS, REFERENCES, endpoint_model, reference_model
    from iclr25.model_equality.pools import pool_seed
    L = _length(length, old_l) or 50  # noqa: N806
    if endpoint not in ENDPOINTS[1:]:
        raise UserError(f"unknown --endpoint {endpoint!r}; choose from {', '.join(ENDPOINTS[1:])}")
    if reference not in REFERENCES:
        raise UserError(f"unknown --reference {reference!r}; choose from {', '.join(REFERENCES)}")
    output_dir(out, "--out folder")
    models = replace(_profile(profile, reference)[1].models, reference=reference)
    pin_threads()
    task = task_prompts(prompts)
    ref = reference_model(models)
    api = endpoint_model(endpoint, ref, models)
    from iclr25.core.runtime import progress
    for fname, name, model, n in (("ref.jsonl", "ref", ref, n_ref), ("api.jsonl", endpoint, api, n_api)):
        rows = [p for p in task for _ in range(n)]
        chunk = 64
        texts: list[str] = []
        for start in progress(range(0, len(rows), chunk), f"sampling {fname} ({len(rows)} x {L} tokens)",
                              total=-(-len(rows) // chunk)):  # one seed per row: chunks change nothing
            part = rows[start:start + chunk]
            streams = list(range(start, start + len(part)))
            ids = model.generate_ids([model._context(p) for p in part], max_new_tokens=L, batch=chunk,
                                     seed=pool_seed(seed, name), streams=streams)
            texts += [model.tokenizer.decode(x) or " " for x in ids]
        scores = [None] * len(texts)
        if logprobs:  # the reference model's score of the text as written, for both files
            scores = [float(x.sum()) for x in ref.logprobs(texts, prompts=rows, batch=32)]
        with (out / fname).open("w", encoding="utf-8") as f:
            for i, (text, lp) in enumerate(zip(texts, scores, strict=True)):
                row = {"prompt": task[i // n], "completion": text}
                f.write(json.dumps(row if lp is None else {**row, "logprob": lp}) + "\n")
    typer.echo(f"wrote {out / 'ref.jsonl'} ({prompts} x {n_ref}) and {out / 'api.jsonl'} "
               f"({prompts} x {n_api}, endpoint {endpoint} of {reference})")


@app.command()
def power(
    config: Annotated[Path | None, typer.Option(help="TOML with study fields (m, L, L_sweep, n_per_prompt, "
                                                      "pool, sims, b, alpha, ...)")] = None,
    profile: Annotated[str, typer.Option(help="base sizes and models: smoke | quick | full")] = "quick",
    reference: Annotated[str | None, typer.Option(help="smollm2 | tinygpt (default: the profile's first)")
                         ] = None,
    test_name: Annotated[str, typer.Option("--test", help="hamming | onehot | l1 | chi2")] = "hamming",
    denominator: Annotated[str, typer.Option(help="pairs (official) | paper (Eq. 4)")] = "pairs",
    seed: Seed = 0,
) -> None:
    """Monte-Carlo power of a test against each distortion of the reference model, with its TV size.

    Each row: a distortion's mean per-token TV distance to the reference, then its power at every N.
    The "same model" row is the false-positive rate (both samples from the reference's pool); "other
    pool" tests the reference pool against an independent pool of the same model (their sampling
    difference shows as N nears the pool size). Pools are cached: a second call only re-tests."""
    from iclr25.core.runtime import RunContext
    from iclr25.model_equality.corpus import prompts
    from iclr25.model_equality.endpoints import REFERENCES
    from iclr25.model_equality.study import TESTS, run_study
    ref0, cfg = _profile(profile, reference)
    if test_name not in TESTS:
        raise UserError(f"unknown --test {test_name!r}; choose from {', '.join(TESTS)}")
    _statistic(test_name, denominator)
    reference = reference or ref0
    if reference not in REFERENCES:
        raise UserError(f"unknown --reference {reference!r}; choose from {', '.join(REFERENCES)}")
    if config is not None:
        cfg = _study_config(config, cfg)
    ctx = RunContext(seed=seed, profile=profile)
    s = run_study(cfg, reference, prompts(cfg.m), ctx)
    typer.echo(f"power of {test_name} ({denominator if test_name in ('hamming', 'onehot') else '-'}) at "
               f"alpha = {cfg.alpha}: {reference}, m = {cfg.m}, L = {cfg.L} tokens, {cfg.sims} sims, "
               f"b = {cfg.b}")
    typer.echo("endpoint    TV/token  " + "  ".join(f"N={n}m".rjust(7) for n in cfg.n_per_prompt))
    for name in ("ref", "same", *cfg.distortions):
        tv = s.tv.get(name, 0.0)
        row = [s.at(test_name, n, denominator=denominator)[name] for n in cfg.n_per_prompt]
        label = {"ref": "same model", "same": "other pool"}.get(name, name)
        typer.echo(f"{label:<10}  {tv:8.2e}  " + "  ".join(f"{p:7.2f}" for p in row))


def _study_config(path: Path, base):
    """The profile's StudyConfig with the fields of a TOML file, each checked for type and range."""
    import tomllib
    from dataclasses import fields, replace
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"--config file not found: {path}") from None
    except IsADirectoryError:
        raise UserError(f"--config is a folder, expected a TOML file: {path}") from None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise UserError(f"{path}: not a readable TOML file ({' '.join(str(e).split())[:120]})") from None
    known = {f.name: getattr(base, f.name) for f in fields(base) if f.name != "models"}
    bad = sorted(set(raw) - set(known))
    if bad:
        raise UserError(f"{path}: unknown field {bad[0][:40]!r}; known: {', '.join(sorted(known))}")
    values = {}
    for k, v in raw.items():
        default = known[k]
        kind = type(default[0] if isinstance(default, tuple) else default)
        want = {int: "integer", float: "number", str: "name"}[kind]
        if isinstance(default, tuple):
            if not (isinstance(v, list) and v and all(_is(kind, x) for x in v)):
                raise UserError(f"{path}: {k} must be a list of {want}s, got {str(v)[:40]!r}")
            v = tuple(v)
        elif not _is(kind, v):
            raise UserError(f"{path}: {k} must be {'an' if want == 'integer' else 'a'} {want}, "
                            f"got {str(v)[:40]!r}")
        values[k] = v
    try:
        return replace(base, **values)
    except ValueError as e:
        raise UserError(f"{path}: {e}") from None


def _is(kind: type, x: object) -> bool:
    """Is TOML value x of the field's kind (an int is a float; a bool is neither)?"""
    return not isinstance(x, bool) and isinstance(x, int | float if kind is float else kind)
