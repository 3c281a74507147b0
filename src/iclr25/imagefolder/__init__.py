"""ImageFolder (ICLR 2025): a dual-branch multi-scale residual tokenizer whose token pairs fold into one
autoregressive position, a next-scale AR generator over the folded tokens (and its unfolded baseline),
and image metrics without Inception (FD/KID in our own CNN's features, PSNR, SSIM, linear probe)."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "claims": ["CLAIMS"],
    "classifiers": ["FeatureCNN", "TeacherCNN", "train_classifier"],
    "data": ["ImageSet", "load_digits_images", "load_fashion_mnist", "load_images", "save_grid"],
    "experiments": ["run"],
    "metrics": ["fd_bootstrap", "fd_features", "frechet_distance", "kid", "linear_probe", "psnr", "ssim"],
    "quantizer": ["MultiScaleResidualQuantizer", "cosine_lookup"],
    "semantic": ["infonce"],
    "timing": ["sampling_benchmark"],
    "tokenizer": ["MSRQTokenizer", "TokenizerConfig"],
    "var": ["FoldedVAR", "VARConfig"],
})
