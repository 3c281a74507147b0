"""`iclr25 psr_sci ...`: simulate a CASSI snapshot from your own image, reconstruct your own measurement
(GAP-TV, TwIST, least-norm, the predictor or PSR-SCI), and reconstruct the real TSA-Net scenes.

    iclr25 psr_sci simulate --image photo.png --mask kaist --out meas.npz
    iclr25 psr_sci reconstruct --meas meas.npz --method psr --out cube.npz --rgb cube.png
    iclr25 psr_sci real --scene 3 --method psr --rgb real3.png
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="PSR-SCI: CASSI spectral reconstruction refined by guided subspace diffusion.",
                  no_args_is_help=True, add_completion=False)

METHODS = ("gaptv", "twist", "least_norm", "predictor", "psr")
PROFILE_HELP = "which trained models: quick (trained in about 2 min of CPU on first use, then cached) or full"


def _mask(spec: str, size: int, seed: int):
    import numpy as np

    from iclr25.psr_sci.io import MASK_KEYS, read_any
    from iclr25.psr_sci.training import load_mask

    if spec == "kaist":
        mask, name = load_mask()
        if name != "kaist":
            raise UserError("--mask kaist: the KAIST mask is not in shared/data/17-psr-sci; "
                            "use random or a file")
    elif spec == "random":
        mask = (np.random.default_rng(seed).random((size, size)) < 0.5).astype(np.float32)
    else:
        mask = read_any(Path(spec), "mask", MASK_KEYS)
        if mask.ndim != 2:
            raise UserError(f"--mask: expected a 2-D mask, got shape {mask.shape}")
    if mask.shape[0] < size or mask.shape[1] < size:
        raise UserError(f"--mask is {mask.shape[0]}x{mask.shape[1]}, smaller than --size {size}")
    o0, o1 = (mask.shape[0] - size) // 2, (mask.shape[1] - size) // 2
    return np.ascontiguousarray(mask[o0:o0 + size, o1:o1 + size], dtype=np.float32)


@app.command()
def simulate(
    image: Annotated[Path, typer.Option(help="an RGB or gray image (PNG, JPEG, ...)")],
    out: Annotated[Path, typer.Option(help="output .npz with meas, mask, cube (ground truth), wavelengths")],
    mask: Annotated[str, typer.Option(help="kaist (the 256² KAIST mask), random (Bernoulli 0.5) or a "
                                           ".mat/.npz/.npy file")] = "kaist",
    size: Annotated[int, count("scene size in px (the image is centre-cropped and resized)", 1024,
                               low=8)] = 128,
    noise: Annotated[float, typer.Option(help="Gaussian noise std as a share of the mean measurement")] = 0.0,
    seed: Seed = 0,
) -> None:
    """Turn an image into a 28-band scene (superpixels mixing measured reflectances) and its snapshot."""
    import numpy as np
    import torch

    from iclr25.core.io import output_path, read_image
    from iclr25.psr_sci.operators import KAIST_WAVELENGTHS, cassi_forward
    from iclr25.psr_sci.scenes import synth_scene

    finite(noise, "--noise", 0.0, 10.0)
    output_path(out, "--out", (".npz",))
    rgb = read_image(image, "--image", "RGB").astype(np.float32) / 255.0
    m = _mask(mask, size, seed)
    from skimage.transform import resize

    side = min(rgb.shape[:2])
    o0, o1 = (rgb.shape[0] - side) // 2, (rgb.shape[1] - side) // 2
    crop = resize(rgb[o0:o0 + side, o1:o1 + side], (size, size), anti_aliasing=True).astype(np.float32)
    cube = synth_scene(crop, "train", np.random.default_rng(seed))
    y = cassi_forward(torch.as_tensor(cube), torch.as_tensor(m))
    if noise > 0:
        y = y + noise * y.mean() * torch.randn(y.shape, generator=torch.Generator().manual_seed(seed))
    y = y.clamp_min(0).numpy()
    np.savez_compressed(out, meas=y, mask=m, cube=cube, wavelengths=np.asarray(KAIST_WAVELENGTHS))
    typer.echo(f"wrote {out}: meas {y.shape[0]}x{y.shape[1]}, cube 28x{size}x{size}, mask {mask}")


def _reconstruct(y, m, method: str, profile: str, steps: int | None, g_scale: float | None, seed: int):
    """(cube, info) for one method; the networks need B = 28 and step 2."""
    import torch

    from iclr25.psr_sci.classic import gap_tv, twist
    from iclr25.psr_sci.operators import bands_from_width, least_norm
    from iclr25.psr_sci.pipeline import residual

    if method not in METHODS:
        raise UserError(f"--method: unknown method {method!r}; choose from {', '.join(METHODS)}")
    bands = bands_from_width(y.shape[-1], m.shape[-1])
    from iclr25.psr_sci.operators import check_problem

    check_problem(y, m, bands)
    if method in ("gaptv", "twist", "least_norm"):
        fn = {"gaptv": gap_tv, "twist": twist, "least_norm": least_norm}[method]
        x = fn(y, m, bands)
        return x, {"residual": residual(x, y, m)}
    if bands != 28:
        raise UserError(f"--method {method} is trained for 28 bands; this measurement has B = {bands}")
    from iclr25.core.runtime import pin_threads
    from iclr25.psr_sci.models import trained_models
    from iclr25.psr_sci.training import SIZES

    pin_threads()
    torch.manual_seed(seed)
    typer.echo(f"loading the {profile} models (trained and cached on first use)...", err=True)
    nets = trained_models(SIZES[profile], 0).build(SIZES[profile])
    if method == "predictor":
        x = nets.predictor.predict(y, m)
        return x, {"residual": residual(x, y, m)}
    return nets.psr.reconstruct(y, m, steps=steps, g_scale=g_scale, seed=seed)


def _write(x, out: Path | None, rgb: Path | None, info: dict) -> None:
    import numpy as np

    from iclr25.psr_sci.metrics import to_rgb
    from iclr25.psr_sci.operators import KAIST_WAVELENGTHS

    if out is not None:
        np.savez_compressed(out, cube=x, wavelengths=np.asarray(KAIST_WAVELENGTHS[:x.shape[0]]))
        typer.echo(f"wrote {out}")
    if rgb is not None:
        from PIL import Image

        wl = KAIST_WAVELENGTHS if x.shape[0] == 28 else np.linspace(450, 650, x.shape[0])
        Image.fromarray(to_rgb(x, wl, exposure=1.6 / max(float(np.percentile(x, 99)), 1e-6))).save(rgb)
        typer.echo(f"wrote {rgb}")
    line = f"residual ‖Φx−y‖/‖y‖ = {info['residual']:.4f}"
    if "residual_init" in info:
        line += f" (predictor {info['residual_init']:.4f}); refine {info['refine_s']:.1f} s"
    typer.echo(line)


def _check_outputs(out: Path | None, rgb: Path | None) -> None:
    from iclr25.core.io import output_path

    if out is not None:
        output_path(out, "--out", (".npz",))
    if rgb is not None:
        output_path(rgb, "--rgb", (".png", ".jpg", ".jpeg"))


@app.command()
def reconstruct(
    meas: Annotated[Path, typer.Option(help="measurement .npz (key meas, or its first array), .mat "
                                            "(key meas / meas_real / y) or .npy; H x (W + 2(B-1))")],
    mask: Annotated[Path | None, typer.Option(help="mask .mat/.npz/.npy (H x W); default: the 'mask' array "
                                                   "of the --meas .npz")] = None,
    method: Annotated[str, typer.Option(help=f"{' | '.join(METHODS)}")] = "psr",
    out: Annotated[Path | None, typer.Option(help="write the cube (B, H, W) to this .npz")] = None,
    rgb: Annotated[Path | None, typer.Option(help="write an sRGB render to this .png")] = None,
    profile: Annotated[str, typer.Option(help=PROFILE_HELP)] = "quick",
    steps: Annotated[int | None, count("DDIM steps (default: the profile's)", 1000)] = None,
    g_scale: Annotated[float | None, typer.Option(help="guidance scale s (default: the committed one)")] \
            = None,
    seed: Seed = 0,
) -> None:
    """Reconstruct a spectral cube from your own CASSI measurement (PSNR/SSIM/SAM if the truth is known)."""
    import numpy as np

    from iclr25.psr_sci.io import CUBE_KEYS, MASK_KEYS, MEAS_KEYS, read_any

    if profile not in ("quick", "full"):
        raise UserError(f"--profile must be quick or full, got {profile!r}")
    if method not in METHODS:
        raise UserError(f"--method: unknown method {method!r}; choose from {', '.join(METHODS)}")
    finite(g_scale, "--g-scale", 0.0, 1e6)
    _check_outputs(out, rgb)
    y = read_any(meas, "--meas", MEAS_KEYS)
    if mask is None:
        if meas.suffix.lower() != ".npz":
            raise UserError("--mask is required unless --meas is an .npz holding a 'mask' array")
        with np.load(meas, allow_pickle=False) as z:
            if "mask" not in z.files:
                raise UserError(f"--meas {meas} holds no 'mask' array; pass --mask")
        m = read_any(meas, "mask", ("mask",))
    else:
        m = read_any(mask, "--mask", MASK_KEYS)
    if y.ndim != 2 or m.ndim != 2:
        raise UserError(f"--meas and --mask must be 2-D, got shapes {y.shape} and {m.shape}")
    x, info = _reconstruct(y, m, method, profile, steps, g_scale, seed)
    _write(x, out, rgb, info)
    truth = None
    if meas.suffix.lower() == ".npz":
        with np.load(meas, allow_pickle=False) as z:
            key = next((k for k in CUBE_KEYS if k in z.files), None)
            truth = z[key] if key is not None else None
    if truth is not None and truth.shape == x.shape:
        from iclr25.psr_sci.metrics import psnr, sam, ssim

        typer.echo(f"vs ground truth: PSNR {psnr(x, truth):.2f} dB, SSIM {ssim(x, truth):.4f}, "
                   f"SAM {sam(x, truth):.2f}°")


@app.command()
def real(
    scene: Annotated[int, typer.Option(min=1, max=5, help="real TSA-Net scene 1..5 "
                                                         "(shared/data/17-psr-sci/real)")],
    method: Annotated[str, typer.Option(help=f"{' | '.join(METHODS)}")] = "psr",
    crop: Annotated[int, count("central region in px (0: the whole 660² scene, slow for psr)", 660,
                               low=0)] = 128,
    out: Annotated[Path | None, typer.Option(help="write the cube to this .npz")] = None,
    rgb: Annotated[Path | None, typer.Option(help="write an sRGB render to this .png")] = None,
    profile: Annotated[str, typer.Option(help=PROFILE_HELP)] = "quick",
    seed: Seed = 0,
) -> None:
    """Reconstruct a real TSA-Net CASSI snapshot (rescaled to the training brightness; no ground truth)."""
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
    x, info = _reconstruct(y, m, method, profile, None, None, seed)
    _write(x, out, rgb, info)

