"""A small 2-D U-Net (channels 8-16-32 by default, about 25k parameters): the CPU stand-in for the MONAI
UNet the paper trains."""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """(B, in_ch, H, W) -> logits (B, out_ch, H, W); H and W divisible by 2**(len(channels) - 1).

    >>> UNet()(torch.zeros(2, 1, 32, 32)).shape
    torch.Size([2, 1, 32, 32])
    """

    def __init__(self, in_ch: int = 1, out_ch: int = 1, channels: tuple[int, ...] = (8, 16, 32)) -> None:
        super().__init__()
        self.down = nn.ModuleList()
        c = in_ch
        for ch in channels:
            self.down.append(_block(c, ch))
            c = ch
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        for ch in reversed(channels[:-1]):
            self.up.append(nn.ConvTranspose2d(c, ch, 2, stride=2))
            self.dec.append(_block(2 * ch, ch))
            c = ch
        self.head = nn.Conv2d(c, out_ch, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for i, blk in enumerate(self.down):
            x = blk(x if i == 0 else nn.functional.max_pool2d(x, 2))   # (B, ch_i, H/2^i, W/2^i)
            skips.append(x)
        for up, dec, skip in zip(self.up, self.dec, reversed(skips[:-1]), strict=True):
            x = dec(torch.cat([up(x), skip], dim=1))
        return self.head(x)
