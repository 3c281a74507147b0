"""PSR-SCI (ICLR 2025): CASSI spectral reconstruction by a predictor refined with guided diffusion in a
3-channel spectral subspace (URSe), with its operators, baselines (GAP-TV, TwIST, least-norm), the
band-group and full-cube refiners it is compared with, and metrics (PSNR, SSIM, SAM, RGB renders)."""

from iclr25.core.registry import make_paper
from iclr25.psr_sci.classic import gap_tv, tv_denoise, twist
from iclr25.psr_sci.diffusion import RefinerConfig, guidance_grad, guidance_loss
from iclr25.psr_sci.experiments import CLAIMS, run
from iclr25.psr_sci.freq import freq_split
from iclr25.psr_sci.metrics import psnr, sam, ssim, to_rgb
from iclr25.psr_sci.models import TrainedModels, trained_models
from iclr25.psr_sci.operators import (
    KAIST_WAVELENGTHS,
    cassi_adjoint,
    cassi_forward,
    least_norm,
    phi_phit_diag,
)
from iclr25.psr_sci.pipeline import PSRPipeline, residual
from iclr25.psr_sci.predictor import Predictor, PredictorConfig
from iclr25.psr_sci.refiner import FullCubeRefiner, SubspaceRefiner
from iclr25.psr_sci.scenes import spectral_library, synth_scene
from iclr25.psr_sci.training import SIZES
from iclr25.psr_sci.urse import URSe, URSeConfig

PAPER = make_paper("psr_sci", CLAIMS, run)

__all__ = [
    "CLAIMS", "KAIST_WAVELENGTHS", "PAPER", "SIZES", "FullCubeRefiner", "PSRPipeline", "Predictor",
    "PredictorConfig", "RefinerConfig", "SubspaceRefiner", "TrainedModels", "URSe", "URSeConfig",
    "cassi_adjoint", "cassi_forward", "freq_split", "gap_tv", "guidance_grad", "guidance_loss", "least_norm",
    "phi_phit_diag", "psnr", "residual", "run", "sam", "spectral_library", "ssim", "synth_scene", "to_rgb",
    "trained_models", "tv_denoise", "twist",
]
