"""Reproduction of ImageFolder's ablation trends on Fashion-MNIST 28x28 (issues #25, #44; spec §3-4).

Every tokenizer arm is one row of the paper's ablation table at our scale; each gets a folded AR model
(30 positions at K = 4), and the ImageFolder tokenizer also gets the unfolded one (60 positions).
Metrics: FD and KID in the features of our FeatureCNN (never called FID), rFD on test reconstructions,
gFD of class-balanced samples against as many test images, the train-vs-test floor. This module only
measures; the rules are in claims.py.

Profiles change sizes: full = all 60k training images (1,000 held out for the validation curve), every
tokenizer 3,000 steps, AR models 1,000 steps, 3 seeds, six tokenizers and seven AR models per seed, gFD on
2,000 samples; quick = the folding benchmark (decided) and PQ1 against ImageFolder at toy length on one
seed (shown, decided by the full profile); smoke = the quick arms at toy size."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from iclr25.core.claims import Finding
from iclr25.core.runtime import RunContext, atomic_write, cache_dir, child_seeds, config_hash

CODE_VERSION = 2
CFG_GRID = (1.0, 2.0, 3.25)
TOP_K, TOP_P = 46, 0.95

# Tokenizer arms: (paper row, overrides of MSRQTokenizer's defaults)
ARMS: dict[str, tuple[str, dict]] = {
    "pq1": ("row 3: one branch, dropout, K = 4", {"branches": 1, "semantic": None}),
    "pq1_nodrop": ("row 1: one branch, no dropout", {"branches": 1, "semantic": None, "qdrop": 0.0}),
    "pq1_k6": ("row 2: one branch, dropout, K = 6", {"branches": 1, "semantic": None,
                                                      "scales": (1, 2, 3, 4, 6)}),
    "pq2": ("row 4: two folded branches", {"branches": 2, "semantic": None}),
    "pq2_sem_all": ("row 5: semantics on both branches", {"branches": 2, "semantic": "all"}),
    "imagefolder": ("row 6: semantics on one branch (ImageFolder)", {"branches": 2, "semantic": "last"}),
}
QUICK_ARMS = ("pq1", "imagefolder")


@dataclass(frozen=True)
class Sizes:
    n_train: int
    n_val: int  # validation images (the end of the training file), scored during tokenizer training
    tok_steps: int
    ar_steps: int
    n_rec: int  # test images reconstructed for rFD / PSNR / probes
    n_gen: int  # samples and test images per gFD
    n_cfg: int  # samples per CFG candidate
    n_probe: int  # training images of the linear probe
    clf_epochs: int
    tok_kw: dict
    ar_depth: int
    ar_width: int
    n_seeds: int
    bench_batch: int
    bench_repeats: int
    bench_model: tuple[int, int] = (3, 128)  # (depth, width) of the timed models: the claim's setting


def sizes(ctx: RunContext) -> Sizes:
    return ctx.pick(
        smoke=Sizes(600, 100, 8, 4, 200, 100, 40, 400, 1, {"width": 32, "depth": 1}, 1, 32, 1, 8, 3, (1, 32)),
        quick=Sizes(3000, 500, 150, 60, 1000, 500, 100, 1000, 1, {}, 3, 48, 1, 64, 7),
        # 3,000 tokenizer steps: where the validation MSE levels off (the issue's rerun: at 1,250 steps two
        # branches already beat one, at 250 they tie); AR width 80 keeps 21 AR models within the slot
        full=Sizes(59_000, 1000, 3000, 1000, 5000, 2000, 400, 5000, 2, {}, 3, 80, 3, 64, 7))


# ---- cached building blocks ---------------------------------------------------------------------

def _cache_path(kind: str, key: dict) -> str:
    return str(cache_dir() / "imagefolder" / f"{kind}-{config_hash({**key, 'code': CODE_VERSION})}.pt")


def _data(n_train: int, n_val: int = 0):
    """(train, test, val): the first n_train training images, the test set, and the last n_val training
    images (disjoint from the train slice: 59,000 + 1,000 = the whole file in the full profile)."""
    from iclr25.imagefolder.data import load_fashion_mnist
    full = load_fashion_mnist("train")
    val = full.subset(slice(len(full) - n_val, len(full))) if n_val else None
    return full.subset(slice(0, n_train)), load_fashion_mnist("test"), val


def classifier(kind: str, n_train: int, epochs: int, seed: int, feat_dim: int = 64):
    """The frozen teacher (kind="teacher", a `feat_dim` feature = the tokenizer width) or the FD
    feature net (kind="fd", 128-d), trained once on the first n_train training images and cached."""
    import os

    from iclr25.imagefolder.classifiers import FeatureCNN, TeacherCNN, train_classifier

    path = _cache_path(kind, {"n": n_train, "epochs": epochs, "seed": seed, "feat": feat_dim})
    net = TeacherCNN(1, 10, feat_dim) if kind == "teacher" else FeatureCNN(1, 10, 128)
    if os.path.exists(path):
        net.load_state_dict(torch.load(path, weights_only=True))
        return net.eval().requires_grad_(False)
    train, _, _ = _data(n_train)
    torch.manual_seed(seed)
    train_classifier(net, train.images, train.labels, epochs=epochs, seed=seed)
    with atomic_write(path) as f:
        torch.save(net.state_dict(), f)
    return net


def _load_cached(load, path: str):
    """A cached model, or None when there is none or it cannot be read (then it is trained again)."""
    import os

    from iclr25.core.errors import UserError
    if not os.path.exists(path):
        return None
    try:
        return load(path)
    except UserError:
        return None


# ---- tasks (module level: ctx.map ships them to workers) ------------------------------------------

def tokenizer_task(task: dict) -> dict:
    """Train (or load) one tokenizer arm on one seed; measure reconstruction, prefixes, linear probes."""

    from iclr25.imagefolder.classifiers import embed
    from iclr25.imagefolder.metrics import fd_features, linear_probe, psnr, ssim
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    torch.manual_seed(task["seed"])
    train, test, val = _data(task["n_train"], task["n_val"])
    kw = {**task["tok_kw"], **ARMS[task["arm"]][1], "steps": task["steps"], "seed": task["seed"]}
    path = _cache_path("tokenizer", {k: task[k] for k in ("arm", "n_train", "n_val", "steps", "seed",
                                                        "tok_kw", "clf_epochs")})
    tok = _load_cached(MSRQTokenizer.load, path)
    if tok is None:
        tok = MSRQTokenizer(**kw)
        teacher = None
        if tok.config.semantic:
            net = classifier("teacher", task["n_train"], task["clf_epochs"], task["seed"] + 101,
                             tok.config.width)
            teacher = embed(net, train.images)
        tok.fit(train.images, train.labels, teacher=teacher, val_images=val.images,
                eval_every=max(1, task["steps"] // 12))
        tok.save(path)
    fd_net = classifier("fd", task["n_train"], task["clf_epochs"], task["fd_seed"])
    x = test.images[:task["n_rec"]]
    codes = tok.encode(x)
    prefixes = [tok.decode(codes, n) for n in range(1, len(tok.config.scales) + 1)]
    recon = prefixes[-1]
    prefix_mse = [float(((p - x) ** 2).mean()) for p in prefixes]
    train_feats = tok.branch_features(train.images[:task["n_probe"]])
    probes = [100 * linear_probe(tr, train.labels[:task["n_probe"]], te, test.labels[:task["n_rec"]])
              for tr, te in zip(train_feats, tok.branch_features(x), strict=True)]
    h = tok.history_
    last = [v for s, v in zip(h.val_step, h.val_mse, strict=True) if s >= 2 * h.steps // 3]
    return {"arm": task["arm"], "seed": task["seed"], "path": path, "positions": tok.config.positions,
            "branches": tok.config.branches, "rfd": fd_features(embed(fd_net, x), embed(fd_net, recon)),
            "mse": float(((recon - x) ** 2).mean()), "psnr": psnr(recon, x), "ssim": ssim(recon, x),
            "prefix_mse": prefix_mse, "mse_2_scales": prefix_mse[1] if len(prefix_mse) > 1 else float("nan"),
            "probe": probes, "usage": tok.codebook_usage(codes), "train_s": h.seconds, "steps": h.steps,
            "val_step": list(h.val_step), "val_mse": list(h.val_mse),
            # the plateau: relative change of the validation MSE over the last third of training
            "val_last_third_change": (last[-1] - last[0]) / last[0] if len(last) > 1 else float("nan"),
            "show": x[:8], "show_recon": recon[:8], "show_prefix": np.stack([p[:8] for p in prefixes])}


def ar_task(task: dict) -> dict:
    """Train (or load) one AR model on a tokenizer arm; pick CFG on a separate seed against held-out test
    images; measure gFD / KID / class consistency of class-balanced samples."""

    from iclr25.imagefolder.classifiers import embed
    from iclr25.imagefolder.metrics import fd_features, kid
    from iclr25.imagefolder.tokenizer import MSRQTokenizer
    from iclr25.imagefolder.var import FoldedVAR

    torch.manual_seed(task["seed"])
    train, test, _ = _data(task["n_train"])
    tok = MSRQTokenizer.load(task["tok_path"])
    key = {k: task[k] for k in ("arm", "fold", "n_train", "steps", "seed", "depth", "width")}
    path = _cache_path("ar", {**key, "tok": tok.fingerprint()})
    ar = _load_cached(lambda p: FoldedVAR.load(p, tok), path)
    if ar is None:
        ar = FoldedVAR(tok, 10, task["depth"], task["width"], fold=task["fold"])
        ar.fit(train.images, train.labels, steps=task["steps"], seed=task["seed"])
        ar.save(path)
    fd_net = classifier("fd", task["n_train"], task["clf_epochs"], task["fd_seed"])
    n, n_cfg = task["n_gen"], task["n_cfg"]
    # CFG is chosen on a separate sampling seed against test images the gFD does not use
    held = test.images[-n_cfg:]
    f_held = embed(fd_net, held)
    cfg_fd = {}
    for i, cfg in enumerate(CFG_GRID):
        imgs = ar.generate(np.arange(n_cfg) % 10, cfg, TOP_K, TOP_P, seed=task["seed"] + 1000 + i)
        cfg_fd[cfg] = fd_features(f_held, embed(fd_net, imgs))
    best = min(cfg_fd, key=cfg_fd.get)
    labels = np.arange(n) % 10
    t0 = time.process_time()
    samples = ar.generate(labels, best, TOP_K, TOP_P, seed=task["seed"])
    gen_s = time.process_time() - t0
    f_real, f_fake = embed(fd_net, test.images[:n]), embed(fd_net, samples)
    k_mean, _ = kid(f_real, f_fake, subsets=10, subset_size=min(1000, n), seed=task["seed"])
    cls_acc = float((embed(fd_net, samples, logits=True).argmax(1) == labels).mean())
    order = np.argsort(labels[:40], kind="stable")
    return {"arm": task["arm"], "fold": task["fold"], "seed": task["seed"], "positions": ar.positions,
            "gfd": fd_features(f_real, f_fake), "kid": k_mean, "class_acc": cls_acc, "cfg": best,
            "cfg_fd": {str(k): v for k, v in cfg_fd.items()}, "train_s": ar.history_["seconds"],
            "loss": ar.history_["loss"], "gen_cpu_s_per_image": gen_s / n, "path": path,
            "show": samples[:40][order]}


def bench_task(task: dict) -> dict:
    from iclr25.imagefolder.timing import sampling_benchmark
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    tok = MSRQTokenizer.load(task["tok_path"])
    return sampling_benchmark(tok, 10, task["depth"], task["width"], task["batch"], task["repeats"],
                              seed=task["seed"])


def floor_task(task: dict) -> dict:
    """FD between real training and test images at the gFD's n: the floor of any gFD."""
    from iclr25.imagefolder.classifiers import accuracy, embed
    from iclr25.imagefolder.metrics import fd_features, kid

    train, test, _ = _data(task["n_train"])
    fd_net = classifier("fd", task["n_train"], task["clf_epochs"], task["fd_seed"])
    n = task["n_gen"]
    a, b = embed(fd_net, train.images[:n]), embed(fd_net, test.images[:n])
    return {"n": n, "fd": fd_features(a, b), "kid": kid(a, b, 10, min(1000, n))[0],
            "fd_net_test_acc": accuracy(fd_net, test.images[:n], test.labels[:n])}


# ---- the run ---------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    from iclr25.core.errors import UserError
    from iclr25.imagefolder.data import fashion_mnist_available, fashion_mnist_dir

    if not fashion_mnist_available():
        raise UserError(f"Fashion-MNIST idx files not found in {fashion_mnist_dir()}: "
                        "apt-get install dataset-fashion-mnist")
    sz = sizes(ctx)
    arms = tuple(ARMS) if profile == "full" else QUICK_ARMS
    seeds = [s % 100_000 for s in child_seeds(ctx.seed, sz.n_seeds)]
    base = {"n_train": sz.n_train, "clf_epochs": sz.clf_epochs, "fd_seed": ctx.seed + 202, "n_gen": sz.n_gen}
    # the classifiers first (cached), so that parallel workers never train them twice; one FD net for the
    # whole run (the metric), one teacher per seed
    width = sz.tok_kw.get("width", 64)
    ctx.map(_train_classifier, [("fd", sz.n_train, sz.clf_epochs, ctx.seed + 202, 64)] +
            [("teacher", sz.n_train, sz.clf_epochs, s + 101, width) for s in seeds], "classifiers")
    toks = ctx.map(tokenizer_task, [{**base, "arm": a, "seed": s, "tok_kw": sz.tok_kw, "n_val": sz.n_val,
                                     "steps": sz.tok_steps, "n_rec": sz.n_rec, "n_probe": sz.n_probe}
                                    for s in seeds for a in arms], "tokenizers")
    tok = {(r["arm"], r["seed"]): r for r in toks}
    # the longest AR runs first, so that the two workers finish together
    runs = ([("imagefolder", False)] if profile == "full" else []) + sorted(
        [(a, True) for a in arms], key=lambda r: -len(ARMS[r[0]][1].get("scales", ())))
    ars = ctx.map(ar_task, [{**base, "arm": a, "fold": f, "seed": s, "tok_path": tok[(a, s)]["path"],
                             "n_cfg": sz.n_cfg, "steps": sz.ar_steps, "depth": sz.ar_depth,
                             "width": sz.ar_width} for s in seeds for a, f in runs], "AR models")
    ar = {(r["arm"], r["fold"], r["seed"]): r for r in ars}
    floor = floor_task(base)
    # timing runs alone in this process (no parallel training competing for the cores) and on CPU time
    bench = bench_task({"tok_path": tok[("imagefolder", seeds[0])]["path"], "depth": sz.bench_model[0],
                        "width": sz.bench_model[1], "batch": sz.bench_batch, "repeats": sz.bench_repeats,
                        "seed": ctx.seed})
    from iclr25.imagefolder.figures import make_figures
    per_seed = Runs(tok, ar, seeds)
    figs = make_figures(ctx.out_dir, per_seed, list(arms), runs, floor)
    scale = (f"{profile}: {sz.n_train} images, tokenizers {sz.tok_steps} steps, AR {sz.ar_steps} steps, "
             f"{len(seeds)} seed(s), gFD on {sz.n_gen} samples")
    findings = [_efficiency(bench)]
    findings += (full_findings if profile == "full" else quick_findings)(per_seed, floor, scale, figs)
    findings.append(Finding.not_testable(
        "imagenet_scale", "needs ImageNet 256², a DINOv2 encoder and teacher (hub weights), perceptual "
        "losses and a 362M-parameter VAR trained on 8 GPUs; the paper's 2.60 gFID / 0.80 rFID / 58.0 probe "
        "are Inception-FID numbers that our CNN-feature FD cannot be compared with"))
    from iclr25.imagefolder.claims import CLAIMS
    order = [c.key for c in CLAIMS]
    return sorted(findings, key=lambda f: order.index(f.claim))


def _train_classifier(spec: tuple) -> int:
    classifier(*spec)
    return 0


@dataclass
class Runs:
    """Every tokenizer and AR result by (arm, seed) and (arm, fold, seed); lists are ordered by seed."""

    tok: dict
    ar: dict
    seeds: list[int]

    def t(self, arm: str, key: str, index: int | None = None) -> list[float]:
        vals = [self.tok[(arm, s)][key] for s in self.seeds]
        return [float(v[index]) for v in vals] if index is not None else [float(v) for v in vals]

    def g(self, arm: str, key: str, fold: bool = True) -> list[float]:
        return [float(self.ar[(arm, fold, s)][key]) for s in self.seeds]


def _efficiency(b: dict) -> Finding:
    tf, tu = np.median(b["cpu_ms_per_image_folded"]), np.median(b["cpu_ms_per_image_unfolded"])
    return Finding.measure(
        "fold_efficiency", dict(b),
        f"KV-cached sampling CPU time {tu:.2f} ms/image unfolded ({b['positions_unfolded']} positions) vs "
        f"{tf:.2f} folded ({b['positions_folded']}), medians; per repeat unfolded / folded "
        f"{', '.join(f'{r:.2f}' for r in b['time_ratio'])} (median {b['time_ratio_median']:.2f}); KV cache "
        f"{b['kv_ratio']:.1f}x, attention FLOPs {b['attn_flops_ratio']:.1f}x; batch {b['batch']}, "
        f"{b['repeats']} alternated repeats, {b['threads']} thread")


def _floor(floor: dict) -> dict:
    return {"fd_floor_train_vs_test": floor["fd"], "kid_floor": floor["kid"],
            "fd_net_test_acc": floor["fd_net_test_acc"]}


def _tok_m(r: Runs, arm: str, name: str) -> dict:
    out = {f"rfd_{name}": r.t(arm, "rfd"), f"psnr_{name}": r.t(arm, "psnr"), f"ssim_{name}": r.t(arm, "ssim"),
           f"mse_2_scales_{name}": r.t(arm, "mse_2_scales"), f"codebook_usage_{name}": r.t(arm, "usage"),
           f"val_mse_{name}": [r.tok[(arm, s)]["val_mse"][-1] for s in r.seeds],
           f"val_last_third_change_{name}": r.t(arm, "val_last_third_change"),
           f"positions_{name}": r.tok[(arm, r.seeds[0])]["positions"]}
    for b in range(r.tok[(arm, r.seeds[0])]["branches"]):
        out[f"probe_branch{b}_{name}"] = r.t(arm, "probe", b)
    return out


def _ar_m(r: Runs, arm: str, name: str, fold: bool = True) -> dict:
    return {f"gfd_{name}": r.g(arm, "gfd", fold), f"kid_{name}": r.g(arm, "kid", fold),
            f"class_acc_{name}": r.g(arm, "class_acc", fold), f"cfg_{name}": r.g(arm, "cfg", fold),
            f"ar_positions_{name}": r.ar[(arm, fold, r.seeds[0])]["positions"]}


def _mean(xs: list[float], fmt: str = ".2f") -> str:
    """The mean and, in brackets, the per-seed values."""
    return f"{np.mean(xs):{fmt}} ({', '.join(f'{x:{fmt}}' for x in xs)})"


def full_findings(r: Runs, floor: dict, scale: str, figs: dict) -> list[Finding]:
    """The six trend claims' measurements (one value per seed), decided by claims.py's rules."""
    fl = _floor(floor)
    fs = f"floor {fl['fd_floor_train_vs_test']:.2f}; {scale}"
    out = []
    m = {**_tok_m(r, "pq1", "pq1"), **_tok_m(r, "pq2", "pq2"), **_ar_m(r, "pq1", "pq1"),
         **_ar_m(r, "pq2", "pq2"), **fl}
    out.append(Finding.measure(
        "product_quantization", m,
        f"PQ1 -> PQ2 (per seed): rFD {_mean(m['rfd_pq1'])} -> {_mean(m['rfd_pq2'])}, PSNR "
        f"{_mean(m['psnr_pq1'])} -> {_mean(m['psnr_pq2'])} dB, gFD {_mean(m['gfd_pq1'])} -> "
        f"{_mean(m['gfd_pq2'])}; {fs}", [figs["fd"], figs["reconstructions"], figs["curves"]]))
    m = {**_ar_m(r, "pq2", "none"), **_ar_m(r, "pq2_sem_all", "all"), **_ar_m(r, "imagefolder", "one"), **fl}
    out.append(Finding.measure(
        "semantic_one_branch", m,
        f"gFD none {_mean(m['gfd_none'])}, all {_mean(m['gfd_all'])}, one {_mean(m['gfd_one'])}; {fs}",
        [figs["fd"], figs["samples"]]))
    m = {"probe_semantic": r.t("imagefolder", "probe", -1), "probe_detail": r.t("imagefolder", "probe", 0),
         "probe_pq2_branch0": r.t("pq2", "probe", 0), "probe_pq2_branch1": r.t("pq2", "probe", 1),
         "probe_pq1": r.t("pq1", "probe", 0), "probe_chance": 10.0}
    out.append(Finding.measure(
        "branch_specialisation", m,
        f"linear probe (%) semantic branch {_mean(m['probe_semantic'])} vs detail "
        f"{_mean(m['probe_detail'])}; without semantics (PQ2) {_mean(m['probe_pq2_branch1'])} / "
        f"{_mean(m['probe_pq2_branch0'])}; chance 10; "
        f"paper 40.5% (ImageNet, 1000 classes); {scale}"))
    m = {**_tok_m(r, "pq1", "drop"), **_tok_m(r, "pq1_nodrop", "nodrop"), **_ar_m(r, "pq1", "drop"),
         **_ar_m(r, "pq1_nodrop", "nodrop"), **fl}
    out.append(Finding.measure(
        "quantizer_dropout", m,
        f"MSE from 2 of 4 scales without -> with dropout {_mean(m['mse_2_scales_nodrop'], '.4f')} -> "
        f"{_mean(m['mse_2_scales_drop'], '.4f')}; gFD {_mean(m['gfd_nodrop'])} -> {_mean(m['gfd_drop'])}; "
        f"{fs}",
        [figs["prefixes"]]))
    rk4, rk6, gk4, gk6 = (np.array(v) for v in (r.t("pq1", "rfd"), r.t("pq1_k6", "rfd"), r.g("pq1", "gfd"),
                                                 r.g("pq1_k6", "gfd")))
    r_gain, g_gain = (rk4 - rk6) / rk4, (gk4 - gk6) / gk4
    m = {**_tok_m(r, "pq1", "k4"), **_tok_m(r, "pq1_k6", "k6"), **_ar_m(r, "pq1", "k4"),
         **_ar_m(r, "pq1_k6", "k6"),
         "rfd_rel_gain": r_gain.tolist(), "gfd_rel_gain": g_gain.tolist(),
         "tradeoff_margin": (r_gain - 2 * g_gain).tolist(), **fl}
    out.append(Finding.measure(
        "length_tradeoff", m,
        f"30 -> 66 positions, per seed: rFD gain {', '.join(f'{100 * x:+.1f}%' for x in r_gain)}, gFD gain "
        f"{', '.join(f'{100 * x:+.1f}%' for x in g_gain)}; {fs}", [figs["fd"]]))
    m = {**_ar_m(r, "imagefolder", "folded"), **_ar_m(r, "imagefolder", "unfolded", fold=False), **fl}
    out.append(Finding.measure(
        "fold_quality", m,
        f"gFD folded (30 positions) {_mean(m['gfd_folded'])} vs unfolded (60) {_mean(m['gfd_unfolded'])}; "
        f"{fs}",
        [figs["samples"]]))
    return out


def quick_findings(r: Runs, floor: dict, scale: str, figs: dict) -> list[Finding]:
    """Quick trains PQ1 and ImageFolder at toy length: its numbers, shown beside the committed full record."""
    fl = _floor(floor)
    m = {**_tok_m(r, "pq1", "pq1"), **_tok_m(r, "imagefolder", "imagefolder"), **_ar_m(r, "pq1", "pq1"),
         **_ar_m(r, "imagefolder", "imagefolder"), **fl}
    m = {k: (v[0] if isinstance(v, list) and len(v) == 1 else v) for k, v in m.items()}
    base = (f"{scale}: PQ1 rFD {m['rfd_pq1']:.2f}, PSNR {m['psnr_pq1']:.2f} dB, gFD {m['gfd_pq1']:.2f}; "
            f"ImageFolder rFD {m['rfd_imagefolder']:.2f}, PSNR {m['psnr_imagefolder']:.2f} dB, gFD "
            f"{m['gfd_imagefolder']:.2f}; floor {fl['fd_floor_train_vs_test']:.2f}")
    probe = (f"{scale}: ImageFolder linear probe semantic branch {m['probe_branch1_imagefolder']:.1f}% vs "
             f"detail {m['probe_branch0_imagefolder']:.1f}%")
    prefix = (f"{scale}: MSE from 2 scales PQ1 (with dropout) {m['mse_2_scales_pq1']:.4f}, ImageFolder "
              f"{m['mse_2_scales_imagefolder']:.4f}; the no-dropout arm runs in full only")
    out = [Finding.deferred("product_quantization", base + " (full compares PQ2 without semantics)", **m),
           Finding.deferred("semantic_one_branch", base + " (the none/all arms run in full only)", **m),
           Finding.deferred("branch_specialisation", probe, **m),
           Finding.deferred("quantizer_dropout", prefix, **m),
           Finding.deferred("length_tradeoff", base + " (the K = 6 arm runs in full only)", **m),
           Finding.deferred("fold_quality", base + " (the unfolded AR runs in full only)", **m)]
    out[0].figures = [figs["fd"], figs["reconstructions"], figs["curves"]]
    out[1].figures = [figs["samples"]]
    out[3].figures = [figs["prefixes"]]
    return out
