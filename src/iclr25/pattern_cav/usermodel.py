"""A user's PyTorch model for the CLI: `file.py:name` names a function (or class) in the user's file that
returns an `nn.Module`, and an optional weights file is a `state_dict` read with `weights_only=True`.
TorchScript files cannot be used: PyTorch refuses forward hooks on them, and TCAV and ClArC need one."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from iclr25.core.errors import UserError

SPEC_HELP = "your model: FILE.py:NAME, a function or class in FILE.py that returns a torch nn.Module"


def load_model(spec: str, weights: Path | None = None):
    """The model `spec` names ("net.py:make_model"), with `weights` (a state_dict .pt) loaded, in eval mode.

    Runs the code in the user's file (it is their model); a bad spec or file is a one-line UserError."""
    import torch
    from torch import nn

    file, sep, name = spec.rpartition(":")
    if not sep or not file or not name:
        raise UserError(f"--model must be FILE.py:NAME (e.g. net.py:make_model), got {spec!r}")
    path = Path(file)
    if path.suffix != ".py" or not path.is_file():
        raise UserError(f"--model file {path} is not a Python file (expected FILE.py:NAME)")
    mod_name = f"iclr25_user_model_{abs(hash(str(path.resolve())))}"
    try:
        loader = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(loader)  # type: ignore[arg-type]
        sys.modules[mod_name] = module
        loader.loader.exec_module(module)  # type: ignore[union-attr]
    except Exception as e:  # the user's code may raise anything
        raise UserError(f"importing {path} failed: {type(e).__name__}: {str(e).splitlines()[0][:150]}"
                        if str(e) else f"importing {path} failed: {type(e).__name__}") from None
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        raise UserError(f"{path} has no function or class {name!r}")
    try:
        model = factory()
    except Exception as e:
        raise UserError(f"{spec}() failed: {type(e).__name__}: {str(e)[:150]}") from None
    if not isinstance(model, nn.Module):
        raise UserError(f"{spec}() returned {type(model).__name__}, expected a torch nn.Module")
    if weights is not None:
        if not Path(weights).is_file():
            raise UserError(f"--weights file not found: {weights}")
        try:
            state = torch.load(weights, map_location="cpu", weights_only=True)
            model.load_state_dict(state)
        except Exception as e:
            raise UserError(f"{weights} is not a state_dict of this model ({type(e).__name__}: "
                            f"{str(e).splitlines()[0][:120] if str(e) else ''})") from None
    return model.eval()
