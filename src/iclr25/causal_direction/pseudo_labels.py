"""Step 1 of RoCA: pseudo-labels Y′ from P(X) alone. Standardise (and optionally embed) X, cluster it into
C groups, and name each cluster after the noisy class it overlaps most (Hungarian matching on the
cluster × Ỹ contingency table)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.optimize import linear_sum_assignment

from iclr25.core.errors import UserError

Embed = None | str | Callable[[np.ndarray], np.ndarray]
CLUSTERERS = ("kmeans", "minibatch-kmeans", "gmm", "agglomerative")
MAX_AGGLOMERATIVE_ROWS = 20_000  # Ward linkage holds an n × n distance structure
Clusterer = str | Callable[[np.ndarray, int], np.ndarray]


def standardise(X: np.ndarray) -> np.ndarray:
    """Columns to zero mean and unit variance; constant columns become 0."""
    X = np.asarray(X, dtype=float)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def parse_embed(embed: Embed) -> Embed:
    """Validate `embed`: None, "pca:k" with k ≥ 1, or a callable."""
    if embed is None or callable(embed):
        return embed
    if isinstance(embed, str) and embed.startswith("pca:"):
        try:
            k = int(embed[4:])
        except ValueError:
            k = 0
        if k >= 1:
            return embed
    raise UserError(f"embed must be None, 'pca:k' with k >= 1, or a callable; got {embed!r}")


def embed_features(X: np.ndarray, embed: Embed = None, random_state: int = 0) -> np.ndarray:
    """The representation Z that RoCA clusters and injects noise on.

    None: standardised X. "pca:k": the first k principal components of standardised X (k is capped at
    min(n, d)). A callable f: standardise(f(X)), e.g. an image encoder; it sees the raw X.
    """
    embed = parse_embed(embed)
    if callable(embed):
        Z = np.asarray(embed(X), dtype=float)
        if Z.ndim != 2 or Z.shape[0] != len(X):
            raise UserError(f"the embed callable must return an (n, k) array with n = {len(X)}, "
                            f"got shape {Z.shape}")
        if not np.isfinite(Z).all():
            raise UserError("the embed callable returned NaN or infinite values")
        return standardise(Z)
    Xs = standardise(np.asarray(X, dtype=float).reshape(len(X), -1))
    if embed is None:
        return Xs
    from sklearn.decomposition import PCA

    k = min(int(embed[4:]), *Xs.shape)
    return PCA(n_components=k, random_state=random_state).fit_transform(Xs)  # (n, k)


def cluster(Z: np.ndarray, n_clusters: int, clusterer: Clusterer = "kmeans", n_init: int = 10,
            random_state: int = 0) -> np.ndarray:
    """Cluster ids (n,) from P(X) only. "kmeans": k-means++ with `n_init` restarts; "minibatch-kmeans":
    the same on mini-batches (large n); "gmm": a Gaussian mixture with full covariances (`n_init`
    restarts), for elongated or unequal clusters; "agglomerative": Ward linkage (at most 20,000 rows), for
    clusters k-means splits; a callable f(Z, n_clusters) -> ids is used as given."""
    if callable(clusterer):
        ids = np.asarray(clusterer(Z, n_clusters))
        if ids.shape != (len(Z),):
            raise UserError(f"the clusterer must return one id per row ({len(Z)}), got shape {ids.shape}")
        return np.unique(ids, return_inverse=True)[1]
    if clusterer not in CLUSTERERS:
        raise UserError(f"unknown clusterer {clusterer!r}; use one of {', '.join(CLUSTERERS)} or a callable "
                        "f(Z, n_clusters)")
    if n_init < 1:
        raise UserError(f"n_init must be >= 1, got {n_init}")
    if clusterer == "kmeans":
        from sklearn.cluster import KMeans

        return KMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state).fit_predict(Z)
    if clusterer == "minibatch-kmeans":
        from sklearn.cluster import MiniBatchKMeans

        return MiniBatchKMeans(n_clusters=n_clusters, n_init=n_init, random_state=random_state,
                               batch_size=2048).fit_predict(Z)
    if clusterer == "gmm":
        from sklearn.mixture import GaussianMixture

        gm = GaussianMixture(n_components=n_clusters, covariance_type="full", n_init=min(n_init, 3),
                             reg_covar=1e-4, random_state=random_state)
        return gm.fit(Z).predict(Z)
    if len(Z) > MAX_AGGLOMERATIVE_ROWS:
        raise UserError(f"clusterer 'agglomerative' takes at most {MAX_AGGLOMERATIVE_ROWS:,} rows (Ward "
                        f"linkage is quadratic in memory), got {len(Z):,}; use kmeans, minibatch-kmeans or "
                        "gmm")
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=n_clusters, linkage="ward").fit_predict(Z)


def align_clusters(cluster_ids: np.ndarray, y_noisy: np.ndarray, n_classes: int) -> np.ndarray:
    """Y′: each cluster named after a class by the Hungarian algorithm, maximising the number of rows
    whose cluster name equals their noisy label. Clusters left over (more clusters than classes) take
    their majority label.

    >>> align_clusters(np.array([1, 1, 0, 0, 2]), np.array([0, 0, 2, 2, 1]), 3)
    array([0, 0, 2, 2, 1])
    """
    K = int(cluster_ids.max()) + 1
    table = np.zeros((K, n_classes), dtype=np.int64)  # (clusters, classes) contingency counts
    np.add.at(table, (cluster_ids, y_noisy), 1)
    rows, cols = linear_sum_assignment(table, maximize=True)
    name = table.argmax(axis=1)
    name[rows] = cols
    return name[cluster_ids]


def pseudo_labels(X: np.ndarray, y_noisy: np.ndarray, n_classes: int | None = None, embed: Embed = None,
                  clusterer: Clusterer = "kmeans", n_init: int = 10, random_state: int = 0) -> np.ndarray:
    """Y′ for integer labels `y_noisy` ∈ {0..C−1}: cluster the (embedded, standardised) X into C groups
    and align the clusters to Ỹ.

    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> X = rng.normal(size=(100, 2)) + 6 * y[:, None]
    >>> bool((pseudo_labels(X, y) == y).all())
    True
    """
    y_noisy = np.asarray(y_noisy)
    C = int(n_classes if n_classes is not None else y_noisy.max() + 1)
    Z = embed_features(X, embed, random_state)
    return align_clusters(cluster(Z, C, clusterer, n_init, random_state), y_noisy, C)
