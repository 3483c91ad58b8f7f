"""A policy's tensors by name, shape and dtype, computed from its spaces and config without torch.

`workers.rl.policy` checks a checkpoint's header against `tensor_specs` before it allocates
anything; `workers.spec` checks a spec's network fits its environment (`misfit`) and counts its
parameters (`parameter_count`) without loading torch.

Names (the state dict of `workers.rl.policy.ActorCritic`):

* mlp: critic.{2i}.weight/bias and actor.{2i}.weight/bias (two separate MLPs);
* nature_cnn / minatar_cnn: trunk.{i}.weight/bias (the convolutions at even indices, each followed
  by a ReLU, then a Flatten, then the hidden linear layers each followed by the activation), and the
  heads critic.0.weight/bias and actor.0.weight/bias on the trunk's features;
* log_std for Gaussian actions; obs_rms.mean, obs_rms.var, obs_rms.count (float64) with obs_norm.
"""

from __future__ import annotations

import math

from workers.rl.config import CONV_LAYERS, MLP, NATURE_CNN, PolicyConfig
from workers.rl.envs import DISCRETE, SpaceSpec

F32, F64 = "F32", "F64"
"""safetensors dtype names: parameters are float32, observation statistics float64."""
OBS_STATS = ("obs_rms.mean", "obs_rms.var", "obs_rms.count")


def conv_output(space: SpaceSpec, config: PolicyConfig) -> tuple[int, int, int]:
    """(channels, height, width) after the convolutions of a CNN kind on `space`'s images (a size
    below 1 when the image is too small for them)."""
    h, w, c = space.obs_shape
    for out, kernel, stride in CONV_LAYERS[config.kind]:
        h, w, c = (h - kernel) // stride + 1, (w - kernel) // stride + 1, out
    return c, h, w


def min_image_side(kind: str) -> int:
    """The smallest square image side the convolutions of `kind` take."""
    side = 1
    for _, kernel, stride in reversed(CONV_LAYERS[kind]):
        side = (side - 1) * stride + kernel
    return side


def misfit(space: SpaceSpec, config: PolicyConfig) -> str | None:
    """Why `config`'s network cannot take `space`'s observations (what to set instead), or None."""
    if config.kind == MLP and space.image:
        return (f"an mlp policy takes flat observations, and this environment's are {space.obs_shape} images: "
                f"set policy kind to \"nature_cnn\" (Atari-sized frames, at least "
                f"{min_image_side(NATURE_CNN)}x{min_image_side(NATURE_CNN)}) or \"minatar_cnn\" (small grids)")
    if config.kind != MLP and not space.image:
        return (f"a {config.kind} policy takes image observations, and this environment's are flat vectors of "
                f"{space.obs_dim}: set policy kind to \"mlp\"")
    if config.kind != MLP and min(conv_output(space, config)[1:]) < 1:
        side = min_image_side(config.kind)
        return (f"{config.kind}'s convolutions need images of at least {side}x{side}, this environment's are "
                f"{space.obs_shape[0]}x{space.obs_shape[1]}: use \"minatar_cnn\" for small images, or resize them")
    return None


def tensor_specs(space: SpaceSpec, config: PolicyConfig) -> dict[str, tuple[str, tuple[int, ...]]]:
    """{name: (dtype, shape)} of the state dict of ActorCritic(space, config) (module doc).
    ValueError (`misfit`'s message) if the network cannot take the space's observations."""
    problem = misfit(space, config)
    if problem:
        raise ValueError(problem)
    shapes: dict[str, tuple[int, ...]] = {}
    if config.kind == MLP:
        for net, out in (("critic", 1), ("actor", space.action_dim)):
            sizes = [space.obs_dim, *config.hidden_sizes, out]
            for i in range(len(sizes) - 1):
                shapes[f"{net}.{2 * i}.weight"] = (sizes[i + 1], sizes[i])
                shapes[f"{net}.{2 * i}.bias"] = (sizes[i + 1],)
    else:
        channels = space.obs_shape[2]
        for i, (out, kernel, _) in enumerate(CONV_LAYERS[config.kind]):
            shapes[f"trunk.{2 * i}.weight"] = (out, channels, kernel, kernel)
            shapes[f"trunk.{2 * i}.bias"] = (out,)
            channels = out
        width, at = math.prod(conv_output(space, config)), 2 * len(CONV_LAYERS[config.kind]) + 1
        for i, h in enumerate(config.hidden_sizes):
            shapes[f"trunk.{at + 2 * i}.weight"] = (h, width)
            shapes[f"trunk.{at + 2 * i}.bias"] = (h,)
            width = h
        for net, out in (("critic", 1), ("actor", space.action_dim)):
            shapes[f"{net}.0.weight"] = (out, width)
            shapes[f"{net}.0.bias"] = (out,)
    if space.action_kind != DISCRETE:
        shapes["log_std"] = (space.action_dim,)
    specs = {name: (F32, shape) for name, shape in shapes.items()}
    if config.obs_norm:
        specs |= {"obs_rms.mean": (F64, space.shape), "obs_rms.var": (F64, space.shape), "obs_rms.count": (F64, ())}
    return specs


def parameter_count(space: SpaceSpec, config: PolicyConfig) -> int:
    """Trainable parameters of ActorCritic(space, config) (observation statistics not counted)."""
    return sum(math.prod(shape) for name, (_, shape) in tensor_specs(space, config).items()
               if name not in OBS_STATS)
