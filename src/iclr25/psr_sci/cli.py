"""`iclr25 psr_sci ...`: simulate a CASSI snapshot from your own image, train the networks on your own
hyperspectral cubes (any band count), reconstruct your own measurement (GAP-TV, TwIST, least-norm, the
predictor or PSR-SCI, with GAP-TV printed beside as the classical baseline), and reconstruct the real
TSA-Net scenes.

    iclr25 psr_sci simulate --image photo.png --mask kaist -o meas.npz
    iclr25 psr_sci train --cubes my_cubes.npz -o my_models.pt
    iclr25 psr_sci reconstruct --meas meas.npz --method psr -o cube.npz --rgb cube.png
    iclr25 psr_sci real --scene 3 --method psr --rgb real3.png
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="PSR-SCI: CASSI spectral reconstruction refined by guided subspace diffusion.",
                  no_args_is_help=True, add_completion=False)

METHODS = ("gaptv", "twist", "least_norm", "predictor", "psr")
NETWORK_METHODS = ("predictor", "psr")
PROFILE_HELP = ("which trained models when --models is not given: quick (trained on synthetic scenes in "
                "about a minute of CPU on first use, then cached) or full (about 25 CPU-minutes)")
CUBE_KEYS = ("cube", "cubes", "img", "x", "truth", "hsi")


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _check_mask(m, what: str):
    """A 2-D coded aperture of transmittances in [0, 1] that lets some light through."""
    import numpy as np

    if m.ndim != 2:
        raise UserError(f"{what}: expected a 2-D mask (H, W), got shape {m.shape}")
    if not np.isfinite(m).all():
        raise UserError(f"{what}: the mask contains NaN or infinite values")
    if m.min() < 0 or m.max() > 1:
        raise UserError(f"{what}: mask values are transmittances in [0, 1], got [{m.min():g}, {m.max():g}]"
                        + (" (a 0/255 image? divide by 255)" if m.max() > 1 else ""))
    if not (m > 0).any():
        raise UserError(f"{what}: the mask is all zeros, so nothing would be measured")
    return m


def _mask(spec: str, size: int, seed: int):
    import numpy as np

    from iclr25.psr_sci.io import MASK_KEYS, read_any
    from iclr25.psr_sci.training import bernoulli_mask, load_mask

    if spec == "kaist":
        mask, name = load_mask()
        if name != "kaist":
            raise UserError("--mask kaist: the KAIST mask is not in shared/data/17-psr-sci; use random or a "
                            "file")
    elif spec == "random":
        return bernoulli_mask(size, seed)
    else:
        mask = _check_mask(read_any(Path(spec), "--mask", MASK_KEYS), "--mask")
        if mask.shape != (size, size):
            raise UserError(f"--mask is {mask.shape[0]}x{mask.shape[1]} but the scene is {size}x{size}: "
                            f"give a {size}x{size} mask or --size {min(mask.shape)} (only the KAIST mask is "
                            "cropped)")
    if mask.shape[0] < size or mask.shape[1] < size:
        raise UserError(f"--mask is {mask.shape[0]}x{mask.shape[1]}, smaller than --size {size}")
    o0, o1 = (mask.shape[0] - size) // 2, (mask.shape[1] - size) // 2
    return np.ascontiguousarray(mask[o0:o0 + size, o1:o1 + size], dtype=np.float32)


def _wavelengths(bands: int):
    """KAIST's 28 band centres, or `bands` centres evenly spaced over the same 453–648 nm."""
    import numpy as np

    from iclr25.psr_sci.operators import KAIST_WAVELENGTHS

    if bands == 28:
        return np.asarray(KAIST_WAVELENGTHS)
    return np.linspace(KAIST_WAVELENGTHS[0], KAIST_WAVELENGTHS[-1], bands)


@app.command()
def simulate(
    image: Annotated[Path, typer.Option(help="an RGB or gray image (PNG, JPEG, ...)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output .npz with meas, mask, cube (ground truth), "
                                                          "wavelengths")],
    mask: Annotated[str, typer.Option(help="kaist (the 256² KAIST mask, centre-cropped), random (Bernoulli "
                                           "0.5) or a .mat/.npz/.npy file of exactly --size x --size in "
                                           "[0, 1]")] = "kaist",
    size: Annotated[int, count("scene size in px (the image is centre-cropped and resized)", 1024,
                               low=8)] = 128,
    bands: Annotated[int, count("spectral bands: 28 = KAIST's centres, else evenly spaced over 453-648 nm",
                                256, low=3)] = 28,
    step: Annotated[int, count("dispersion per band, px (KAIST: 2)", 16)] = 2,
    noise: Annotated[float, typer.Option(help="Gaussian noise std as a share of the mean measurement")] = 0.0,
    seed: Seed = 0,
) -> None:
    """Turn an image into a B-band scene (superpixels mixing measured reflectances) and its snapshot."""
    import numpy as np
    import torch

    from iclr25.core.io import output_path, read_image
    from iclr25.psr_sci.operators import cassi_forward
    from iclr25.psr_sci.scenes import synth_scene

    finite(noise, "--noise", 0.0, 10.0)
    output_path(out, "--out", (".npz",))
    rgb = read_image(image, "--image", "RGB").astype(np.float32) / 255.0
    m = _mask(mask, size, seed)
    from skimage.transform import resize

    side = min(rgb.shape[:2])
    o0, o1 = (rgb.shape[0] - side) // 2, (rgb.shape[1] - side) // 2
    crop = resize(rgb[o0:o0 + side, o1:o1 + side], (size, size), anti_aliasing=True).astype(np.float32)
    wl = _wavelengths(bands)
    cube = synth_scene(crop, "train", np.random.default_rng(seed), wavelengths=tuple(float(x) for x in wl))
    y = cassi_forward(torch.as_tensor(cube), torch.as_tensor(m), step)
    if noise > 0:
        y = y + noise * y.mean() * torch.randn(y.shape, generator=torch.Generator().manual_seed(seed))
    y = y.clamp_min(0).numpy()
    np.savez_compressed(out, meas=y, mask=m, cube=cube, wavelengths=wl, step=np.asarray(step))
    typer.echo(f"wrote {out}: meas {y.shape[0]}x{y.shape[1]}, cube {bands}x{size}x{size}, mask {mask}")


def _networks(models: Path | None, profile: str, bands: int, step: int):
    """Trained networks from --models, or the profile's (trained on first use, with its stages shown)."""
    from iclr25.psr_sci.models import TrainedModels, trained_models
    from iclr25.psr_sci.training import SIZES

    if models is not None:
        trained = TrainedModels.load(models)
    else:
        if bands != 28 or step != 2:
            raise UserError(f"the built-in models are for 28 bands and step 2; this measurement has "
                            f"B = {bands}, step {step}: train your own with `iclr25 psr_sci train` and pass "
                            "--models")
        _say(f"loading the {profile} models (trained on synthetic scenes and cached on first use)")
        trained = trained_models(SIZES[profile], 0)
    cfg = trained.cfgs.predictor
    if (cfg.bands, cfg.step) != (bands, step):
        raise UserError(f"--models {models} is trained for B = {cfg.bands}, step {cfg.step}; this "
                        f"measurement has B = {bands}, step {step}")
    return trained.build()


def _reconstruct(y, m, method: str, bands: int, step: int, models: Path | None, profile: str,
                 steps: int | None, g_scale: float | None, seed: int):
    """(cube, info, GAP-TV cube or None): the method's reconstruction and, for the network methods, the
    classical baseline they start from."""
    import torch

    from iclr25.psr_sci.classic import gap_tv, twist
    from iclr25.psr_sci.operators import check_problem, least_norm
    from iclr25.psr_sci.pipeline import residual

    check_problem(y, m, bands, step)
    if method not in NETWORK_METHODS:
        fn = {"gaptv": gap_tv, "twist": twist, "least_norm": least_norm}[method]
        x = fn(y, m, bands, step)
        return x, {"residual": residual(x, y, m, step)}, None
    from iclr25.core.runtime import pin_threads

    pin_threads()
    torch.manual_seed(seed)
    nets = _networks(models, profile, bands, step)
    x_pred, x_gap = nets.predictor.predict_with_classic(y, m)
    if method == "predictor":
        return x_pred, {"residual": residual(x_pred, y, m, step)}, x_gap
    x, info = nets.psr.reconstruct(y, m, steps=steps, g_scale=g_scale, seed=seed, x_init=x_pred)
    info["residual_init"] = residual(x_pred, y, m, step)
    return x, info, x_gap


def _write(x, out: Path | None, rgb: Path | None, wavelengths) -> None:
    import numpy as np

    from iclr25.psr_sci.metrics import to_rgb

    if out is not None:
        np.savez_compressed(out, cube=x, wavelengths=np.asarray(wavelengths))
        typer.echo(f"wrote {out}")
    if rgb is not None:
        from PIL import Image

        exposure = 1.6 / max(float(np.percentile(x, 99)), 1e-6)
        Image.fromarray(to_rgb(x, wavelengths, exposure=exposure)).save(rgb)
        typer.echo(f"wrote {rgb}")


def _report(method: str, x, info: dict, x_gap, y, m, step: int, truth, own_models: bool = False) -> None:
    """The method's residual (and PSNR/SSIM/SAM when the truth is known) beside GAP-TV's, the classical
    baseline; a warning when the method does not beat it."""
    from iclr25.psr_sci.metrics import psnr, sam, ssim
    from iclr25.psr_sci.pipeline import residual

    def line(name: str, cube, res: float) -> str:
        text = f"{name:<22} residual ‖Φx−y‖/‖y‖ {res:.4f}"
        if truth is not None:
            text += (f"  PSNR {psnr(cube, truth):6.2f} dB  SSIM {ssim(cube, truth):.4f}  "
                     f"SAM {sam(cube, truth):5.2f}°")
        return text

    typer.echo(line(method, x, info["residual"]))
    if "residual_init" in info:
        typer.echo(line("predictor (its start)", info["x_init"], info["residual_init"]))
    if x_gap is None:
        if truth is None:
            typer.echo("no ground truth in --meas: residuals only (lower means closer to the measurement)")
        return
    typer.echo(line("GAP-TV (classical)", x_gap, residual(x_gap, y, m, step)))
    if truth is None:
        typer.echo("no ground truth in --meas: the residual alone does not rank reconstructions (a noisy "
                   "cube can fit y); compare on a simulated scene of yours (`simulate`) to see PSNR")
    elif psnr(x, truth) <= psnr(x_gap, truth):
        hint = ("the networks may be under-trained for it (more --steps / --predictor-steps in `train`)"
                if own_models else "models trained on other scenes may not fit yours (train on your own "
                "cubes: `iclr25 psr_sci train`)")
        _say(f"warning: {method} ({psnr(x, truth):.2f} dB) does not beat the classical GAP-TV "
             f"({psnr(x_gap, truth):.2f} dB) on this scene; {hint}")


def _check_outputs(out: Path | None, rgb: Path | None) -> None:
    from iclr25.core.io import output_path

    if out is not None:
        output_path(out, "--out", (".npz",))
    if rgb is not None:
        output_path(rgb, "--rgb", (".png", ".jpg", ".jpeg"))


def _npz_extra(meas: Path) -> dict:
    """Optional arrays of a simulate-style .npz: truth cube, wavelengths, step."""
    import numpy as np

    if meas.suffix.lower() != ".npz":
        return {}
    out = {}
    with np.load(meas, allow_pickle=False) as z:
        key = next((k for k in CUBE_KEYS if k in z.files), None)
        if key is not None:
            out["truth"] = z[key]
        for k in ("wavelengths", "step", "mask"):
            if k in z.files:
                out[k] = z[k]
    return out


@app.command()
def reconstruct(
    meas: Annotated[Path, typer.Option(help="measurement .npz (key meas, or its first array), .mat "
                                            "(key meas / meas_real / y) or .npy; H x (W + step(B-1))")],
    mask: Annotated[Path | None, typer.Option(help="mask .mat/.npz/.npy (H x W); default: the 'mask' array "
                                                   "of the --meas .npz")] = None,
    method: Annotated[str, typer.Option(help=f"{' | '.join(METHODS)}")] = "psr",
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the cube (B, H, W) to this "
                                                                 ".npz")] = None,
    rgb: Annotated[Path | None, typer.Option(help="write an sRGB render to this .png")] = None,
    bands: Annotated[int | None, typer.Option(min=2, max=1024, help="spectral bands B (default: the "
                                              "'wavelengths' array of the --meas .npz, else 28)")] = None,
    step: Annotated[int | None, typer.Option(min=1, max=64, help="dispersion per band, px (default: the "
                                             "'step' array of the --meas .npz, else 2)")] = None,
    models: Annotated[Path | None, typer.Option(help="networks from `iclr25 psr_sci train -o` (predictor "
                                                     "and psr); default: the --profile's")] = None,
    profile: Annotated[str, typer.Option(help=PROFILE_HELP)] = "quick",
    steps: Annotated[int | None, count("DDIM steps (default: the models')", 1000)] = None,
    g_scale: Annotated[float | None, typer.Option(help="guidance scale s (default: the models')")] = None,
    seed: Seed = 0,
) -> None:
    """Reconstruct a spectral cube from your own CASSI measurement; GAP-TV is printed beside as the
    classical baseline (PSNR/SSIM/SAM too when the .npz holds the true cube)."""
    import numpy as np

    from iclr25.psr_sci.io import MASK_KEYS, MEAS_KEYS, read_any

    if profile not in ("quick", "full"):
        raise UserError(f"--profile must be quick or full, got {profile!r}")
    if method not in METHODS:
        raise UserError(f"--method: unknown method {method!r}; choose from {', '.join(METHODS)}")
    finite(g_scale, "--g-scale", 0.0, 1e6)
    _check_outputs(out, rgb)
    y = read_any(meas, "--meas", MEAS_KEYS)
    extra = _npz_extra(meas)
    if mask is None:
        if "mask" not in extra:
            raise UserError("--mask is required unless --meas is an .npz holding a 'mask' array")
        m = np.asarray(extra["mask"], np.float32)
    else:
        m = read_any(mask, "--mask", MASK_KEYS)
    if y.ndim != 2:
        raise UserError(f"--meas must be 2-D (H, W + step(B-1)), got shape {y.shape}")
    _check_mask(m, "--mask")
    wl = extra.get("wavelengths")
    if bands is None:
        bands = int(len(wl)) if wl is not None else 28
    elif wl is not None and len(wl) != bands:
        raise UserError(f"--bands {bands} disagrees with the {len(wl)} wavelengths stored in {meas}")
    if step is None:
        step = int(extra["step"]) if "step" in extra else 2
    if wl is None or len(wl) != bands:
        wl = _wavelengths(bands)
    x, info, x_gap = _reconstruct(y, m, method, bands, step, models, profile, steps, g_scale, seed)
    _write(x, out, rgb, wl)
    truth = extra.get("truth")
    if truth is not None and truth.shape != x.shape:
        truth = None
    _report(method, x, info, x_gap, y, m, step, truth, own_models=models is not None)


@app.command()
def train(
    cubes: Annotated[Path, typer.Option(help="your hyperspectral cubes: an .npz/.npy/.mat holding (B, H, W) "
                                             "or (N, B, H, W) values in [0, 1] (key cube/cubes/img/x), or a "
                                             "folder of such files")],
    out: Annotated[Path, typer.Option("-o", "--out", help="where to write the trained networks (.pt)")],
    mask: Annotated[str, typer.Option(help="random (Bernoulli 0.5 masks) or your coded aperture "
                                           ".mat/.npz/.npy (at least --crop px each way; random crops of "
                                           "it are used)")] = "random",
    step: Annotated[int, count("dispersion per band, px (KAIST: 2)", 16)] = 2,
    crop: Annotated[int, count("training crop, px (even)", 512, low=8)] = 64,
    n_crops: Annotated[int, count("training crops drawn from your cubes (a tenth held "
                                  "out)", 100_000, low=4)] = 256,
    steps: Annotated[int, count("steps of the diffusion prior (the longest stage)", 1_000_000)] = 5000,
    predictor_steps: Annotated[int, count("steps of the predictor's learned stages", 1_000_000)] = 1500,
    urse_steps: Annotated[int, count("steps of URSe", 1_000_000)] = 3000,
    seed: Seed = 0,
) -> None:
    """Train the predictor, URSe and the diffusion priors on your own cubes (any band count B ≥ 3); the
    stages print as they start. Prints the predictor against GAP-TV on the held-out crops."""
    import numpy as np
    import torch

    from iclr25.core.io import output_path
    from iclr25.core.runtime import pin_threads
    from iclr25.psr_sci.models import TrainedModels
    from iclr25.psr_sci.training import bernoulli_mask, make_configs, train_all

    pin_threads()
    output_path(out, "--out", (".pt",))
    if crop % 2:
        raise UserError(f"--crop must be even (URSe halves it), got {crop}")
    data = _read_cubes(cubes)
    b, h, w = data.shape[1:]
    if min(h, w) < crop:
        raise UserError(f"--crop {crop} is larger than your cubes ({h}x{w})")
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(data), n_crops)
    ii, jj = rng.integers(0, h - crop + 1, n_crops), rng.integers(0, w - crop + 1, n_crops)
    crops = torch.as_tensor(np.stack([data[k, :, i:i + crop, j:j + crop] for k, i, j in zip(pick, ii, jj,
                                                                                             strict=True)]))
    if mask == "random":
        sources = [torch.as_tensor(bernoulli_mask(max(h, w), seed + k)) for k in range(4)]
    else:
        from iclr25.psr_sci.io import MASK_KEYS, read_any

        src = _check_mask(read_any(Path(mask), "--mask", MASK_KEYS), "--mask")
        if min(src.shape) < crop:
            raise UserError(f"--mask is {src.shape[0]}x{src.shape[1]}, smaller than --crop {crop}")
        sources = [torch.as_tensor(src)]
    gen = torch.Generator().manual_seed(seed)
    from iclr25.psr_sci.predictor import random_crop

    masks = torch.stack([random_crop(sources[k % len(sources)], crop, crop, gen) for k in range(n_crops)])
    cfgs = make_configs(b, step, predictor_steps, urse_steps, steps, prior_patch=min(64, 2 * crop))
    _say(f"training on {n_crops} crops of {crop}² from {len(data)} cube(s) of {b} bands")
    state = train_all(crops, masks, cfgs, seed, urse_patch=min(32, crop), say=_say)
    TrainedModels(state["configs"], state["predictor"], state["urse"], state["priors"]).save(out)
    mse = state["predictor"]["val_mse"]
    gap, best = mse[0], min(mse)
    typer.echo(f"predictor on {max(2, n_crops // 10)} held-out crops: PSNR {10 * np.log10(1 / best):.2f} dB "
               f"vs GAP-TV (its start, the classical baseline) {10 * np.log10(1 / gap):.2f} dB")
    if best >= gap:
        _say("warning: the learned stages did not beat GAP-TV on the held-out crops: the predictor is GAP-TV "
             "(more crops or --predictor-steps may help)")
    typer.echo(f"wrote {out}")


def _read_cubes(path: Path):
    """(N, B, H, W) float32 cubes from a file or a folder of files (all of one band count and size)."""
    import numpy as np

    from iclr25.psr_sci.io import read_any

    path = Path(path)
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in (".npz", ".npy", ".mat")) \
        if path.is_dir() else [path]
    if not files:
        raise UserError(f"--cubes: no .npz/.npy/.mat files in {path}")
    arrays = []
    for f in files:
        a = read_any(f, "--cubes", CUBE_KEYS)
        if a.ndim == 3:
            a = a[None]
        if a.ndim != 4:
            raise UserError(f"--cubes: {f.name} holds shape {a.shape}; expected (B, H, W) or (N, B, H, W)")
        arrays.append(a)
    shapes = {a.shape[1:] for a in arrays}
    if len(shapes) > 1:
        raise UserError(f"--cubes: the files differ in shape {sorted(shapes)}; give cubes of one (B, H, W)")
    data = np.concatenate(arrays).astype(np.float32)
    if data.shape[1] < 3:
        raise UserError(f"--cubes: need at least 3 bands, got {data.shape[1]} (is the array (B, H, W)?)")
    if data.min() < 0 or data.max() > 1:
        raise UserError(f"--cubes: values must lie in [0, 1] (reflectance or scaled radiance), got "
                        f"[{data.min():g}, {data.max():g}]")
    return data


@app.command()
def real(
    scene: Annotated[int, typer.Option(min=1, max=5, help="real TSA-Net scene 1..5 "
                                                         "(shared/data/17-psr-sci/real)")],
    method: Annotated[str, typer.Option(help=f"{' | '.join(METHODS)}")] = "psr",
    crop: Annotated[int, count("central region in px (0: the whole 660² scene, slow for psr)", 660,
                               low=0)] = 128,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the cube to this .npz")] = None,
    rgb: Annotated[Path | None, typer.Option(help="write an sRGB render to this .png")] = None,
    profile: Annotated[str, typer.Option(help=PROFILE_HELP)] = "quick",
    seed: Seed = 0,
) -> None:
    """Reconstruct a real TSA-Net CASSI snapshot (rescaled to the training brightness; no ground truth)."""
    from iclr25.psr_sci.operators import KAIST_WAVELENGTHS
    from iclr25.psr_sci.real import normalise_real, real_crop, real_scene

    if profile not in ("quick", "full"):
        raise UserError(f"--profile must be quick or full, got {profile!r}")
    if method not in METHODS:
        raise UserError(f"--method: unknown method {method!r}; choose from {', '.join(METHODS)}")
    if 0 < crop < 16:
        raise UserError(f"--crop must be 0 or at least 16 px, got {crop}")
    _check_outputs(out, rgb)
    y, m = real_crop(*real_scene(scene), crop)
    y = normalise_real(y, m)
    x, info, x_gap = _reconstruct(y, m, method, 28, 2, None, profile, None, None, seed)
    _write(x, out, rgb, KAIST_WAVELENGTHS)
    _report(method, x, info, x_gap, y, m, 2, None)
