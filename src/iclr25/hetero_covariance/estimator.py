"""`HeteroscedasticRegressor`: a scikit-learn-style estimator that fits a mean network and a covariance
network with any of the losses compared in the paper, `loss="w2_pseudo"` being the paper's method
(the W₂ bound of Theorem 1 against neighbourhood pseudo-labels, Algorithm 1)."""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from sklearn.base import BaseEstimator

from iclr25.core.errors import UserError
from iclr25.hetero_covariance import losses as L
from iclr25.hetero_covariance.metrics import COVERAGE_LEVELS, evaluate, gaussian_ll, mse, tac
from iclr25.hetero_covariance.model import HeteroscedasticNet, NetConfig
from iclr25.hetero_covariance.pseudo_labels import neighbourhood_pseudo_covariance
from iclr25.hetero_covariance.tic import tic_covariance

# loss name -> covariance parameterisation of the network
LOSSES: dict[str, str] = {
    "w2_pseudo": "sqrt",      # paper: ‖y−μ̂‖² + ‖Σ̂^½ − Σ̃^½‖²_F, Σ̃ from Algorithm 1
    "w2_exact": "cholesky",   # exact W₂²(N(y, Σ̃), N(μ̂, Σ̂)) with the same pseudo-labels
    "kl_calibrated": "cholesky",  # tr(Σ̂⁻¹[Σ̃ + r rᵀ]) + 2 ln det Σ̂ with the same pseudo-labels
    "nll": "cholesky",        # full Gaussian NLL
    "nll_diag": "diag",       # diagonal Gaussian NLL
    "beta_nll": "diag",       # β-NLL, β = 0.5
    "faithful": "cholesky",   # Stirn et al. 2023
    "tic": "tic",             # NLL with the Taylor Induced Covariance
    "mse": "diag",            # mean only; the covariance is the identity (in standardised units)
}
NEEDS_LABELS = ("w2_pseudo", "w2_exact", "kl_calibrated")
SAVE_FORMAT = "iclr25.hetero_covariance.regressor/1"
MAX_MODEL_BYTES = 1 << 30


@dataclass
class FitHistory:
    loss: list[float] = field(default_factory=list)
    epoch_s: list[float] = field(default_factory=list)
    val_mse: list[float] = field(default_factory=list)
    val_tac: list[float] = field(default_factory=list)  # with eval_set and >= 2 targets
    skipped_steps: int = 0
    pseudo_label_s: float = 0.0


def _check_xy(X, Y=None) -> tuple[np.ndarray, np.ndarray | None]:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] == 0:
        raise UserError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise UserError(f"X has {int((~np.isfinite(X)).sum())} non-finite values (NaN or inf)")
    if Y is None:
        return X, None
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or Y.shape[0] != X.shape[0]:
        raise UserError(f"Y must be 2-D with one row per row of X ({X.shape[0]}), got shape {Y.shape}")
    if not np.isfinite(Y).all():
        raise UserError(f"targets have {int((~np.isfinite(Y)).sum())} non-finite values (NaN or inf)")
    return X, Y


def _column_names(a) -> list[str] | None:
    cols = getattr(a, "columns", None)
    if cols is None:
        name = getattr(a, "name", None)  # a pandas Series
        return [str(name)] if name is not None and getattr(a, "ndim", 0) == 1 else None
    return [str(c) for c in cols]


_SAVED_ARRAYS = ("x_mean_", "x_scale_", "y_mean_", "y_scale_", "target_mean_", "target_cov_", "residual_cov_")


class HeteroscedasticRegressor(BaseEstimator):
    """Predicts a mean and a full, input-dependent covariance of a multivariate target.

    Parameters are the paper's defaults for the multivariate experiments (AdamW, lr 3e-4, batch 32,
    ReduceLROnPlateau(0.25, patience 10)); `epochs` is the main knob on CPU. Conditioning (ours, documented
    in the README): `pl_jitter` is relative (each pseudo-label gets jitter × its mean variance on the
    diagonal) and `cov_floor` bounds every predicted Σ̂'s eigenvalues from below, in units of each
    standardised target's variance.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); Y = X @ rng.normal(size=(2, 3)) + rng.normal(size=(300, 3))
    >>> reg = HeteroscedasticRegressor(loss="w2_pseudo", epochs=2).fit(X, Y)
    >>> mu, cov = reg.predict(X[:5]); mu.shape, cov.shape
    ((5, 3), (5, 3, 3))
    >>> sorted(reg.evaluate(X, Y))   # the model beside its trivial baselines
    ['constant', 'homoscedastic', 'model']

    One target works too (k = 1: a heteroscedastic variance; TAC is then the MAE of the mean). `save(path)`
    and `HeteroscedasticRegressor.load(path)` keep a fitted model for new data.
    """

    def __init__(self, loss: str = "w2_pseudo", epochs: int = 100, lr: float = 3e-4, batch_size: int = 32,
                 weight_decay: float = 1e-2, blocks: int = 3, latent: int | None = None,
                 k_neighbours: int = 50, pl_temperature: float | str = "median", pl_jitter: float = 1e-2,
                 cov_floor: float = 1e-2, beta: float = 0.5, plateau_factor: float = 0.25,
                 plateau_patience: int = 10, standardize: bool = True, random_state: int = 0) -> None:
        self.loss = loss
        self.epochs = epochs
        self.lr = lr
        self.batch_size = batch_size
        self.weight_decay = weight_decay
        self.blocks = blocks
        self.latent = latent
        self.k_neighbours = k_neighbours
        self.pl_temperature = pl_temperature
        self.pl_jitter = pl_jitter
        self.cov_floor = cov_floor
        self.beta = beta
        self.plateau_factor = plateau_factor
        self.plateau_patience = plateau_patience
        self.standardize = standardize
        self.random_state = random_state

    # ---- fitting ---------------------------------------------------------------------------------
    def _validate_params(self) -> None:
        if self.loss not in LOSSES:
            raise UserError(f"unknown loss {self.loss!r}; choose from {', '.join(LOSSES)}")
        for name in ("epochs", "batch_size", "k_neighbours", "blocks"):
            v = getattr(self, name)
            if not isinstance(v, int | np.integer) or v < 1:
                raise UserError(f"{name} must be a positive integer, got {v!r}")
        if not (isinstance(self.lr, int | float) and self.lr > 0 and math.isfinite(self.lr)):
            raise UserError(f"lr must be a positive number, got {self.lr!r}")
        for name in ("cov_floor", "pl_jitter"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and v >= 0 and math.isfinite(v)):
                raise UserError(f"{name} must be a finite number >= 0, got {v!r}")

    def fit(self, X, Y, eval_set: tuple | None = None) -> HeteroscedasticRegressor:
        """Fit on X (n, d), Y (n, k). `eval_set=(X_val, Y_val)` records the validation MSE per epoch
        in `history_.val_mse`."""
        self._validate_params()
        names = _column_names(X), _column_names(Y)
        X, Y = _check_xy(X, Y)
        n, k = Y.shape
        if n < 2:
            raise UserError(f"need at least 2 samples, got {n}")
        if k > n:
            raise UserError(f"more targets ({k}) than samples ({n}): the covariance cannot be estimated")
        if eval_set is not None:
            eval_set = _check_xy(*eval_set)
        torch.manual_seed(self.random_state)
        gen = torch.Generator().manual_seed(self.random_state)

        self.x_mean_, self.x_scale_ = X.mean(0), X.std(0)
        self.y_mean_, self.y_scale_ = Y.mean(0), Y.std(0)
        if not self.standardize:
            self.x_mean_, self.x_scale_ = np.zeros(X.shape[1]), np.ones(X.shape[1])
            self.y_mean_, self.y_scale_ = np.zeros(k), np.ones(k)
        self.x_scale_ = np.where(self.x_scale_ > 0, self.x_scale_, 1.0)
        self.y_scale_ = np.where(self.y_scale_ > 0, self.y_scale_, 1.0)
        Xs = (X - self.x_mean_) / self.x_scale_
        Ys = (Y - self.y_mean_) / self.y_scale_
        self.n_features_in_, self.n_targets_ = X.shape[1], k
        self.feature_names_in_ = names[0] or [f"x{i}" for i in range(X.shape[1])]
        self.target_names_ = names[1] or [f"y{i}" for i in range(k)]

        hist = FitHistory()
        labels: tuple[torch.Tensor, torch.Tensor] | None = None
        if self.loss in NEEDS_LABELS:
            t0 = time.perf_counter()
            _, cov_t, root_t = neighbourhood_pseudo_covariance(  # Algorithm 1, on standardised data
                Xs, Ys, k=self.k_neighbours, temperature=self.pl_temperature, jitter=self.pl_jitter)
            hist.pseudo_label_s = time.perf_counter() - t0
            labels = (torch.as_tensor(cov_t, dtype=torch.float32),
                      torch.as_tensor(root_t, dtype=torch.float32))

        net = HeteroscedasticNet(X.shape[1], k, LOSSES[self.loss], NetConfig(self.blocks, self.latent,
                                                                          self.cov_floor))
        opt = torch.optim.AdamW(net.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=self.plateau_factor,
                                                           patience=self.plateau_patience)
        xt = torch.as_tensor(Xs, dtype=torch.float32)
        yt = torch.as_tensor(Ys, dtype=torch.float32)
        self.net_ = net
        from iclr25.core.runtime import progress
        for _ in progress(range(self.epochs), f"fitting {self.loss} on {n} rows", total=self.epochs):
            t0 = time.perf_counter()
            net.train()
            perm = torch.randperm(n, generator=gen)
            total, count = 0.0, 0
            for s in range(0, n, self.batch_size):
                idx = perm[s:s + self.batch_size]
                lab = None if labels is None else (labels[0][idx], labels[1][idx])
                loss = self._loss(net, xt[idx], yt[idx], lab)
                if not torch.isfinite(loss):
                    hist.skipped_steps += 1  # an NLL blow-up: skip the step rather than poison weights
                    continue
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
                count += len(idx)
            epoch_loss = total / max(count, 1)
            sched.step(epoch_loss if count else float("inf"))
            hist.epoch_s.append(time.perf_counter() - t0)
            hist.loss.append(epoch_loss)
            if eval_set is not None:
                self._record(hist, *eval_set)
        self.history_ = hist
        self._fit_baselines(X, Y)
        return self

    def _fit_baselines(self, X: np.ndarray, Y: np.ndarray) -> None:
        """The trivial models to beat, from the training rows, with the same eigenvalue floor as Σ̂:
        homoscedastic (the fitted mean, the covariance of its training residuals for every row) and
        constant (the training mean and covariance of Y for every row)."""
        scale = np.outer(self.y_scale_, self.y_scale_)
        floor = self.cov_floor * np.eye(Y.shape[1]) * scale  # f·I in standardised units, D(f·I)D in Y's

        def cov_of(R: np.ndarray) -> np.ndarray:
            return np.atleast_2d(np.cov(R, rowvar=False, bias=True)) + floor

        self.target_mean_ = Y.mean(0)
        self.target_cov_ = cov_of(Y)
        self.residual_cov_ = cov_of(Y - self.predict(X, return_cov=False))

    def _record(self, hist: FitHistory, X: np.ndarray, Y: np.ndarray) -> None:
        if Y.shape[1] < 2 or self.loss == "tic":  # TIC's covariance needs Hessians: MSE only per epoch
            hist.val_mse.append(mse(self.predict(X, return_cov=False), Y))
            return
        mu, cov = self.predict(X)
        hist.val_mse.append(mse(mu, Y))
        hist.val_tac.append(tac(mu, cov, Y))

    def _loss(self, net: HeteroscedasticNet, x: torch.Tensor, y: torch.Tensor,
              labels: tuple[torch.Tensor, torch.Tensor] | None) -> torch.Tensor:
        name = self.loss
        if name == "tic":
            mu, cov = tic_covariance(net, x)
            return L.gaussian_nll_full(mu, cov, y)
        mu, cov, root, _ = net(x)
        if name == "w2_pseudo":
            return L.w2_bound_loss(mu, root, y, labels[1])
        if name == "w2_exact":
            return L.w2_exact_loss(mu, cov, y, labels[0], labels[1])
        if name == "kl_calibrated":
            return L.kl_calibrated_loss(mu, cov, y, labels[0])
        if name == "nll":
            return L.gaussian_nll_full(mu, cov, y)
        if name == "faithful":
            return L.faithful_loss(mu, cov, y)
        var = torch.diagonal(cov, dim1=-2, dim2=-1)
        if name == "nll_diag":
            return L.gaussian_nll_diag(mu, var, y)
        if name == "beta_nll":
            return L.beta_nll(mu, var, y, beta=self.beta)
        return L.mse_loss(mu, y)

    # ---- prediction ------------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "net_"):
            raise UserError("this HeteroscedasticRegressor is not fitted yet; call fit(X, Y) first")

    def predict(self, X, return_cov: bool = True, batch: int = 4096):
        """(mean (n, k), covariance (n, k, k)) in the units of Y; only the mean if return_cov=False."""
        self._check_fitted()
        X, _ = _check_xy(X)
        if X.shape[1] != self.n_features_in_:
            raise UserError(f"X has {X.shape[1]} features, the model was fitted on {self.n_features_in_}")
        # float64 copy of the net: Σ = S² or L Lᵀ in float32 can lose positive definiteness when k is large
        net = copy.deepcopy(self.net_).double().eval()
        xs = torch.as_tensor((X - self.x_mean_) / self.x_scale_, dtype=torch.float64)
        mus, covs = [], []
        for s in range(0, len(xs), batch):
            xb = xs[s:s + batch]
            if self.loss == "tic" and return_cov:
                mu, cov = tic_covariance(net, xb)
            else:
                with torch.no_grad():
                    mu, cov, _, _ = net(xb)
            if self.loss == "mse":
                cov = torch.eye(self.n_targets_, dtype=torch.float64).expand_as(cov)
            mus.append(mu.detach().numpy())
            covs.append(cov.detach().numpy())
        mu = np.concatenate(mus) * self.y_scale_ + self.y_mean_
        if not return_cov:
            return mu
        cov = np.concatenate(covs) * np.outer(self.y_scale_, self.y_scale_)  # D Σ D, D = diag(scale)
        return mu, cov

    def baselines(self, X) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """{"homoscedastic": (μ̂(X), residual covariance on every row), "constant": (mean of Y, covariance
        of Y on every row)}: what a heteroscedastic covariance must beat, from the training rows."""
        self._check_fitted()
        mu = self.predict(X, return_cov=False)
        n, k = mu.shape
        return {"homoscedastic": (mu, np.broadcast_to(self.residual_cov_, (n, k, k))),
                "constant": (np.broadcast_to(self.target_mean_, (n, k)),
                             np.broadcast_to(self.target_cov_, (n, k, k)))}

    def evaluate(self, X, Y, levels=COVERAGE_LEVELS) -> dict[str, dict]:
        """Scores of the model and of its baselines on (X, Y): {"model": ..., "homoscedastic": ...,
        "constant": ...}, each `metrics.evaluate` (tac and mse lower is better, ll higher; coverage of the
        `levels` ellipsoids, calibration_error lower)."""
        X, Y = _check_xy(X, Y)
        if Y.shape[1] != getattr(self, "n_targets_", Y.shape[1]):
            raise UserError(f"Y has {Y.shape[1]} targets, the model was fitted on {self.n_targets_}")
        mu, cov = self.predict(X)
        out = {"model": evaluate(mu, cov, Y, levels)}
        for name, (m, c) in self.baselines(X).items():
            out[name] = evaluate(m, c, Y, levels)
        return out

    def coverage(self, X, Y, levels=COVERAGE_LEVELS) -> dict[float, float]:
        """Share of (X, Y)'s rows inside the predicted p-ellipsoid for each nominal level p."""
        from iclr25.hetero_covariance.metrics import coverage
        X, Y = _check_xy(X, Y)
        mu, cov = self.predict(X)
        return coverage(mu, cov, Y, levels)

    # ---- persistence -----------------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the fitted model (parameters, scalers, weights, baselines, column names) to `path`
        (a file, or "-" for standard output); `HeteroscedasticRegressor.load(path)` reads it back."""
        import io

        from iclr25.core.runtime import atomic_write
        self._check_fitted()
        t = lambda a: torch.as_tensor(np.asarray(a, dtype=np.float64))  # noqa: E731
        state = {"format": SAVE_FORMAT, "params": self.get_params(),
                 "arrays": {k: t(getattr(self, k)) for k in _SAVED_ARRAYS},
                 "feature_names": list(map(str, self.feature_names_in_)),
                 "target_names": list(map(str, self.target_names_)),
                 "weights": {k: v.detach().clone() for k, v in self.net_.state_dict().items()}}
        buf = io.BytesIO()
        torch.save(state, buf)
        with atomic_write(path) as f:
            f.write(buf.getvalue())

    @classmethod
    def load(cls, path) -> HeteroscedasticRegressor:
        """A model written by `save` (or `iclr25 hetero_covariance fit -o`); anything else is refused."""
        import io
        import os

        from iclr25.core.errors import UserError
        what = f"{path}: expected a model saved by `hetero_covariance fit -o` (HeteroscedasticRegressor.save)"
        if not os.path.isfile(path):
            raise UserError(f"model file not found: {path}")
        if os.path.getsize(path) > MAX_MODEL_BYTES:
            raise UserError(f"{path} is larger than {MAX_MODEL_BYTES >> 20} MiB; {what}")
        try:
            with open(path, "rb") as f:
                d = torch.load(io.BytesIO(f.read()), weights_only=True, map_location="cpu")
        except Exception:  # torch raises many types on foreign or damaged files
            raise UserError(what) from None
        if not isinstance(d, dict) or d.get("format") != SAVE_FORMAT:
            raise UserError(what)
        try:
            reg = cls(**d["params"])
            reg._validate_params()
            for k in _SAVED_ARRAYS:
                setattr(reg, k, d["arrays"][k].numpy())
            reg.feature_names_in_, reg.target_names_ = list(d["feature_names"]), list(d["target_names"])
            reg.n_features_in_, reg.n_targets_ = len(reg.feature_names_in_), len(reg.target_names_)
            net = HeteroscedasticNet(reg.n_features_in_, reg.n_targets_, LOSSES[reg.loss],
                                     NetConfig(reg.blocks, reg.latent, reg.cov_floor))
            net.load_state_dict(d["weights"], strict=True)
        except (KeyError, TypeError, ValueError, RuntimeError, UserError, AttributeError):
            raise UserError(f"{path} is a damaged model file; {what.split(': ', 1)[1]}") from None
        reg.net_ = net.eval()
        reg.history_ = FitHistory()
        return reg

    def score(self, X, Y, metric: str = "ll") -> float:
        """Higher is better: "ll" mean log-likelihood (default), "neg_tac", or "neg_mse"."""
        X, Y = _check_xy(X, Y)
        mu, cov = self.predict(X)
        if metric == "ll":
            return gaussian_ll(mu, cov, Y)
        if metric == "neg_tac":
            return -tac(mu, cov, Y)
        if metric == "neg_mse":
            return -mse(mu, Y)
        raise UserError(f"unknown metric {metric!r}; use ll, neg_tac or neg_mse")
