"""Reproduction of ImageFolder's ablation trends on Fashion-MNIST 28x28 (issue #25, spec §3-4).

Every tokenizer arm is one row of the paper's ablation table at our scale; each gets a folded AR model
(30 positions at K = 4), and the ImageFolder tokenizer also gets the unfolded one (60 positions).
Metrics: FD and KID in the features of our FeatureCNN (never called FID), rFD on test reconstructions,
gFD of class-balanced samples against as many test images, bootstrap intervals, the train-vs-test floor.

Profiles change sizes: full = 20k of the 60k images (the 15-minute queue slot), 2 epochs, all six
tokenizers and seven AR models, 5,000 samples; quick = 10k images, 1 epoch, PQ1 against ImageFolder
(decides fold_efficiency, shows the rest as full-profile claims with its numbers);
smoke = the quick arms at toy size."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from iclr25.core.claims import (
    Claim,
    Finding,
    Verdict,
    all_of,
    at_least,
    at_most,
    graded,
    ratio_at_most,
)
from iclr25.core.runtime import RunContext, atomic_write, cache_dir, config_hash
from iclr25.core.stats import proportion_ci

CODE_VERSION = 1
CFG_GRID = (1.0, 2.0, 3.25)
TOP_K, TOP_P = 46, 0.95

CLAIMS = [
    Claim(key="product_quantization",
          statement="Two folded branches (product quantisation) at the same number of AR positions "
                    "reconstruct and generate better than one branch.",
          paper="ablation rows 3->4 (ImageNet 256², 265 positions): rFID 3.24 -> 2.06, gFID 6.56 -> 5.96",
          setup="PQ2 without semantics vs PQ1, both 30 positions: rFD >= 10% lower, PSNR higher and "
                    "gFD <= 1.05x PQ1's (PARTIAL when only some hold)"),
    Claim(key="semantic_one_branch",
          statement="Semantic regularisation of one branch generates better than none and than "
                    "regularising every branch.",
          paper="ablation rows 4-6: gFID 5.96 (none) / 5.21 (all branches) / 3.53 (one branch)",
          setup="gFD(one) below both gFD(none) and gFD(all); PARTIAL when below one of them"),
    Claim(key="branch_specialisation",
          statement="The semantically regularised branch carries the class: a linear probe on it beats "
                    "the detail branch.",
          paper="linear probe 40.5% on the semantic branch (row 6, ImageNet)",
          setup="linear-probe accuracy (mean-pooled f_hat) of the semantic branch >= detail branch + "
                    "5 points, ImageFolder tokenizer"),
    Claim(key="quantizer_dropout",
          statement="Quantizer dropout makes coarse prefixes decode well and improves generation.",
          paper="ablation rows 1->2 (680 positions): rFID 1.92 -> 1.71, gFID 7.52 -> 6.03",
          setup="PQ1 with vs without dropout: reconstruction MSE from the first 2 scales >= 10% lower "
                    "and gFD not higher (PARTIAL when one holds)"),
    Claim(key="length_tradeoff",
          statement="Longer token sequences help reconstruction much more than generation.",
          paper="ablation rows 3->2 (265 -> 680 positions): rFID 3.24 -> 1.71, gFID 6.56 -> 6.03",
          setup="PQ1 with K = 6, scales (1,2,3,4,6) = 66 positions, against K = 4 (30 positions): "
                    "relative rFD gain > 0 and >= 2x the relative gFD gain (PARTIAL when one holds)"),
    Claim(key="fold_quality",
          statement="Folding the two tokens of a position into one AR step loses no quality against "
                    "giving each token its own position.",
          paper="ImageFolder generates with 286 positions for 572 tokens (folded)",
          setup="ImageFolder tokenizer, folded AR (30 positions) vs unfolded AR (60): gFD folded <= "
                    "unfolded; PARTIAL when <= 1.1x"),
    Claim(key="fold_efficiency",
          statement="Folding halves the sequence, so sampling is much cheaper than with one position per "
                    "token.",
          paper="286 positions instead of 572 tokens (680 for VAR): shorter sequence, faster sampling",
          setup="KV-cached sampling time per image, unfolded / folded at equal weights (median of 5, "
                    "batch 64, 1 thread, depth 3, width 128) >= 1.6x",
          timing=True),
    Claim(key="imagenet_scale",
          statement="At ImageNet scale the final ImageFolder model reaches gFID 2.60, rFID 0.80 and a "
                    "58.0% linear probe.",
          paper="ImageNet 256²: gFID 2.60, rFID 0.80, linear probe 58.0 (rows 7-8, 362M VAR, DINOv2, GAN)",
          setup="not testable here"),
]

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
    epochs: int
    n_eval: int  # samples and test images per FD
    n_cfg: int  # samples per CFG candidate
    n_probe: int  # training images of the linear probe
    clf_epochs: int
    tok_kw: dict
    ar_depth: int
    ar_width: int
    bench_batch: int
    bench_repeats: int
    n_boot: int
    bench_model: tuple[int, int] = (3, 128)  # (depth, width) of the timed models: the claim's setting


def sizes(ctx: RunContext) -> Sizes:
    return ctx.pick(
        smoke=Sizes(600, 1, 200, 60, 400, 1, {"width": 32, "depth": 1}, 1, 32, 8, 2, 10, (1, 32)),
        quick=Sizes(10_000, 1, 600, 200, 1000, 1, {}, 3, 48, 64, 5, 50),
        # 20k of the 60k images and AR width 80 (library: 128): six tokenizers and seven AR models at
        # 60k x 2 epochs take ~4,800 CPU-s, three times the 15-minute slot of the shared heavy-job queue
        full=Sizes(20_000, 2, 5000, 400, 5000, 2, {}, 3, 80, 64, 5, 100))


# ---- cached building blocks ---------------------------------------------------------------------

def _cache_path(kind: str, key: dict) -> str:
    return str(cache_dir() / "imagefolder" / f"{kind}-{config_hash({**key, 'code': CODE_VERSION})}.pt")


def _data(n_train: int):
    from iclr25.imagefolder.data import load_fashion_mnist
    return load_fashion_mnist("train").subset(slice(0, n_train)), load_fashion_mnist("test")


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
    train, _ = _data(n_train)
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
    """Train (or load) one tokenizer arm and measure reconstruction, prefixes and linear probes."""

    from iclr25.imagefolder.classifiers import embed
    from iclr25.imagefolder.metrics import fd_bootstrap, linear_probe, psnr, ssim
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    torch.manual_seed(task["seed"])
    train, test = _data(task["n_train"])
    kw = {**task["tok_kw"], **ARMS[task["arm"]][1], "epochs": task["epochs"], "seed": task["seed"]}
    path = _cache_path("tokenizer", {k: task[k] for k in ("arm", "n_train", "epochs", "seed", "tok_kw",
                                                        "clf_epochs")})
    tok = _load_cached(MSRQTokenizer.load, path)
    if tok is None:
        tok = MSRQTokenizer(**kw)
        teacher = None
        if tok.config.semantic:
            net = classifier("teacher", task["n_train"], task["clf_epochs"], task["seed"] + 101,
                             tok.config.width)
            teacher = embed(net, train.images)
        tok.fit(train.images, train.labels, teacher=teacher)
        tok.save(path)
    fd_net = classifier("fd", task["n_train"], task["clf_epochs"], task["seed"] + 202)
    x = test.images[:task["n_eval"]]
    codes = tok.encode(x)
    prefixes = [tok.decode(codes, n) for n in range(1, len(tok.config.scales) + 1)]
    recon = prefixes[-1]
    f_real, f_rec = embed(fd_net, x), embed(fd_net, recon)
    rfd = fd_bootstrap(f_real, f_rec, task["n_boot"], seed=task["seed"])
    prefix_mse = [float(((p - x) ** 2).mean()) for p in prefixes]
    train_feats = tok.branch_features(train.images[:task["n_probe"]])
    probes = [linear_probe(tr, train.labels[:task["n_probe"]], te, test.labels[:task["n_eval"]])
              for tr, te in zip(train_feats, tok.branch_features(x), strict=True)]
    show = x[:8]
    return {"arm": task["arm"], "path": path, "positions": tok.config.positions,
            "branches": tok.config.branches, "rfd": rfd.mean, "rfd_lo": rfd.lo, "rfd_hi": rfd.hi,
            "mse": float(((recon - x) ** 2).mean()), "psnr": psnr(recon, x), "ssim": ssim(recon, x),
            "prefix_mse": prefix_mse, "mse_2_scales": prefix_mse[1] if len(prefix_mse) > 1 else math.nan,
            "probe": probes, "usage": tok.codebook_usage(codes), "train_s": tok.history_.seconds,
            "recon_mse_curve": tok.history_.recon_mse,
            "show": show, "show_recon": recon[:8],
            "show_prefix": np.stack([p[:8] for p in prefixes])}


def ar_task(task: dict) -> dict:
    """Train (or load) one AR model on a tokenizer arm; pick CFG on a separate seed; measure gFD/KID."""

    from iclr25.imagefolder.classifiers import embed
    from iclr25.imagefolder.metrics import fd_bootstrap, fd_features, kid
    from iclr25.imagefolder.tokenizer import MSRQTokenizer
    from iclr25.imagefolder.var import FoldedVAR

    torch.manual_seed(task["seed"])
    train, test = _data(task["n_train"])
    tok = MSRQTokenizer.load(task["tok_path"])
    key = {k: task[k] for k in ("arm", "fold", "n_train", "epochs", "seed", "depth", "width")}
    path = _cache_path("ar", {**key, "tok": tok.fingerprint()})
    ar = _load_cached(lambda p: FoldedVAR.load(p, tok), path)
    if ar is None:
        ar = FoldedVAR(tok, 10, task["depth"], task["width"], fold=task["fold"])
        ar.fit(train.images, train.labels, epochs=task["epochs"], seed=task["seed"])
        ar.save(path)
    fd_net = classifier("fd", task["n_train"], task["clf_epochs"], task["seed"] + 202)
    n, n_cfg = task["n_eval"], task["n_cfg"]
    # CFG is chosen on a separate seed against the other half of the test set
    held = test.images[n:n + n_cfg] if len(test.images) >= n + n_cfg else test.images[-n_cfg:]
    f_held = embed(fd_net, held)
    cfg_fd = {}
    for i, cfg in enumerate(CFG_GRID):
        imgs = ar.generate(np.arange(n_cfg) % 10, cfg, TOP_K, TOP_P, seed=task["seed"] + 1000 + i)
        cfg_fd[cfg] = fd_features(f_held, embed(fd_net, imgs))
    best = min(cfg_fd, key=cfg_fd.get)
    labels = np.arange(n) % 10
    import time
    t0 = time.perf_counter()
    samples = ar.generate(labels, best, TOP_K, TOP_P, seed=task["seed"])
    gen_s = time.perf_counter() - t0
    f_real, f_fake = embed(fd_net, test.images[:n]), embed(fd_net, samples)
    gfd = fd_bootstrap(f_real, f_fake, task["n_boot"], seed=task["seed"])
    k_mean, k_std = kid(f_real, f_fake, subsets=10, subset_size=min(1000, n), seed=task["seed"])
    cls_acc = float((embed(fd_net, samples, logits=True).argmax(1) == labels).mean())
    order = np.argsort(labels[:40], kind="stable")
    return {"arm": task["arm"], "fold": task["fold"], "positions": ar.positions, "gfd": gfd.mean,
            "gfd_lo": gfd.lo, "gfd_hi": gfd.hi, "kid": k_mean, "kid_std": k_std, "class_acc": cls_acc,
            "cfg": best, "cfg_fd": {str(k): v for k, v in cfg_fd.items()}, "train_s": ar.history_["seconds"],
            "loss": ar.history_["loss"], "gen_s_per_image": gen_s / n, "path": path,
            "show": samples[:40][order]}


def bench_task(task: dict) -> dict:
    from iclr25.imagefolder.timing import sampling_benchmark
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    tok = MSRQTokenizer.load(task["tok_path"])
    return sampling_benchmark(tok, 10, task["depth"], task["width"], task["batch"], task["repeats"],
                              seed=task["seed"])


def floor_task(task: dict) -> dict:
    """FD between real training and test images at the evaluation n: the floor of any gFD."""
    from iclr25.imagefolder.classifiers import embed
    from iclr25.imagefolder.metrics import fd_bootstrap, kid

    train, test = _data(task["n_train"])
    fd_net = classifier("fd", task["n_train"], task["clf_epochs"], task["seed"] + 202)
    n = task["n_eval"]
    a, b = embed(fd_net, train.images[:n]), embed(fd_net, test.images[:n])
    iv = fd_bootstrap(a, b, task["n_boot"], seed=task["seed"])
    from iclr25.imagefolder.classifiers import accuracy
    return {"n_eval": n, "fd": iv.mean, "fd_lo": iv.lo, "fd_hi": iv.hi, "kid": kid(a, b, 10, min(1000, n))[0],
            "fd_net_test_acc": accuracy(fd_net, test.images[:n], test.labels[:n])}


# ---- verdict rules (pure: unit-tested on fixed numbers) --------------------------------------------

def _gt(a: float, b: float) -> Verdict:
    return Verdict.REPRODUCED if a > b else Verdict.NOT_REPRODUCED


def decide_product_quantization(rfd_pq1: float, rfd_pq2: float, psnr_pq1: float, psnr_pq2: float,
                                gfd_pq1: float, gfd_pq2: float) -> Verdict:
    return all_of(ratio_at_most(rfd_pq2, rfd_pq1, 0.9), _gt(psnr_pq2, psnr_pq1),
                  ratio_at_most(gfd_pq2, gfd_pq1, 1.05))


def decide_semantic_one_branch(gfd_none: float, gfd_all: float, gfd_one: float) -> Verdict:
    below = int(gfd_one < gfd_none) + int(gfd_one < gfd_all)
    return (Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED)[2 - below]


def decide_branch_specialisation(probe_semantic: float, probe_detail: float) -> Verdict:
    """Accuracies in [0, 1]; the margin is in percentage points."""
    return at_least(round(100 * (probe_semantic - probe_detail), 9), 5.0)  # 0.70 - 0.65 is 4.99999...


def decide_quantizer_dropout(mse2_drop: float, mse2_nodrop: float, gfd_drop: float,
                             gfd_nodrop: float) -> Verdict:
    return all_of(ratio_at_most(mse2_drop, mse2_nodrop, 0.9), at_most(gfd_drop, gfd_nodrop))


def decide_length_tradeoff(rfd_k4: float, rfd_k6: float, gfd_k4: float, gfd_k6: float) -> Verdict:
    r_gain, g_gain = (rfd_k4 - rfd_k6) / rfd_k4, (gfd_k4 - gfd_k6) / gfd_k4
    return all_of(_gt(r_gain, 0.0), at_least(r_gain, 2 * g_gain))


def decide_fold_quality(gfd_folded: float, gfd_unfolded: float) -> Verdict:
    return graded(gfd_folded / gfd_unfolded, 1.0, 1.1, higher_is_better=False)


def decide_fold_efficiency(time_ratio: float) -> Verdict:
    return at_least(time_ratio, 1.6)


# ---- the run ---------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    from iclr25.core.errors import UserError
    from iclr25.imagefolder.data import fashion_mnist_available, fashion_mnist_dir

    if not fashion_mnist_available():
        raise UserError(f"Fashion-MNIST idx files not found in {fashion_mnist_dir()}: "
                        "apt-get install dataset-fashion-mnist")
    sz = sizes(ctx)
    arms = tuple(ARMS) if profile == "full" else QUICK_ARMS
    base = {"n_train": sz.n_train, "epochs": sz.epochs, "seed": ctx.seed, "n_eval": sz.n_eval,
            "n_boot": sz.n_boot, "clf_epochs": sz.clf_epochs}
    # the two classifiers first (cached), so that parallel workers never train them twice
    width = sz.tok_kw.get("width", 64)
    ctx.map(_train_classifier, [("teacher", sz.n_train, sz.clf_epochs, ctx.seed + 101, width),
                                ("fd", sz.n_train, sz.clf_epochs, ctx.seed + 202, 64)], "classifiers")
    toks = ctx.map(tokenizer_task, [{**base, "arm": a, "tok_kw": sz.tok_kw, "n_probe": sz.n_probe}
                                    for a in arms], "tokenizers")
    tok = {r["arm"]: r for r in toks}
    # the longest AR runs first, so that the two workers finish together
    ar_runs = ([("imagefolder", False)] if profile == "full" else []) + sorted(
        [(a, True) for a in arms], key=lambda r: -len(ARMS[r[0]][1].get("scales", ())))
    ars = ctx.map(ar_task, [{**base, "arm": a, "fold": f, "tok_path": tok[a]["path"], "n_cfg": sz.n_cfg,
                             "depth": sz.ar_depth, "width": sz.ar_width} for a, f in ar_runs]
                  , "AR models")
    ar = {(r["arm"], r["fold"]): r for r in ars}
    floor = floor_task(base)
    # timing runs alone in this process (no parallel training competing for the cores)
    bench = bench_task({"tok_path": tok["imagefolder"]["path"], "depth": sz.bench_model[0],
                        "width": sz.bench_model[1],
                        "batch": sz.bench_batch, "repeats": sz.bench_repeats, "seed": ctx.seed})
    from iclr25.imagefolder.figures import make_figures
    figs = make_figures(ctx.out_dir, tok, ar, floor)
    scale = f"{profile}: {sz.n_train} images, {sz.epochs} epoch(s), {sz.n_eval} samples"
    findings = [_efficiency(bench, scale)]
    if profile == "full":
        findings += full_findings(tok, ar, floor, scale, figs)
    else:
        findings += quick_findings(tok, ar, floor, scale, figs)
    findings.append(Finding.not_testable(
        "imagenet_scale", "needs ImageNet 256², a DINOv2 encoder and teacher (hub weights), a GAN loss and "
        "a 362M-parameter VAR trained on 8 GPUs; the paper's 2.60 gFID / 0.80 rFID / 58.0 probe are "
        "Inception-FID numbers that our CNN-feature FD cannot be compared with"))
    order = [c.key for c in CLAIMS]
    return sorted(findings, key=lambda f: order.index(f.claim))


def _train_classifier(spec: tuple) -> int:
    classifier(*spec)
    return 0


def _efficiency(b: dict, scale: str) -> Finding:
    m = {k: v for k, v in b.items()}
    return Finding("fold_efficiency", decide_fold_efficiency(b["time_ratio"]), m,
                   f"KV-cached sampling {b['ms_per_image_unfolded']:.2f} ms/image unfolded "
                   f"({b['positions_unfolded']} positions) vs {b['ms_per_image_folded']:.2f} folded "
                   f"({b['positions_folded']}): {b['time_ratio']:.2f}x (criterion >= 1.6x); KV cache "
                   f"{b['kv_ratio']:.1f}x, attention FLOPs {b['attn_flops_ratio']:.1f}x; batch {b['batch']}, "
                   f"median of {b['repeats']}, {b['threads']} thread")


def _fd(r: dict, key: str) -> str:
    return f"{r[key]:.2f} [{r[key + '_lo']:.2f}, {r[key + '_hi']:.2f}]"


def _overlap(a: dict, b: dict, key: str) -> bool:
    return not (a[key + "_hi"] < b[key + "_lo"] or b[key + "_hi"] < a[key + "_lo"])


def _measured_tok(r: dict, name: str) -> dict:
    out = {f"rfd_{name}": r["rfd"], f"rfd_{name}_lo": r["rfd_lo"], f"rfd_{name}_hi": r["rfd_hi"],
           f"psnr_{name}": r["psnr"], f"ssim_{name}": r["ssim"], f"mse_{name}": r["mse"],
           f"mse_2_scales_{name}": r["mse_2_scales"], f"codebook_usage_{name}": r["usage"],
           f"positions_{name}": r["positions"]}
    for b, p in enumerate(r["probe"]):
        out[f"probe_branch{b}_{name}"] = p
    return out


def _measured_ar(r: dict, name: str) -> dict:
    return {f"gfd_{name}": r["gfd"], f"gfd_{name}_lo": r["gfd_lo"], f"gfd_{name}_hi": r["gfd_hi"],
            f"kid_{name}": r["kid"], f"class_acc_{name}": r["class_acc"], f"cfg_{name}": r["cfg"],
            f"ar_positions_{name}": r["positions"]}


def _floor(floor: dict) -> dict:
    return {"fd_floor_train_vs_test": floor["fd"], "fd_floor_lo": floor["fd_lo"],
            "fd_floor_hi": floor["fd_hi"], "kid_floor": floor["kid"],
            "fd_net_test_acc": floor["fd_net_test_acc"]}


def full_findings(tok: dict, ar: dict, floor: dict, scale: str, figs: dict) -> list[Finding]:
    """The six trend claims, decided from the full profile's measurements."""
    fl = _floor(floor)
    g = {a: ar[(a, True)] for a in ARMS}
    pq1, pq2 = tok["pq1"], tok["pq2"]
    out = []
    m = {**_measured_tok(pq1, "pq1"), **_measured_tok(pq2, "pq2"), **_measured_ar(g["pq1"], "pq1"),
         **_measured_ar(g["pq2"], "pq2"), **fl}
    out.append(Finding(
        "product_quantization",
        decide_product_quantization(pq1["rfd"], pq2["rfd"], pq1["psnr"], pq2["psnr"], g["pq1"]["gfd"],
                                    g["pq2"]["gfd"]), m,
        f"rFD {_fd(pq1, 'rfd')} -> {_fd(pq2, 'rfd')} ({pq2['rfd'] / pq1['rfd']:.2f}x, need <= 0.9), PSNR "
        f"{pq1['psnr']:.2f} -> {pq2['psnr']:.2f} dB, gFD {_fd(g['pq1'], 'gfd')} -> {_fd(g['pq2'], 'gfd')} "
        f"({g['pq2']['gfd'] / g['pq1']['gfd']:.2f}x, need <= 1.05); "
        f"floor {fl['fd_floor_train_vs_test']:.2f}; {scale}", [figs["fd"], figs["reconstructions"]]))
    none, all_, one = g["pq2"], g["pq2_sem_all"], g["imagefolder"]
    m = {**_measured_ar(none, "none"), **_measured_ar(all_, "all"), **_measured_ar(one, "one"), **fl}
    sep = "intervals overlap" if _overlap(one, none, "gfd") or _overlap(one, all_, "gfd") else \
        "intervals separate"
    out.append(Finding(
        "semantic_one_branch", decide_semantic_one_branch(none["gfd"], all_["gfd"], one["gfd"]), m,
        f"gFD none {_fd(none, 'gfd')}, all {_fd(all_, 'gfd')}, one {_fd(one, 'gfd')} ({sep}); {scale}",
        [figs["fd"], figs["samples"]]))
    imf = tok["imagefolder"]
    sem, det = imf["probe"][-1], imf["probe"][0]
    m = {"probe_semantic": sem, "probe_detail": det, "probe_gap_points": 100 * (sem - det),
         "probe_pq2_branch0": pq2["probe"][0], "probe_pq2_branch1": pq2["probe"][1],
         "probe_pq1": pq1["probe"][0]}
    m.update(_ci(sem, floor["n_eval"], "probe_semantic"))
    m.update(_ci(det, floor["n_eval"], "probe_detail"))
    out.append(Finding(
        "branch_specialisation", decide_branch_specialisation(sem, det), m,
        f"linear probe semantic branch {100 * sem:.1f}% vs detail branch {100 * det:.1f}% "
        f"({100 * (sem - det):+.1f} points, need >= +5); without semantics (PQ2) "
        f"{100 * pq2['probe'][1]:.1f}% / {100 * pq2['probe'][0]:.1f}%; paper 40.5% (ImageNet, 1000 classes); "
        f"{scale}"))
    nd = tok["pq1_nodrop"]
    m = {**_measured_tok(pq1, "drop"), **_measured_tok(nd, "nodrop"), **_measured_ar(g["pq1"], "drop"),
         **_measured_ar(g["pq1_nodrop"], "nodrop"), **fl,
         "mse_2_scales_ratio": pq1["mse_2_scales"] / nd["mse_2_scales"]}
    out.append(Finding(
        "quantizer_dropout",
        decide_quantizer_dropout(pq1["mse_2_scales"], nd["mse_2_scales"], g["pq1"]["gfd"],
                                 g["pq1_nodrop"]["gfd"]), m,
        f"MSE from 2 of 4 scales {nd['mse_2_scales']:.4f} -> {pq1['mse_2_scales']:.4f} with dropout "
        f"({pq1['mse_2_scales'] / nd['mse_2_scales']:.2f}x, need <= 0.9); gFD {_fd(g['pq1_nodrop'], 'gfd')} "
        f"-> {_fd(g['pq1'], 'gfd')}; rFD {nd['rfd']:.2f} -> {pq1['rfd']:.2f}; {scale}", [figs["prefixes"]]))
    k6 = tok["pq1_k6"]
    r_gain = (pq1["rfd"] - k6["rfd"]) / pq1["rfd"]
    g_gain = (g["pq1"]["gfd"] - g["pq1_k6"]["gfd"]) / g["pq1"]["gfd"]
    m = {**_measured_tok(pq1, "k4"), **_measured_tok(k6, "k6"), **_measured_ar(g["pq1"], "k4"),
         **_measured_ar(g["pq1_k6"], "k6"), "rfd_rel_gain": r_gain, "gfd_rel_gain": g_gain, **fl}
    out.append(Finding(
        "length_tradeoff",
        decide_length_tradeoff(pq1["rfd"], k6["rfd"], g["pq1"]["gfd"], g["pq1_k6"]["gfd"]), m,
        f"30 -> 66 positions: rFD {pq1['rfd']:.2f} -> {k6['rfd']:.2f} ({100 * r_gain:+.1f}%), gFD "
        f"{g['pq1']['gfd']:.2f} -> {g['pq1_k6']['gfd']:.2f} ({100 * g_gain:+.1f}%); need rFD gain > 0 and "
        f">= 2x gFD gain; {scale}", [figs["fd"]]))
    fo, un = ar[("imagefolder", True)], ar[("imagefolder", False)]
    m = {**_measured_ar(fo, "folded"), **_measured_ar(un, "unfolded"), **fl,
         "gfd_ratio_folded_over_unfolded": fo["gfd"] / un["gfd"]}
    out.append(Finding(
        "fold_quality", decide_fold_quality(fo["gfd"], un["gfd"]), m,
        f"gFD folded ({fo['positions']} positions) {_fd(fo, 'gfd')} vs unfolded ({un['positions']}) "
        f"{_fd(un, 'gfd')}: {fo['gfd'] / un['gfd']:.2f}x (need <= 1, PARTIAL <= 1.1); {scale}",
        [figs["samples"]]))
    return out


def _ci(p: float, n: int, name: str) -> dict:
    iv = proportion_ci(int(round(p * n)), n)
    return {f"{name}_lo": iv.lo, f"{name}_hi": iv.hi}


def quick_findings(tok: dict, ar: dict, floor: dict, scale: str, figs: dict) -> list[Finding]:
    """Quick trains PQ1 and ImageFolder only: its numbers, shown beside the committed full record."""
    p1, imf = tok["pq1"], tok["imagefolder"]
    g1, gi = ar[("pq1", True)], ar[("imagefolder", True)]
    fl = _floor(floor)
    m = {**_measured_tok(p1, "pq1"), **_measured_tok(imf, "imagefolder"), **_measured_ar(g1, "pq1"),
         **_measured_ar(gi, "imagefolder"), **fl}
    base = (f"{scale}: PQ1 rFD {_fd(p1, 'rfd')}, PSNR {p1['psnr']:.2f} dB, gFD {_fd(g1, 'gfd')}; "
            f"ImageFolder rFD {_fd(imf, 'rfd')}, PSNR {imf['psnr']:.2f} dB, gFD {_fd(gi, 'gfd')}; "
            f"floor {fl['fd_floor_train_vs_test']:.2f}")
    probe = (f"{scale}: ImageFolder linear probe semantic branch {100 * imf['probe'][-1]:.1f}% vs detail "
             f"{100 * imf['probe'][0]:.1f}%")
    prefix = (f"{scale}: MSE from 2 scales PQ1 (with dropout) {p1['mse_2_scales']:.4f}, ImageFolder "
              f"{imf['mse_2_scales']:.4f}; the no-dropout arm runs in full only")
    out = [Finding.deferred("product_quantization", base + " (full compares PQ2 without semantics)", **m),
           Finding.deferred("semantic_one_branch", base + " (the none/all arms run in full only)", **m),
           Finding.deferred("branch_specialisation", probe, **m),
           Finding.deferred("quantizer_dropout", prefix, **m),
           Finding.deferred("length_tradeoff", base + " (the K = 6 arm runs in full only)", **m),
           Finding.deferred("fold_quality", base + " (the unfolded AR runs in full only)", **m)]
    out[0].figures = [figs["fd"], figs["reconstructions"]]
    out[1].figures = [figs["samples"]]
    out[3].figures = [figs["prefixes"]]
    return out
