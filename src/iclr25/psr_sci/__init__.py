"""PSR-SCI (ICLR 2025): CASSI spectral reconstruction by a predictor refined with guided diffusion in a
3-channel spectral subspace (URSe), with its operators, baselines (GAP-TV, TwIST, least-norm), the
band-group and full-cube refiners it is compared with, and metrics (PSNR, SSIM, SAM, RGB renders)."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "refiner": ["FullCubeRefiner", "SubspaceRefiner"],
    "operators": ["KAIST_WAVELENGTHS", "cassi_adjoint", "cassi_forward", "least_norm", "phi_phit_diag"],
    "pipeline": ["PSRPipeline", "residual"],
    "predictor": ["Predictor", "PredictorConfig"],
    "diffusion": ["RefinerConfig", "guidance_grad", "guidance_loss"],
    "training": ["SIZES"],
    "models": ["TrainedModels", "trained_models"],
    "urse": ["URSe", "URSeConfig"],
    "freq": ["freq_split"],
    "classic": ["gap_tv", "tv_denoise", "twist"],
    "metrics": ["psnr", "sam", "ssim", "to_rgb"],
    "scenes": ["spectral_library", "synth_scene"],
})
