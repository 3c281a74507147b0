"""PSR-SCI (ICLR 2025): CASSI spectral reconstruction by a predictor refined with guided diffusion in a
3-channel spectral subspace (URSe), with its operators, baselines (GAP-TV, TwIST, least-norm), the
band-group and full-cube refiners it is compared with, and metrics (PSNR, SSIM, SAM, RGB renders)."""

from importlib import import_module

from iclr25.core.registry import make_paper
from iclr25.psr_sci.claims import CLAIMS


def run(profile, ctx):
    """The reproduction (iclr25.psr_sci.experiments.run), imported on first use: it needs torch."""
    from iclr25.psr_sci.experiments import run as run_experiments

    return run_experiments(profile, ctx)


PAPER = make_paper("psr_sci", CLAIMS, run)

__all__ = [
    "CLAIMS", "KAIST_WAVELENGTHS", "PAPER", "SIZES", "FullCubeRefiner", "PSRPipeline", "Predictor",
    "PredictorConfig", "RefinerConfig", "SubspaceRefiner", "TrainedModels", "URSe", "URSeConfig",
    "cassi_adjoint", "cassi_forward", "freq_split", "gap_tv", "guidance_grad", "guidance_loss", "least_norm",
    "phi_phit_diag", "psnr", "residual", "run", "sam", "spectral_library", "ssim", "synth_scene", "to_rgb",
    "trained_models", "tv_denoise", "twist",
]

# Torch-based parts load on first use, so that `iclr25 psr_sci --help` and the registry stay fast.
_LAZY = {
    "FullCubeRefiner": "refiner",
    "KAIST_WAVELENGTHS": "operators",
    "PSRPipeline": "pipeline",
    "Predictor": "predictor",
    "PredictorConfig": "predictor",
    "RefinerConfig": "diffusion",
    "SIZES": "training",
    "SubspaceRefiner": "refiner",
    "TrainedModels": "models",
    "URSe": "urse",
    "URSeConfig": "urse",
    "cassi_adjoint": "operators",
    "cassi_forward": "operators",
    "freq_split": "freq",
    "gap_tv": "classic",
    "guidance_grad": "diffusion",
    "guidance_loss": "diffusion",
    "least_norm": "operators",
    "phi_phit_diag": "operators",
    "psnr": "metrics",
    "residual": "pipeline",
    "sam": "metrics",
    "spectral_library": "scenes",
    "ssim": "metrics",
    "synth_scene": "scenes",
    "to_rgb": "metrics",
    "trained_models": "models",
    "tv_denoise": "classic",
    "twist": "classic",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"iclr25.psr_sci.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'iclr25.psr_sci' has no attribute {name!r}")
