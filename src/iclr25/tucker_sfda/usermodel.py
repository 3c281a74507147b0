"""SFT on a user's own PyTorch model (issue #52): any nn.Module whose convolutions are nn.Conv1d and whose
last layer is a classifier head. `UserModel` gives it the two things the hosts need — the features the
head reads (`extract`) and the head (`classifier`) — without hooks that outlive a call, so copies made
during adaptation stay independent. After adaptation `to_dense` folds the Tucker factors (and LoRA or
subset updates) back into plain nn.Conv1d weights: the user's own architecture, ready for their code.

    net = load_module("my_models.py:build", weights="source_state.pt")
    model = UserModel(net, channels=6)                      # head: the last nn.Linear
    dec = tucker_reparameterize(model, rf=8)
    res = adapt(dec, X_target, "shot", "core")
    torch.save(to_dense(res.model).net.state_dict(), "adapted_state.pt")  # loads into build()
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.tucker_sfda.lora import DeltaConv1d, merge_deltas
from iclr25.tucker_sfda.tucker import TuckerConv1d


@dataclass(frozen=True)
class UserConfig:
    C: int  # input channels the model reads
    classes: int  # outputs of the head


class UserModel(nn.Module):
    """A user's classifier `net` seen as feature extractor + head. `head`: the name of the submodule whose
    input are the features (default: the last nn.Linear); it stays frozen in every tune mode."""

    def __init__(self, net: nn.Module, channels: int, head: str | None = None) -> None:
        super().__init__()
        linears = [n for n, m in net.named_modules() if isinstance(m, nn.Linear)]
        if head is None:
            if not linears:
                raise UserError("the model has no nn.Linear head; name the classifier with --head")
            head = linears[-1]
        try:
            module = net.get_submodule(head)
        except AttributeError:
            raise UserError(f"--head: the model has no submodule {head!r} (nn.Linear layers: "
                            f"{', '.join(linears) or 'none'})") from None
        if not isinstance(module, nn.Linear):
            raise UserError(f"--head {head!r} is a {type(module).__name__}; the head must be an nn.Linear")
        if channels < 1:
            raise UserError(f"channels must be >= 1, got {channels}")
        self.net, self.head = net, head
        self.config = UserConfig(int(channels), int(module.out_features))

    @property
    def classifier(self) -> nn.Linear:
        return self.net.get_submodule(self.head)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def extract(self, x: torch.Tensor) -> tuple[torch.Tensor, None]:
        """(the head's input, flattened to (B, D); no feature sequence: MAPU is not available)."""
        seen: dict[str, torch.Tensor] = {}

        def keep(_module: nn.Module, inputs: tuple) -> None:
            seen["f"] = inputs[0]

        handle = self.classifier.register_forward_pre_hook(keep)  # removed before returning
        try:
            self.net(x)
        finally:
            handle.remove()
        if "f" not in seen:
            raise UserError(f"the head {self.head!r} was not called by the model's forward pass")
        return seen["f"].flatten(1), None


def load_module(spec: str, weights: str | Path | None = None) -> nn.Module:
    """The user's model from "file.py:factory" or "package.module:factory" (the factory is called with no
    arguments and returns an nn.Module), with a state dict from `weights` (read with weights_only=True:
    no pickled code runs). A TorchScript file cannot be re-parameterised and is refused with the reason."""
    from iclr25.core.usercode import user_network
    if ":" not in spec and spec.endswith((".ts", ".pt", ".pth", ".jit")):
        raise UserError(f"--module: expected 'file.py:factory' or 'package.module:factory', got {spec!r} (a "
                        "TorchScript file is a compiled graph whose convolutions cannot be replaced)")
    return user_network(spec, "--module", weights, example="my_models.py:build")


def to_dense(model: nn.Module) -> nn.Module:
    """A copy of `model` with every TuckerConv1d, LoRA and subset conv replaced by one plain nn.Conv1d of
    the same function (G ×₁ U ×₂ V, or W + ΔW): the original architecture with adapted weights."""
    has_delta = any(isinstance(m, DeltaConv1d) for m in model.modules())
    out = merge_deltas(model) if has_delta else copy.deepcopy(model)
    for name, m in [(n, m) for n, m in out.named_modules() if isinstance(m, TuckerConv1d)]:
        core = m.core
        conv = nn.Conv1d(m.first.in_channels, m.last.out_channels, core.kernel_size[0], core.stride[0],
                         core.padding[0], core.dilation[0], bias=m.last.bias is not None)
        with torch.no_grad():
            conv.weight.copy_(m.dense_weight())
            if m.last.bias is not None:
                conv.bias.copy_(m.last.bias)
        parent_name, _, child = name.rpartition(".")
        setattr(out.get_submodule(parent_name) if parent_name else out, child, conv)
    return out
