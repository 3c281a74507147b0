"""The user's own code named on the command line: "file.py:name" or "package.module:name" -> that callable,
and a PyTorch network built by such a factory with an optional state dict. It runs the user's file (it is
their model); every failure is a one-line UserError naming the flag."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError
from iclr25.core.io import first_line


def _why(e: BaseException) -> str:
    return f"{type(e).__name__}: {first_line(e, 150)}" if str(e).strip() else type(e).__name__


def user_callable(spec: str, flag: str, example: str = "net.py:make_model", cwd: Path | None = None
                  ) -> Callable[..., Any]:
    """The callable `spec` names: "file.py:name" (a file, relative to `cwd`) or "package.module:name"."""
    where, sep, name = str(spec).rpartition(":")
    if not sep or not where or not name:
        raise UserError(f"{flag} must be FILE.py:NAME or package.module:NAME (e.g. {example}), got {spec!r}")
    if not name.isidentifier():
        raise UserError(f"{flag}: {name!r} is not a Python name")
    if where.endswith(".py"):
        path = (Path(cwd or ".") / where).resolve()
        if not path.is_file():
            raise UserError(f"{flag}: file not found: {where}")
        mod_name = f"iclr25_user_{abs(hash(str(path)))}"
        loader = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(loader)  # type: ignore[arg-type]
        sys.modules[mod_name] = module  # dataclasses and pickling look classes up by module name
        try:
            loader.loader.exec_module(module)  # type: ignore[union-attr]
        except Exception as e:  # the user's code may raise anything
            sys.modules.pop(mod_name, None)
            raise UserError(f"{flag}: importing {where} failed: {_why(e)}") from None
    else:
        if cwd is not None and str(cwd) not in sys.path:
            sys.path.insert(0, str(cwd))
        try:
            module = importlib.import_module(where)
        except Exception as e:
            raise UserError(f"{flag}: cannot import {where!r}: {_why(e)}") from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise UserError(f"{flag}: {where} has no function or class {name!r}")
    return fn


def user_network(spec: str, flag: str = "--model", weights: str | Path | None = None,
                 example: str = "net.py:make_model"):
    """The torch network the factory `spec` builds (called with no arguments), with the state dict in
    `weights` loaded (read with weights_only=True: no pickled code runs)."""
    from torch import nn
    factory = user_callable(spec, flag, example)
    try:
        net = factory()
    except Exception as e:
        raise UserError(f"{flag}: {spec}() failed: {_why(e)}") from None
    if not isinstance(net, nn.Module):
        raise UserError(f"{flag}: {spec}() returned {type(net).__name__}, expected a torch nn.Module")
    if weights is not None:
        load_state(net, weights)
    return net


def load_state(net, weights: str | Path, flag: str = "--weights") -> None:
    """Load a state dict (or a {"state_dict": ...} checkpoint) from `weights` into `net`."""
    import torch
    path = Path(weights)
    if not path.is_file():
        raise UserError(f"{flag}: file not found: {path}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise UserError(f"{flag}: {path} is not a state dict PyTorch can read without running code "
                        f"({type(e).__name__})") from None
    if isinstance(state, dict) and isinstance(state.get("state_dict"), dict):
        state = state["state_dict"]
    if not isinstance(state, dict):
        raise UserError(f"{flag}: {path} holds a {type(state).__name__}, expected a state dict")
    try:
        net.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError) as e:
        raise UserError(f"{flag}: {path} does not fit the model: {_why(e)}") from None
