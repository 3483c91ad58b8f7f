"""The layers of an ActorCritic (workers.rl.policy): MLPs, the CNN trunks, and their seeded init.

Initialisation is orthogonal (cleanrl's `layer_init`: gain sqrt(2) for hidden layers and
convolutions, 0.01 for the actor's output, 1 for the critic's), zero biases, drawn from one local
`torch.Generator` in module order, so the same config gives the same parameters in every process.
With no generator the layers are left uninitialised, for a checkpoint's tensors to replace (the
orthogonal init's QR decompositions would be wasted, and torch's default init draws from the
global RNG).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from workers.rl.architecture import conv_output
from workers.rl.config import CONV_LAYERS, PolicyConfig
from workers.rl.envs import SpaceSpec

ACTIVATION_MODULES = {"tanh": nn.Tanh, "relu": nn.ReLU}


class _UninitialisedLinear(nn.Linear):
    """nn.Linear without its default init: cheaper than torch.nn.utils.skip_init, which builds on
    the meta device."""

    def reset_parameters(self) -> None:
        pass


class _UninitialisedConv2d(nn.Conv2d):
    def reset_parameters(self) -> None:
        pass


def _init(layer: nn.Module, gain: float, generator: torch.Generator) -> nn.Module:
    nn.init.orthogonal_(layer.weight, gain=gain, generator=generator)
    nn.init.zeros_(layer.bias)
    return layer


def linear(n_in: int, n_out: int, gain: float, generator: torch.Generator | None) -> nn.Linear:
    if generator is None:
        return _UninitialisedLinear(n_in, n_out)
    with torch.random.fork_rng(devices=[]):  # nn.Linear's default init draws from the global RNG
        layer = nn.Linear(n_in, n_out)
    return _init(layer, gain, generator)


def conv(n_in: int, n_out: int, kernel: int, stride: int, generator: torch.Generator | None) -> nn.Conv2d:
    if generator is None:
        return _UninitialisedConv2d(n_in, n_out, kernel, stride)
    with torch.random.fork_rng(devices=[]):
        layer = nn.Conv2d(n_in, n_out, kernel, stride)
    return _init(layer, math.sqrt(2), generator)


def mlp_layers(sizes: list[int], activation: str, out_gain: float,
               generator: torch.Generator | None) -> list[nn.Module]:
    """Linear layers of `sizes`, the activation between them, the last one's gain `out_gain`."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        last = i == len(sizes) - 2
        layers.append(linear(sizes[i], sizes[i + 1], out_gain if last else math.sqrt(2), generator))
        if not last:
            layers.append(ACTIVATION_MODULES[activation]())
    return layers


def cnn_trunk(space: SpaceSpec, config: PolicyConfig, generator: torch.Generator | None) -> nn.Sequential:
    """The convolutions of `config.kind` (ReLU after each), a Flatten, then the hidden linear
    layers (the activation after each): the features actor and critic share. Takes (N, C, H, W)."""
    layers: list[nn.Module] = []
    channels = space.obs_shape[2]
    for out, kernel, stride in CONV_LAYERS[config.kind]:
        layers += [conv(channels, out, kernel, stride, generator), nn.ReLU()]
        channels = out
    layers.append(nn.Flatten())
    width = math.prod(conv_output(space, config))
    for h in config.hidden_sizes:
        layers += [linear(width, h, math.sqrt(2), generator), ACTIVATION_MODULES[config.activation]()]
        width = h
    return nn.Sequential(*layers)
