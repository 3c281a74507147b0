"""ImageFolder (ICLR 2025): a dual-branch multi-scale residual tokenizer whose token pairs fold into one
autoregressive position, a next-scale AR generator over the folded tokens (and its unfolded baseline),
and image metrics without Inception (FD/KID in our own CNN's features, PSNR, SSIM, linear probe)."""

from iclr25.core.registry import make_paper
from iclr25.imagefolder.classifiers import FeatureCNN, TeacherCNN, train_classifier
from iclr25.imagefolder.data import (
    ImageSet,
    load_digits_images,
    load_fashion_mnist,
    load_images,
    save_grid,
)
from iclr25.imagefolder.experiments import CLAIMS, run
from iclr25.imagefolder.metrics import (
    fd_bootstrap,
    fd_features,
    frechet_distance,
    kid,
    linear_probe,
    psnr,
    ssim,
)
from iclr25.imagefolder.quantizer import MultiScaleResidualQuantizer, cosine_lookup
from iclr25.imagefolder.semantic import infonce
from iclr25.imagefolder.timing import sampling_benchmark
from iclr25.imagefolder.tokenizer import MSRQTokenizer, TokenizerConfig
from iclr25.imagefolder.var import FoldedVAR, VARConfig

PAPER = make_paper("imagefolder", CLAIMS, run)

__all__ = [
    "CLAIMS", "PAPER", "FeatureCNN", "FoldedVAR", "ImageSet", "MSRQTokenizer", "MultiScaleResidualQuantizer",
    "TeacherCNN", "TokenizerConfig", "VARConfig", "cosine_lookup", "fd_bootstrap", "fd_features",
    "frechet_distance", "infonce", "kid", "linear_probe", "load_digits_images", "load_fashion_mnist",
    "load_images", "psnr", "run", "sampling_benchmark", "save_grid", "ssim", "train_classifier",
]
