"""Generated registries and preference sets for the constraint-adherence check (spec §4 R1), and the
baselines' model choice: HuggingGPT takes the most downloaded model of the task, ControlLLM the best
benchmark score of its tool; neither filters by license or size."""

from __future__ import annotations

import numpy as np

from iclr25.hive.registry import ModelCard, Preferences, Registry, rank_key

LICENSES = (
    "apache-2.0",
    "mit",
    "bsd-3-clause",
    "cc-by-4.0",
    "cc-by-nc-4.0",
    "openrail++",
    "llama2",
    "other",
    "unknown",
)
BENCHMARKS = {  # per task: (dataset, metric) pairs a generated model may report
    "automatic-speech-recognition": (("librispeech", "WER"), ("common-voice", "WER")),
    "text-to-image": (("coco", "FID"), ("parti", "CLIPScore")),
    "summarization": (("cnn-dailymail", "ROUGE-1"), ("xsum", "ROUGE-L")),
    "token-classification": (("conll2003", "F1"),),
    "question-answering": (("squad", "F1"), ("squad", "EM")),
    "image-classification": (("imagenet", "Top-1 Accuracy"),),
    "translation": (("wmt14-en-de", "BLEU"),),
    "text-generation": (("mmlu", "Accuracy"), ("arc-challenge", "Accuracy")),
    "text-to-audio": (("ljspeech", "MOS"),),
    "zero-shot-classification": (("mnli", "Accuracy"),),
}


def synthetic_models(n: int, rng: np.random.Generator) -> list[ModelCard]:
    """`n` model cards: random task, license, size (log-uniform 10M..70B, 5% unknown), downloads and
    scores on 0-2 of the task's benchmarks."""
    tasks = list(BENCHMARKS)
    out = []
    for i in range(n):
        task = tasks[rng.integers(len(tasks))]
        size = None if rng.random() < 0.05 else float(10 ** rng.uniform(7, 10.85))
        bench = BENCHMARKS[task]
        k = int(rng.integers(0, len(bench) + 1))
        chosen = rng.choice(len(bench), size=k, replace=False) if k else []
        scores = tuple((bench[j][0], bench[j][1], round(float(rng.uniform(1, 99)), 2)) for j in chosen)
        out.append(
            ModelCard(
                f"gen/model-{i:05d}",
                task,
                LICENSES[rng.integers(len(LICENSES))],
                size,
                float(np.round(10 ** rng.uniform(0, 6.5))),
                scores,
            )
        )
    return out


def random_preferences(rng: np.random.Generator, registry: Registry) -> tuple[str, Preferences]:
    """A task of the registry and preferences over it: a license subset (or any), a size cap (or none),
    a preferred benchmark for the task (or none). Tight draws make some sets infeasible."""
    task = registry.tasks[rng.integers(len(registry.tasks))]
    licenses = None
    if rng.random() < 0.7:
        k = int(rng.integers(2, 6))
        licenses = tuple(str(x) for x in rng.choice(LICENSES, size=k, replace=False))
    max_params = None if rng.random() < 0.3 else float(10 ** rng.uniform(7.5, 11))
    benchmarks = {}
    pairs = sorted({(d, m) for c in registry.candidates(task) for d, m, _ in c.scores})
    if pairs and rng.random() < 0.7:
        benchmarks[task] = pairs[rng.integers(len(pairs))]
    return task, Preferences(licenses, max_params, benchmarks)


def brute_force(registry: Registry, task: str, prefs: Preferences) -> ModelCard | None:
    """The best feasible model by a plain scan of every card (the reference `select` must equal)."""
    from iclr25.hive.registry import violations

    bench = prefs.benchmarks.get(task)
    ok = [m for m in registry.models if m.task in registry.task_tags(task) and not violations(m, prefs)]
    return min(ok, key=lambda m: rank_key(m, bench)) if ok else None


def hugginggpt_select(registry: Registry, task: str, prefs: Preferences) -> ModelCard | None:
    pool = registry.candidates(task)
    return max(pool, key=lambda m: (m.downloads, m.id)) if pool else None


def controlllm_select(registry: Registry, task: str, prefs: Preferences) -> ModelCard | None:
    pool = registry.candidates(task)
    bench = prefs.benchmarks.get(task)
    return min(pool, key=lambda m: rank_key(m, bench)) if pool else None
