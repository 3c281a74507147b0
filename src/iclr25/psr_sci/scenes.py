"""Synthetic spectral scenes at the 28 KAIST bands: measured reflectance spectra (colour-science) mixed
over SLIC superpixels of scikit-image photographs (spec §4): each superpixel is a Dirichlet mix of three
spectra chosen near its colour, borders are smoothed and the photograph's luminance shades the cube."""

from __future__ import annotations

import functools
import gzip
from dataclasses import dataclass

import numpy as np

from iclr25.core.data import package_file
from iclr25.psr_sci.operators import KAIST_WAVELENGTHS

TRAIN_IMAGES = ("astronaut", "rocket", "hubble_deep_field", "immunohistochemistry", "retina",
                "colorwheel", "camera", "brick", "grass", "coins")
TEST_IMAGES = ("chelsea", "coffee")
ZERO_SHOT_IMAGES = ("motorcycle_left",)


def _read_table(path, opener=open) -> tuple[np.ndarray, np.ndarray]:
    with opener(path, "rt") as f:
        rows = [line.strip().split(",") for line in f if line.strip()]
    body = np.array([[float(v) for v in r] for r in rows[1:]])
    return body[:, 0], body[:, 1:].T  # wavelengths (n_wl,), spectra (n, n_wl)


def _resample(wl: np.ndarray, spectra: np.ndarray, to: np.ndarray) -> np.ndarray:
    return np.stack([np.interp(to, wl, s) for s in spectra])


@functools.lru_cache(maxsize=8)
def spectral_library(name: str = "train", wavelengths: tuple[float, ...] = KAIST_WAVELENGTHS) -> np.ndarray:
    """Reflectance spectra at `wavelengths` (nm; default the 28 KAIST bands), (n, B) in [0, 1]: "train" =
    190 rawtoaces patches + 24 ColorChecker (BabelColor average); "zero_shot" = the 99 CIE 2017
    colour-fidelity samples."""
    to = np.asarray(wavelengths, dtype=float)
    if name == "train":
        wl, s = _read_table(package_file("colour", "characterisation", "datasets", "rawtoaces",
                                         "190_Patches.csv", pip_name="colour-science==0.4.7"))
        from iclr25.psr_sci.colour_data import colorchecker_spectra

        cc_wl, cc = colorchecker_spectra()
        lib = np.concatenate([_resample(wl, s, to), _resample(cc_wl, cc, to)])
    elif name == "zero_shot":
        wl, s = _read_table(package_file("colour", "quality", "datasets", "tcs_cfi2017_5_nm.csv.gz",
                                         pip_name="colour-science==0.4.7"), gzip.open)
        lib = _resample(wl, s, to)
    else:
        raise ValueError(f"unknown spectral library {name!r}; choose 'train' or 'zero_shot'")
    return np.clip(lib, 0.0, 1.0).astype(np.float32)


def load_image(name: str) -> np.ndarray:
    """A scikit-image sample photograph as float RGB (H, W, 3) in [0, 1]."""
    import skimage.data

    img = skimage.data.stereo_motorcycle()[0] if name == "motorcycle_left" else getattr(skimage.data, name)()
    img = np.asarray(img, dtype=np.float32) / 255.0
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=-1)
    return img[..., :3]


@functools.lru_cache(maxsize=16)
def _downscaled(name: str, scale: float) -> np.ndarray:
    from skimage.transform import downscale_local_mean

    f = max(int(round(1 / scale)), 1)
    return downscale_local_mean(load_image(name), (f, f, 1)).astype(np.float32)


@dataclass(frozen=True)
class SceneConfig:
    pixels_per_segment: int = 48  # SLIC superpixel size
    colour_temperature: float = 0.01  # softness of matching a superpixel's colour to library spectra
    dirichlet_alpha: float = 1.0
    border_sigma: float = 0.8  # px, smoothing of superpixel borders
    shading_floor: float = 0.25  # shading s = floor + (1 − floor)·luminance


@functools.lru_cache(maxsize=4)
def _library_rgb(name: str) -> np.ndarray:
    from iclr25.psr_sci.metrics import to_rgb

    lib = spectral_library(name)
    return to_rgb(lib.T[:, :, None]).reshape(-1, 3).astype(np.float32) / 255.0  # (n, 3)


def synth_scene(image: np.ndarray, library: str, rng: np.random.Generator,
                config: SceneConfig = SceneConfig(),
                wavelengths: tuple[float, ...] = KAIST_WAVELENGTHS) -> np.ndarray:
    """A (B, H, W) float32 cube in [0, 1] from an RGB crop (H, W, 3): X(p) = s(p)·Σ_j a_j(p)·r_j, at
    `wavelengths` (default the 28 KAIST bands; spectra are picked by their colour, seen at KAIST's)."""
    from scipy.ndimage import gaussian_filter
    from skimage.segmentation import slic

    h, w, _ = image.shape
    lib = spectral_library(library, tuple(float(x) for x in wavelengths))
    lib_rgb = _library_rgb(library)
    seg = slic(image, n_segments=max(h * w // config.pixels_per_segment, 1), compactness=10.0, start_label=0)
    n_seg = int(seg.max()) + 1
    counts = np.bincount(seg.ravel(), minlength=n_seg)[:, None].clip(min=1)
    sums = [np.bincount(seg.ravel(), image[..., c].ravel(), n_seg) for c in range(3)]
    mean_rgb = np.stack(sums, 1) / counts
    d2 = ((mean_rgb[:, None, :] - lib_rgb[None]) ** 2).sum(-1)  # (n_seg, n_lib)
    p = np.exp(-(d2 - d2.min(1, keepdims=True)) / config.colour_temperature)
    p /= p.sum(1, keepdims=True)
    refl = np.empty((n_seg, lib.shape[1]), np.float32)
    for i in range(n_seg):
        idx = rng.choice(len(lib), size=3, replace=True, p=p[i])
        a = rng.dirichlet([config.dirichlet_alpha] * 3)
        refl[i] = a @ lib[idx]
    cube = refl[seg].transpose(2, 0, 1)  # (B, H, W)
    cube = gaussian_filter(cube, sigma=(0, config.border_sigma, config.border_sigma), mode="nearest")
    lum = image @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    cube = cube * (config.shading_floor + (1 - config.shading_floor) * lum)[None]
    return (cube / max(float(cube.max()), 1e-6)).astype(np.float32)


def random_crops(names: tuple[str, ...], n: int, size: int, rng: np.random.Generator,
                 scale: float = 0.5) -> list[np.ndarray]:
    """`n` RGB crops (size, size, 3) from the photographs, downscaled by `scale` first (at full resolution
    where the downscaled photograph is smaller than `size`: the full profile times 256² scenes, and
    chelsea is 150 × 225 at half scale)."""
    imgs = [_downscaled(k, scale) for k in names]
    imgs = [img if min(img.shape[:2]) >= size else _downscaled(k, 1.0)
            for k, img in zip(names, imgs, strict=True)]
    if any(min(img.shape[:2]) < size for img in imgs):
        raise ValueError(f"a {size}² crop does not fit the photographs {names}")
    out = []
    for i in range(n):
        img = imgs[i % len(imgs)]
        y0 = rng.integers(0, img.shape[0] - size + 1)
        x0 = rng.integers(0, img.shape[1] - size + 1)
        out.append(img[y0:y0 + size, x0:x0 + size])
    return out
