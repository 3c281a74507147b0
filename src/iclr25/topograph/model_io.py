"""Saved segmentation models: a checkpoint holds the weights, what builds the network (our U-Net's channels
or the user's `FILE.py:NAME`), the optimiser state and the steps done (so training can resume), read back
with `torch.load(weights_only=True)`. And a check, before any training, that the checkpoint can be written.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write
from iclr25.topograph.unet import UNet

FORMAT = "iclr25-topograph-checkpoint/1"
MAX_BYTES = 1 << 30


def probe_output(path: Path, nbytes: int, what: str = "--out") -> Path:
    """Refuse, before training, an output the checkpoint cannot be written to: a device, FIFO or folder, or
    a file system without room for `nbytes` (written to a temporary file beside it, synced, removed)."""
    path = Path(path)
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "a device or FIFO" if stat.S_ISCHR(path.stat().st_mode) or \
            stat.S_ISFIFO(path.stat().st_mode) or stat.S_ISBLK(path.stat().st_mode) else "not a regular file"
        raise UserError(f"{what} {path} is {kind}; give a file path for the checkpoint")
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".probe-", delete=True) as f:
            block = b"\0" * min(nbytes, 1 << 20)
            left = nbytes
            while left > 0:
                f.write(block[:left])
                left -= len(block)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise UserError(f"no room to write {what} {path}: the checkpoint needs about "
                            f"{max(1, nbytes >> 10):,} KiB ({e.strerror})") from None
        raise UserError(f"cannot write {what} {path}: {e.strerror or e}") from None
    return path


def checkpoint_bytes(model: nn.Module) -> int:
    """About what a checkpoint of `model` with Adam's state takes: three float32 copies of the weights."""
    return 3 * 4 * sum(p.numel() for p in model.parameters()) + (64 << 10)


def user_model(spec: str) -> nn.Module:
    """The network `spec` ("net.py:make_net") builds: the user's function or class returning an nn.Module
    that maps (B, 1, H, W) images to (B, 1, H, W) foreground logits."""
    from iclr25.core.usercode import user_network
    return user_network(spec, "--model", example="net.py:make_net")


def build(arch: dict[str, Any]) -> nn.Module:
    """The network an architecture record names: {"kind": "unet", "channels": [...]} or {"kind": "user",
    "spec": "net.py:make_net"}."""
    if arch.get("kind") == "user":
        return user_model(str(arch.get("spec")))
    ch = arch.get("channels")
    if not (isinstance(ch, list | tuple) and 1 <= len(ch) <= 6 and all(isinstance(c, int) and 1 <= c <= 1024
                                                                        for c in ch)):
        raise UserError(f"the checkpoint names an unknown U-Net {ch!r}")
    return UNet(channels=tuple(ch))


def save_checkpoint(path: Path, model: nn.Module, arch: dict[str, Any], meta: dict[str, Any],
                    optimizer: torch.optim.Optimizer | None = None) -> Path:
    """Write weights, architecture, optimiser state and `meta` (loss, steps done, config) atomically."""
    state = {"format": FORMAT, "arch": dict(arch), "meta": dict(meta), "state": model.state_dict(),
             "optimizer": optimizer.state_dict() if optimizer is not None else None}
    buf = io.BytesIO()
    torch.save(state, buf)
    with atomic_write(Path(path)) as f:
        f.write(buf.getvalue())
    return Path(path)


def load_checkpoint(path: Path, spec: str | None = None) -> tuple[nn.Module, dict[str, Any], dict[str, Any]]:
    """(model with its weights, in eval mode, the checkpoint's meta, its optimiser state or {}). A
    checkpoint of a user network is rebuilt from `spec` when given (its file may have moved), else from
    the spec it recorded. A bare state_dict of our default U-Net (older `--save` files) is read too."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"checkpoint not found: {path}")
    if path.stat().st_size > MAX_BYTES:
        raise UserError(f"{path} is larger than {MAX_BYTES >> 20} MiB: not one of our checkpoints")
    try:
        ck = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for foreign or damaged files
        raise UserError(f"{path} is not a checkpoint written by `topograph train -o` ({type(e).__name__})"
                        ) from None
    if isinstance(ck, dict) and ck.get("format") == FORMAT:
        arch = dict(ck.get("arch") or {})
        if spec is not None:
            arch = {"kind": "user", "spec": spec}
        model, state, opt = build(arch), ck.get("state"), ck.get("optimizer")
        meta = dict(ck.get("meta") or {})
    elif isinstance(ck, dict) and all(isinstance(v, torch.Tensor) for v in ck.values()):
        arch = {"kind": "user", "spec": spec} if spec else {"kind": "unet", "channels": [8, 16, 32]}
        model, state, meta, opt = build(arch), ck, {}, None
    else:
        raise UserError(f"{path} is not a checkpoint written by `topograph train -o`")
    try:
        model.load_state_dict(state)
    except (RuntimeError, TypeError, KeyError) as e:
        raise UserError(f"{path}: the weights do not fit the network ({str(e).splitlines()[0][:120]})"
                        ) from None
    meta["arch"] = arch
    return model.eval(), meta, opt or {}
