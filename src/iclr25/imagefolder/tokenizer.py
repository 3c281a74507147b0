"""The ImageFolder tokenizer (spec §2): a ViT encoder reads the image patches together with `branches`
sets of K x K learnable latent tokens; a shared 1x1 projection (`quant_conv`) maps the latent outputs to
the codebook dimension, giving one K x K map per branch; each branch is quantised by its own
multi-scale residual quantiser; the decoder reads concat(f_hat_1, ..., f_hat_B) through `post_quant_conv`
with one mask token per image patch and predicts the pixels.

Deviations from the paper (stated in the README): a 2-layer, 64-wide ViT trained from scratch instead
of DINOv2-initialised ViT-B; pixel MSE, with the adversarial loss and the EMA of the weights as options
(`gan_weight`, `ema`; off by default and in the reproduction), no LPIPS (its backbone is hub weights); our
frozen CNN as the teacher."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write, progress
from iclr25.imagefolder.data import as_image_array, as_labels
from iclr25.imagefolder.optim import warmup_cosine
from iclr25.imagefolder.quantizer import MultiScaleResidualQuantizer
from iclr25.imagefolder.semantic import semantic_loss

Codes = list[list[torch.Tensor]]  # codes[branch][scale]: (B, s*s) int64
SEMANTIC = ("last", "all", None)
CHECKPOINT_KIND = "iclr25.imagefolder.tokenizer"
CHECKPOINT_VERSION = 1
MAX_PATCHES = 1024  # the encoder attends over all patches at once: memory grows with their square


@dataclass(frozen=True)
class TokenizerConfig:
    """Defaults: the issue's CPU scale of the paper's tokenizer (paper: K = 11, scales
    (1,1,2,3,3,4,5,6,8,11), V = 4096, d = 32, ViT-B); beta, phi, dropout and semantic settings are the
    paper's."""

    branches: int = 2  # product quantisation: 2 branches = ImageFolder, 1 = the VAR tokenizer
    scales: tuple[int, ...] = (1, 2, 3, 4)  # token-map sides, coarse to fine; the last is K
    codebook: int = 256  # V per branch
    dim: int = 16  # d, the codebook dimension
    width: int = 64  # ViT width (= the teacher's feature size, which quant_conv projects)
    depth: int = 2  # ViT layers in the encoder and in the decoder
    heads: int = 4
    patch: int = 7  # pixels per patch side
    semantic: str | None = "last"  # InfoNCE on the last branch ("last"), on every branch ("all"), off
    qdrop: float = 0.1  # share of each batch hit by quantizer dropout
    start_drop: int = 2  # dropout keeps n ~ U{start_drop, ..., S} scales
    beta: float = 0.25  # commitment weight
    phi_ratio: float = 0.5  # phi(x) = (1 - r) x + r conv(x)
    phi_shared: int = 4  # phi convs shared across scales by relative depth
    sem_weight: float = 0.1
    sem_logit_scale: float = 1.0
    latent_size: int | None = None  # K; defaults to the last scale, which must equal it
    gan_weight: float = 0.0  # adversarial loss weight (VQGAN's adaptive weight times this); 0 = off
    gan_start: int = 0  # the step at which the discriminator and the adversarial loss start
    ema: float = 0.0  # decay of the exponential moving average of the weights kept and saved; 0 = off

    @property
    def K(self) -> int:
        return self.latent_size or self.scales[-1]

    @property
    def positions(self) -> int:
        """AR positions: sum of s^2 over the scales (each carries `branches` tokens)."""
        return sum(s * s for s in self.scales)

    def validate(self) -> TokenizerConfig:
        sc = self.scales
        if not sc or any(not isinstance(s, int | np.integer) or s < 1 for s in sc):
            raise UserError(f"scales must be positive integers, got {sc}")
        if any(b < a for a, b in zip(sc, sc[1:], strict=False)):  # the paper repeats sides: (1,1,2,3,3,...)
            raise UserError(f"scales must not decrease (the last is K), got {','.join(map(str, sc))}")
        if self.latent_size is not None and sc[-1] != self.latent_size:
            raise UserError(f"the last scale must equal the latent size K={self.latent_size}, got {sc[-1]}")
        if self.codebook < 2:
            raise UserError(f"codebook must hold at least 2 codewords, got {self.codebook}")
        for name in ("branches", "dim", "width", "depth", "heads", "patch", "phi_shared"):
            if getattr(self, name) < 1:
                raise UserError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.width % self.heads:
            raise UserError(f"width {self.width} is not divisible by heads {self.heads}")
        if self.semantic not in SEMANTIC:
            raise UserError(f"semantic must be 'last', 'all' or None, got {self.semantic!r}")
        if not 0.0 <= self.qdrop <= 1.0:
            raise UserError(f"qdrop must be in [0, 1], got {self.qdrop}")
        if not 1 <= self.start_drop <= len(sc):
            raise UserError(f"start_drop must be in [1, {len(sc)}] (the number of scales), "
                            f"got {self.start_drop}")
        if not 0.0 <= self.phi_ratio <= 1.0:
            raise UserError(f"phi_ratio must be in [0, 1], got {self.phi_ratio}")
        if not (0.0 <= self.gan_weight <= 100.0 and self.gan_start >= 0):
            raise UserError(f"gan_weight must be in [0, 100] and gan_start >= 0, got {self.gan_weight}, "
                            f"{self.gan_start}")
        if not 0.0 <= self.ema < 1.0:
            raise UserError(f"ema must be a decay in [0, 1), got {self.ema}")
        return self


def _block(width: int, heads: int) -> nn.TransformerEncoderLayer:
    return nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, activation="gelu",
                                      batch_first=True, norm_first=True)


class TokenizerNet(nn.Module):
    """The networks: encoder with latent tokens, quant_conv, one MSRQ per branch, decoder."""

    def __init__(self, cfg: TokenizerConfig, channels: int, height: int, width: int):
        super().__init__()
        p, w, k = cfg.patch, cfg.width, cfg.K
        self.cfg, self.shape = cfg, (channels, height, width)
        self.grid = (height // p, width // p)
        n_patch = self.grid[0] * self.grid[1]
        self.patch_embed = nn.Linear(channels * p * p, w)
        self.pos_patch = nn.Parameter(torch.randn(1, n_patch, w) * 0.02)
        self.latent_tokens = nn.Parameter(torch.randn(1, cfg.branches * k * k, w) * 0.02)
        self.encoder = nn.TransformerEncoder(_block(w, cfg.heads), cfg.depth, enable_nested_tensor=False)
        self.enc_norm = nn.LayerNorm(w)
        self.quant_conv = nn.Linear(w, cfg.dim)  # a 1x1 conv on the latent tokens
        self.quantizers = nn.ModuleList(
            MultiScaleResidualQuantizer(cfg.scales, cfg.codebook, cfg.dim, cfg.beta, cfg.phi_ratio,
                                        cfg.phi_shared) for _ in range(cfg.branches))
        self.post_quant_conv = nn.Linear(cfg.branches * cfg.dim, w)
        self.pos_latent = nn.Parameter(torch.randn(1, k * k, w) * 0.02)
        self.mask_tokens = nn.Parameter(torch.randn(1, n_patch, w) * 0.02)
        self.decoder = nn.TransformerEncoder(_block(w, cfg.heads), cfg.depth, enable_nested_tensor=False)
        self.dec_norm = nn.LayerNorm(w)
        self.to_pixel = nn.Linear(w, channels * p * p)

    def patchify(self, x: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, n_patch, C p p)."""
        p = self.cfg.patch
        return F.unfold(x, kernel_size=p, stride=p).transpose(1, 2)

    def unpatchify(self, t: torch.Tensor) -> torch.Tensor:
        """(B, n_patch, C p p) -> (B, C, H, W)."""
        p = self.cfg.patch
        return F.fold(t.transpose(1, 2), self.shape[1:], kernel_size=p, stride=p)

    def encode_f(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Images in [-1, 1] (B, C, H, W) -> one latent map (B, d, K, K) per branch."""
        b, k = x.shape[0], self.cfg.K
        tokens = torch.cat([self.patch_embed(self.patchify(x)) + self.pos_patch,
                            self.latent_tokens.expand(b, -1, -1)], dim=1)  # (B, P + n_b K K, w)
        z = self.enc_norm(self.encoder(tokens)[:, self.pos_patch.shape[1]:])  # (B, n_b K K, w)
        f = self.quant_conv(z)  # (B, n_b K K, d)
        return [fb.transpose(1, 2).reshape(b, -1, k, k) for fb in f.chunk(self.cfg.branches, dim=1)]

    def decode_fhat(self, f_hats: Sequence[torch.Tensor]) -> torch.Tensor:
        """Concatenated branch maps [(B, d, K, K)] -> images in [-1, 1] space (B, C, H, W)."""
        f = torch.cat(list(f_hats), dim=1).flatten(2).transpose(1, 2)  # (B, K K, n_b d)
        b = f.shape[0]
        tokens = torch.cat([self.mask_tokens.expand(b, -1, -1),
                            self.post_quant_conv(f) + self.pos_latent], dim=1)
        h = self.dec_norm(self.decoder(tokens)[:, :self.mask_tokens.shape[1]])  # (B, P, w)
        return self.unpatchify(self.to_pixel(h))

    def forward(self, x: torch.Tensor, n_keep: torch.Tensor | None = None):
        """-> (reconstruction, mean VQ loss over branches, straight-through f_hat per branch)."""
        out = [q(f, n_keep) for q, f in zip(self.quantizers, self.encode_f(x), strict=True)]
        f_hats = [o[0] for o in out]
        vq = torch.stack([o[1] for o in out]).mean()
        return self.decode_fhat(f_hats), vq, f_hats


class PatchDiscriminator(nn.Module):
    """VQGAN's patch discriminator at our scale: strided 4x4 convolutions with LeakyReLU, one real/fake
    logit per patch. The tokenizer's adversarial loss (hinge) reads it."""

    def __init__(self, channels: int, width: int = 32, layers: int = 2):
        super().__init__()
        mods: list[nn.Module] = []
        c_in = channels
        for i in range(layers):
            c_out = width * 2 ** i
            mods += [nn.Conv2d(c_in, c_out, 4, stride=2, padding=1), nn.LeakyReLU(0.2)]
            c_in = c_out
        mods.append(nn.Conv2d(c_in, 1, 3, padding=1))
        self.net = nn.Sequential(*mods)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)  # (B, 1, h, w) logits


def hinge_d_loss(real_logits: torch.Tensor, fake_logits: torch.Tensor) -> torch.Tensor:
    """The discriminator's hinge loss: mean relu(1 − D(x)) + mean relu(1 + D(x̂)), halved (VQGAN)."""
    return 0.5 * (F.relu(1.0 - real_logits).mean() + F.relu(1.0 + fake_logits).mean())


def adaptive_weight(rec_loss: torch.Tensor, g_loss: torch.Tensor, last: torch.Tensor) -> torch.Tensor:
    """VQGAN's balance: ‖∇_last L_rec‖ / (‖∇_last L_G‖ + 1e-4), clamped to [0, 1e4], no gradient."""
    g_rec = torch.autograd.grad(rec_loss, last, retain_graph=True)[0]
    g_adv = torch.autograd.grad(g_loss, last, retain_graph=True)[0]
    return (g_rec.norm() / (g_adv.norm() + 1e-4)).clamp(0.0, 1e4).detach()


@dataclass
class TrainHistory:
    recon_mse: list[float] = field(default_factory=list)  # per epoch (or per eval_every steps), [-1, 1] units
    vq_loss: list[float] = field(default_factory=list)
    sem_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    steps: int = 0
    val_step: list[int] = field(default_factory=list)  # steps at which the validation images were scored
    val_mse: list[float] = field(default_factory=list)  # their reconstruction MSE, [0, 1] pixel units
    gan_d_loss: list[float] = field(default_factory=list)  # mean discriminator hinge loss per log period


class MSRQTokenizer:
    """ImageFolder's dual-branch multi-scale residual tokenizer, scikit-learn style.

    >>> import numpy as np
    >>> x = np.random.default_rng(0).random((64, 1, 8, 8), dtype=np.float32)
    >>> tok = MSRQTokenizer(patch=4, scales=(1, 2), codebook=8, dim=4, width=16, depth=1,
    ...                     semantic=None, epochs=1).fit(x)
    >>> [c.shape for c in tok.encode(x[:3])[0]]
    [torch.Size([3, 1]), torch.Size([3, 4])]
    >>> tok.reconstruct(x[:3], n_scales=1).shape
    (3, 1, 8, 8)
    """

    def __init__(self, branches: int = 2, scales: Sequence[int] = (1, 2, 3, 4), codebook: int = 256,
                 dim: int = 16, width: int = 64, depth: int = 2, patch: int = 7,
                 semantic: str | None = "last", qdrop: float = 0.1, start_drop: int = 2, *,
                 latent_size: int | None = None, heads: int = 4, epochs: int = 2, batch_size: int = 64,
                 lr: float = 2e-3, seed: int = 0, steps: int | None = None, **extra: float):
        self.config = TokenizerConfig(branches=branches, scales=tuple(int(s) for s in scales),
                                      codebook=codebook, dim=dim, width=width, depth=depth, heads=heads,
                                      patch=patch, semantic=semantic, qdrop=qdrop, start_drop=start_drop,
                                      latent_size=latent_size, **extra).validate()
        if epochs < 1 or batch_size < 2 or not lr > 0 or (steps is not None and steps < 1):
            raise UserError(f"epochs >= 1, steps >= 1, batch_size >= 2 and lr > 0 needed, "
                            f"got {epochs}, {steps}, {batch_size}, {lr}")
        self.epochs, self.batch_size, self.lr, self.seed = epochs, batch_size, lr, seed
        self.steps = steps  # optimiser steps in all; None: `epochs` passes over the images
        self.net_: TokenizerNet | None = None
        self.history_ = TrainHistory()

    # ---- fitting ---------------------------------------------------------------------------------

    def fit(self, images: np.ndarray, labels: np.ndarray | None = None,
            teacher: Callable[[torch.Tensor], torch.Tensor] | np.ndarray | None = None,
            teacher_epochs: int = 2, val_images: np.ndarray | None = None,
            eval_every: int = 250) -> MSRQTokenizer:
        """Train on images (N, C, H, W) / (N, H, W[, C]) in [0, 1] (or uint8).

        Semantic regularisation needs a teacher: a callable mapping a float batch (B, C, H, W) in [0, 1]
        to (B, width) features, an (N, width) array of precomputed features, or None to train our
        frozen `TeacherCNN` on `labels` first. `val_images`: scored every `eval_every` steps and at the
        end (`history_.val_step`, `history_.val_mse`), to see where training plateaus."""
        cfg = self.config
        x = torch.as_tensor(as_image_array(images))
        labels = as_labels(labels, len(x))
        _, c, h, w = x.shape
        if h % cfg.patch or w % cfg.patch:
            raise UserError(f"image size {h}x{w} is not divisible by patch {cfg.patch}")
        if (h // cfg.patch) * (w // cfg.patch) > MAX_PATCHES:
            raise UserError(f"image size {h}x{w} with patch {cfg.patch} gives "
                            f"{(h // cfg.patch) * (w // cfg.patch)} patches, more than {MAX_PATCHES}: "
                            "use a larger patch")
        if len(x) < 2:
            raise UserError(f"need at least 2 images to train, got {len(x)}")
        if eval_every < 1:
            raise UserError(f"eval_every must be >= 1, got {eval_every}")
        val = None if val_images is None else torch.as_tensor(as_image_array(val_images))
        if val is not None and tuple(val.shape[1:]) != (c, h, w):
            raise UserError(f"validation images are {tuple(val.shape[1:])}, training images {(c, h, w)}")
        teach = self._teacher_features(x, labels, teacher, teacher_epochs) if cfg.semantic else None
        torch.manual_seed(self.seed)
        self.net_ = TokenizerNet(cfg, c, h, w)
        self._train(x, teach, val, eval_every)
        return self

    def _teacher_features(self, x: torch.Tensor, labels, teacher, teacher_epochs: int) -> torch.Tensor:
        from iclr25.imagefolder.classifiers import TeacherCNN, embed, train_classifier

        if teacher is None:
            if labels is None:
                raise UserError("semantic regularisation needs a teacher: give class labels (to train our "
                                "frozen CNN teacher) or a teacher, or set semantic=None")
            net = TeacherCNN(x.shape[1], int(labels.max()) + 1, feat_dim=self.config.width)
            net = train_classifier(net, x.numpy(), labels, epochs=teacher_epochs, seed=self.seed + 1)
            feats = torch.as_tensor(embed(net, x.numpy()), dtype=torch.float32)
        elif callable(teacher):
            with torch.no_grad():
                feats = torch.cat([teacher(x[i:i + 500]).float() for i in range(0, len(x), 500)])
        else:
            feats = torch.as_tensor(np.asarray(teacher), dtype=torch.float32)
        if feats.shape != (len(x), self.config.width):
            raise UserError(f"teacher features must be (N, width) = ({len(x)}, {self.config.width}), "
                            f"got {tuple(feats.shape)}")
        if not torch.isfinite(feats).all():
            raise UserError("teacher features contain NaN or infinite values")
        return feats

    def _train(self, x: torch.Tensor, teach: torch.Tensor | None, val: torch.Tensor | None = None,
               eval_every: int = 250) -> None:
        import time

        cfg, net = self.config, self.net_
        g = torch.Generator().manual_seed(self.seed)
        n, bs, s_count = len(x), min(self.batch_size, len(x)), len(cfg.scales)
        per_epoch = n // bs  # full batches only: InfoNCE contrasts within a batch
        total = self.steps if self.steps is not None else self.epochs * per_epoch
        log_every = eval_every if self.steps is not None else per_epoch
        opt = torch.optim.AdamW(net.parameters(), lr=self.lr, betas=(0.9, 0.95), weight_decay=1e-4)
        sched = warmup_cosine(opt, total)
        disc = opt_d = None
        if cfg.gan_weight > 0:
            disc = PatchDiscriminator(x.shape[1])
            opt_d = torch.optim.AdamW(disc.parameters(), lr=self.lr, betas=(0.5, 0.9), weight_decay=1e-4)
        ema = {k: v.detach().clone() for k, v in net.state_dict().items()} if cfg.ema > 0 else None
        t0 = time.perf_counter()
        h = self.history_
        sums, since, perm, pos = np.zeros(3), 0, torch.randperm(n, generator=g), 0
        d_sum = 0.0
        for step in progress(range(1, total + 1), "tokenizer steps", total=total):
            net.train()
            if pos + bs > n:  # a new pass over the images
                perm, pos = torch.randperm(n, generator=g), 0
            idx = perm[pos:pos + bs]
            pos += bs
            xb = x[idx] * 2 - 1
            b = len(idx)
            n_drop = int(b * cfg.qdrop)  # quantizer dropout on the first n_drop samples, one n for all
            n_keep = torch.full((b,), s_count)
            n_keep[:n_drop] = torch.randint(cfg.start_drop, s_count + 1, (n_drop,), generator=g)
            recon, vq, f_hats = net(xb, n_keep if n_drop else None)
            rec = F.mse_loss(recon, xb)
            loss = rec + vq
            sem = torch.zeros(())
            if teach is not None and b - n_drop >= 2:
                z_s = net.quant_conv(teach[idx])  # the teacher feature through our quant_conv
                sem_branches = f_hats[-1:] if cfg.semantic == "last" else f_hats
                sem = semantic_loss(z_s, sem_branches, n_drop, cfg.sem_logit_scale)
                loss = loss + cfg.sem_weight * sem
            gan_on = disc is not None and step > cfg.gan_start
            if gan_on:  # VQGAN: L_G = −mean D(x̂), weighted adaptively against the reconstruction loss
                g_loss = -disc(recon).mean()
                loss = loss + cfg.gan_weight * adaptive_weight(rec, g_loss, net.to_pixel.weight) * g_loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            if gan_on:
                d_loss = hinge_d_loss(disc(xb), disc(recon.detach()))
                opt_d.zero_grad(set_to_none=True)
                d_loss.backward()
                opt_d.step()
                d_sum += d_loss.item()
            if ema is not None:
                with torch.no_grad():
                    for k, v in net.state_dict().items():
                        if v.dtype.is_floating_point:
                            ema[k].mul_(cfg.ema).add_(v, alpha=1.0 - cfg.ema)
                        else:
                            ema[k].copy_(v)
            sums += (rec.item(), vq.item(), sem.item())
            since += 1
            if step % log_every == 0 or step == total:
                h.recon_mse.append(float(sums[0] / since))
                h.vq_loss.append(float(sums[1] / since))
                h.sem_loss.append(float(sums[2] / since))
                if disc is not None:
                    h.gan_d_loss.append(d_sum / since)
                sums, since, d_sum = np.zeros(3), 0, 0.0
            if val is not None and (step % eval_every == 0 or step == total):
                net.eval()
                h.val_step.append(step)
                h.val_mse.append(self._val_mse(val))
        if ema is not None:  # the averaged weights are the tokenizer (scored at the end when validating)
            net.load_state_dict(ema)
            if val is not None:
                h.val_mse[-1] = self._val_mse(val)
        net.eval()
        h.steps = total
        h.seconds = time.perf_counter() - t0

    @torch.no_grad()
    def _val_mse(self, val: torch.Tensor) -> float:
        out = [self.net_(v * 2 - 1)[0] for v in val.split(500)]
        rec = (torch.cat(out).clamp(-1, 1) + 1) / 2
        return float(((rec - val) ** 2).mean())

    # ---- using a fitted tokenizer ------------------------------------------------------------------

    @property
    def net(self) -> TokenizerNet:
        if self.net_ is None:
            raise UserError("the tokenizer is not fitted: call fit() or MSRQTokenizer.load()")
        return self.net_

    def _images(self, images) -> torch.Tensor:
        x = torch.as_tensor(as_image_array(images.numpy() if torch.is_tensor(images) else images))
        if tuple(x.shape[1:]) != self.net.shape:
            raise UserError(f"images are {tuple(x.shape[1:])} (C, H, W); this tokenizer was trained on "
                            f"{self.net.shape}")
        return x * 2 - 1

    @torch.no_grad()
    def latents(self, images, batch_size: int = 500) -> list[torch.Tensor]:
        """The continuous latent maps f per branch, [(N, d, K, K)]."""
        x = self._images(images)
        parts = [self.net.encode_f(x[i:i + batch_size]) for i in range(0, len(x), batch_size)]
        return [torch.cat(p) for p in zip(*parts, strict=True)]

    @torch.no_grad()
    def encode(self, images, batch_size: int = 500) -> Codes:
        """codes[branch][scale]: (N, s*s) int64 token indices."""
        return [q.encode(f) for q, f in zip(self.net.quantizers, self.latents(images, batch_size),
                                            strict=True)]

    def _check_codes(self, codes: Codes, n_scales: int | None) -> int:
        cfg = self.config
        if len(codes) != cfg.branches:
            raise UserError(f"codes hold {len(codes)} branches; this tokenizer has {cfg.branches}")
        n = len(cfg.scales) if n_scales is None else n_scales
        if not 1 <= n <= len(cfg.scales):
            raise UserError(f"n_scales must be in [1, {len(cfg.scales)}], got {n_scales}")
        for cb in codes:
            if len(cb) < n:
                raise UserError(f"codes hold {len(cb)} scales, {n} needed")
            for s, c in zip(cfg.scales, cb, strict=False):
                if c.ndim != 2 or c.shape[1] != s * s:
                    raise UserError(f"scale {s} codes must be (N, {s * s}), got {tuple(c.shape)}")
                if len(c) and (int(c.min()) < 0 or int(c.max()) >= cfg.codebook):
                    raise UserError(f"codes must lie in [0, {cfg.codebook}), got [{int(c.min())}, "
                                    f"{int(c.max())}]")
        return n

    @torch.no_grad()
    def fhat(self, codes: Codes, n_scales: int | None = None) -> list[torch.Tensor]:
        """f_hat per branch from the first n_scales scales, [(N, d, K, K)]."""
        n = self._check_codes(codes, n_scales)
        return [q.fhat(cb, n) for q, cb in zip(self.net.quantizers, codes, strict=True)]

    @torch.no_grad()
    def decode_fhat(self, f_hats: Sequence[torch.Tensor], batch_size: int = 500) -> np.ndarray:
        """Branch maps -> images (N, C, H, W) float32 in [0, 1]."""
        n = len(f_hats[0])
        out = [self.net.decode_fhat([f[i:i + batch_size] for f in f_hats]) for i in range(0, n, batch_size)]
        return ((torch.cat(out).clamp(-1, 1) + 1) / 2).numpy()

    def decode(self, codes: Codes, n_scales: int | None = None) -> np.ndarray:
        """Token indices -> images (N, C, H, W) in [0, 1]; n_scales decodes a coarse prefix."""
        return self.decode_fhat(self.fhat(codes, n_scales))

    def reconstruct(self, images, n_scales: int | None = None) -> np.ndarray:
        """Encode, keep the first n_scales scales (all by default), decode: (N, C, H, W) in [0, 1]."""
        return self.decode(self.encode(images), n_scales)

    @torch.no_grad()
    def branch_features(self, images) -> list[np.ndarray]:
        """Per branch, the spatial mean of its quantised map f_hat (the linear-probe feature): [(N, d)]."""
        return [f.mean(dim=(2, 3)).double().numpy() for f in self.fhat(self.encode(images))]

    def codebook_usage(self, codes: Codes) -> float:
        """Share of the codebook entries used at least once, over all branches and scales."""
        used = [torch.unique(torch.cat([c.flatten() for c in cb])).numel() for cb in codes]
        return float(np.mean(used)) / self.config.codebook

    # ---- persistence --------------------------------------------------------------------------------

    def fingerprint(self) -> str:
        """Hash of the config and weights: an AR model records the tokenizer it was trained on."""
        h = hashlib.sha256(repr(asdict(self.config)).encode())
        for k, v in sorted(self.net.state_dict().items()):
            h.update(k.encode())
            h.update(v.detach().cpu().numpy().tobytes())
        return h.hexdigest()[:16]

    def state(self) -> dict:
        return {"kind": CHECKPOINT_KIND, "version": CHECKPOINT_VERSION, "config": asdict(self.config),
                "shape": list(self.net.shape), "state_dict": self.net.state_dict(),
                "train": {"epochs": self.epochs, "batch_size": self.batch_size, "lr": self.lr,
                          "seed": self.seed, "steps": self.steps}, "history": asdict(self.history_),
                "fingerprint": self.fingerprint()}

    def save(self, path: str | Path) -> Path:
        buf = io.BytesIO()
        torch.save(self.state(), buf)
        path = Path(path)
        with atomic_write(path) as f:
            f.write(buf.getvalue())
        return path

    @classmethod
    def from_state(cls, state: dict) -> MSRQTokenizer:
        if not isinstance(state, dict) or state.get("kind") != CHECKPOINT_KIND:
            raise UserError("not an ImageFolder tokenizer checkpoint (wrong kind of file)")
        if state.get("version") != CHECKPOINT_VERSION:
            raise UserError(f"tokenizer checkpoint version {state.get('version')} is not supported "
                            f"(expected {CHECKPOINT_VERSION})")
        try:
            cfg = dict(state["config"])
            cfg["scales"] = tuple(cfg["scales"])
            tok = cls(**{**cfg, **state["train"]})
            tok.net_ = TokenizerNet(tok.config, *state["shape"])
            tok.net_.load_state_dict(state["state_dict"])
        except (KeyError, TypeError, ValueError, RuntimeError) as e:  # a damaged or edited checkpoint
            raise UserError(f"damaged tokenizer checkpoint: {' '.join(str(e).split())[:120]}") from None
        tok.net_.eval()
        tok.history_ = TrainHistory(**state.get("history", {}))
        return tok

    @classmethod
    def load(cls, path: str | Path) -> MSRQTokenizer:
        return cls.from_state(load_checkpoint(path, "tokenizer"))


def load_checkpoint(path: str | Path, what: str) -> dict:
    """torch.load a checkpoint of ours (weights only: no code runs), or a one-line UserError."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{what} checkpoint not found: {p}")
    try:
        return torch.load(p, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a foreign or truncated file
        why = " ".join(str(e).split())[:120] or type(e).__name__
        raise UserError(f"cannot read {what} checkpoint {p}: {why}") from None
