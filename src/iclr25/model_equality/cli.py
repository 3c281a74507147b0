"""`iclr25 model_equality ...`: test an API's completions against reference completions (JSONL rows
{"prompt", "completion"}), measure an effect size, simulate endpoints, and estimate power."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError

app = typer.Typer(help="Model equality testing: is this API serving the model it claims?",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.command()
def test(
    ref: Annotated[Path, typer.Option(help="reference completions (JSONL: prompt, completion)")],
    api: Annotated[Path, typer.Option(help="the API's completions to the same prompts (JSONL)")],
    kernel: Annotated[str, typer.Option(help="hamming | all_substrings | onehot | l1 | chi2")] = "hamming",
    L: Annotated[int | None, typer.Option("--L", help="pad/truncate completions to L characters "  # noqa: N803
                                                        "(default: the longest)")] = None,
    b: Annotated[int, typer.Option(help="permutations or null simulations")] = 1000,
    alpha: Annotated[float, typer.Option(help="test level")] = 0.05,
    pvalue: Annotated[str, typer.Option(help="permutation | null (simulate from --ref; needs 2x the "
                                                 "API's samples per prompt)")] = "permutation",
    composite: Annotated[list[Path] | None, typer.Option(
        help="another acceptable reference (e.g. fp16 weights); reject only if all are rejected")] = None,
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
) -> None:
    """Test H0: the API samples from the reference model (same completion distribution per prompt)."""
    from iclr25.model_equality.encoding import read_jsonl, samples_from_rows
    from iclr25.model_equality.pvalues import PVALUE_METHODS, pool_test, two_sample_test
    if pvalue not in PVALUE_METHODS:
        raise UserError(f"unknown --pvalue {pvalue!r}; choose from {', '.join(PVALUE_METHODS)}")
    api_rows = read_jsonl(api)
    refs = [ref, *(composite or [])]
    ref_rows = [read_jsonl(r) for r in refs]
    if L is None:
        L = max(len(c) for rows in [api_rows, *ref_rows] for _, c in rows)  # noqa: N806
    results = []
    for path, rows in zip(refs, ref_rows, strict=True):
        p, q, _ = samples_from_rows(rows, api_rows, L, names=(str(path), str(api)))
        if pvalue == "null":
            try:
                r = pool_test(p, q, kernel, b=b, alpha=alpha, seed=seed)
            except UserError as e:
                raise UserError(f"{path}: {e}") from None
        else:
            r = two_sample_test(p, q, kernel, "permutation", b=b, alpha=alpha, seed=seed)
        results.append(r)
        typer.echo(f"{path}: statistic {r.statistic:.6g}  p-value {r.pvalue:.4g}  "
                   f"({'reject' if r.reject else 'do not reject'} at alpha = {alpha})")
    reject = all(r.reject for r in results)
    prompts = len({p for p, _ in api_rows})
    typer.echo(f"kernel {kernel}, {prompts} prompts, {len(api_rows)} API completions, L = {L}, "
               f"{pvalue} p-values with b = {b}")
    typer.echo("decision: " + ("REJECT: the API's completions do not match "
                               + ("any reference" if len(results) > 1 else "the reference")
                               if reject else "do not reject: consistent with "
                               + ("a reference" if len(results) > 1 else "the reference")))


@app.command()
def distance(
    a: Annotated[Path, typer.Argument(help="JSONL completions")],
    b: Annotated[Path, typer.Argument(help="JSONL completions to the same prompts")],
    kernel: Annotated[str, typer.Option(help="hamming | all_substrings | onehot")] = "hamming",
    L: Annotated[int | None, typer.Option("--L", help="completion length (default: the longest)")] = None,  # noqa: N803
) -> None:
    """Effect size: sqrt(MMD^2) between two sets of completions (0 = indistinguishable)."""
    from iclr25.model_equality.encoding import read_jsonl, samples_from_rows
    from iclr25.model_equality.statistics import mmd_distance
    p, q, _ = samples_from_rows(read_jsonl(a), read_jsonl(b), L, names=(str(a), str(b)))
    typer.echo(f"mmd distance ({kernel}): {mmd_distance(p, q, kernel):.6g}")


@app.command()
def simulate(
    out: Annotated[Path, typer.Option(help="folder for ref.jsonl and api.jsonl")],
    endpoint: Annotated[str, typer.Option(
        help="what the API serves: same | fp16 | bf16 | int8 | nf4 | watermark | finetune | temperature | "
             "top_p | swap")] = "watermark",
    prompts: Annotated[int, typer.Option(help="number of prompts")] = 10,
    n_ref: Annotated[int, typer.Option(help="reference completions per prompt")] = 40,
    n_api: Annotated[int, typer.Option(help="API completions per prompt")] = 20,
    L: Annotated[int, typer.Option("--L", help="characters per completion")] = 50,  # noqa: N803
    profile: Annotated[str, typer.Option(help="which trained LM: smoke (tiny) | quick | full")] = "quick",
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
) -> None:
    """Write JSONL completions from our small character LM and one of its distortions (a demo API)."""
    from dataclasses import replace

    from iclr25.model_equality.experiments import DISTORTIONS, PROFILE_CONFIGS, build_endpoints
    from iclr25.model_equality.sampling import decode, generate
    if endpoint not in ("same", *DISTORTIONS):
        raise UserError(f"unknown --endpoint {endpoint!r}; choose from same, {', '.join(DISTORTIONS)}")
    for name, v in (("prompts", prompts), ("n-ref", n_ref), ("n-api", n_api), ("L", L)):
        if v < 1:
            raise UserError(f"--{name} must be >= 1, got {v}")
    if profile not in PROFILE_CONFIGS:
        raise UserError(f"unknown --profile {profile!r}; choose from {', '.join(PROFILE_CONFIGS)}")
    cfg = replace(PROFILE_CONFIGS[profile], m=prompts, L=L)
    eps, task, _ = build_endpoints(cfg, seed)
    out.mkdir(parents=True, exist_ok=True)
    for fname, name, n, s in (("ref.jsonl", "ref", n_ref, seed), ("api.jsonl", endpoint, n_api, seed + 1)):
        sample = generate(eps[name], task, n, L, s)
        with (out / fname).open("w", encoding="utf-8") as f:
            for x, text in zip(sample.prompt_ids, decode(sample), strict=True):
                f.write(json.dumps({"prompt": task[x], "completion": text}) + "\n")
    typer.echo(f"wrote {out / 'ref.jsonl'} ({prompts} x {n_ref}) and {out / 'api.jsonl'} "
               f"({prompts} x {n_api}, endpoint {endpoint})")


@app.command()
def power(
    config: Annotated[Path | None, typer.Option(help="TOML with SimConfig fields (m, L, n_per_prompt, "
                                                      "pool_ref, pool_alt, sims, b, alpha, ...)")] = None,
    profile: Annotated[str, typer.Option(help="base sizes: smoke | quick | full")] = "quick",
    test_name: Annotated[str, typer.Option("--test", help="hamming | onehot | l1 | chi2 | all_substrings")
                         ] = "hamming",
    seed: Annotated[int, typer.Option(help="random seed")] = 0,
) -> None:
    """Monte-Carlo power of a test against every simulated distortion of our character LM."""
    import tomllib
    from dataclasses import fields, replace

    from iclr25.model_equality.experiments import DISTORTIONS, PROFILE_CONFIGS, build_pools
    from iclr25.model_equality.power import estimate_power
    from iclr25.model_equality.pvalues import NullSimulator
    if profile not in PROFILE_CONFIGS:
        raise UserError(f"unknown --profile {profile!r}; choose from {', '.join(PROFILE_CONFIGS)}")
    cfg = PROFILE_CONFIGS[profile]
    if config is not None:
        if not config.is_file():
            raise UserError(f"{config}: no such file")
        try:
            raw = tomllib.loads(config.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise UserError(f"{config}: not valid TOML ({e})") from None
        known = {f.name for f in fields(cfg)}
        bad = sorted(set(raw) - known)
        if bad:
            raise UserError(f"{config}: unknown field {bad[0]!r}; known: {', '.join(sorted(known))}")
        if "n_per_prompt" in raw:
            raw["n_per_prompt"] = tuple(raw["n_per_prompt"])
        cfg = replace(cfg, **raw)
    pools, _ = build_pools(cfg, seed)
    null = NullSimulator(pools["ref"], test_name, b=cfg.b, seed=seed)
    typer.echo(f"power of {test_name} at alpha = {cfg.alpha} (m = {cfg.m}, L = {cfg.L}, {cfg.sims} sims, "
               f"b = {cfg.b})")
    typer.echo("endpoint      " + "  ".join(f"N={n}m".rjust(7) for n in cfg.n_per_prompt))
    for name in ("same", *DISTORTIONS):
        row = [estimate_power(pools["ref"], pools[name], n * cfg.m, test_name, cfg.sims, cfg.b, cfg.alpha,
                              seed, null).power for n in cfg.n_per_prompt]
        typer.echo(f"{name:<12}  " + "  ".join(f"{p:7.2f}" for p in row))
