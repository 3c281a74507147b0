"""A user's PyTorch model for the CLI: `file.py:name` names a function (or class) in the user's file that
returns an `nn.Module`, and an optional weights file is a `state_dict` read with `weights_only=True`.
TorchScript files cannot be used: PyTorch refuses forward hooks on them, and TCAV and ClArC need one."""

from __future__ import annotations

from pathlib import Path

SPEC_HELP = "your model: FILE.py:NAME, a function or class in FILE.py that returns a torch nn.Module"


def load_model(spec: str, weights: Path | None = None):
    """The model `spec` names ("net.py:make_model"), with `weights` (a state_dict .pt) loaded, in eval mode.

    Runs the code in the user's file (it is their model); a bad spec or file is a one-line UserError."""
    from iclr25.core.usercode import user_network
    return user_network(spec, "--model", weights).eval()
