"""iclr25 — 19 ICLR 2025 papers as runnable methods and honest reproductions."""

__version__ = "0.1.0"

import os as _os

# Pin BLAS/OpenMP to one thread per worker before numpy or torch load (override: ICLR25_THREADS).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, _os.environ.get("ICLR25_THREADS", "1"))
