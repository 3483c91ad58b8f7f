"""The actor-critic policy: two MLPs (actor and critic), categorical or diagonal-Gaussian actions.

* Built from a `SpaceSpec` (what the env looks like) and a `PolicyConfig` (sizes, activation,
  seed). Initialisation is orthogonal (as cleanrl's PPO) from a local `torch.Generator` seeded by
  `config.seed`, so the same config gives the same parameters in every process, and the global
  torch RNG is never touched.
* Sampling takes an explicit `torch.Generator` and uses one draw per step (inverse CDF for
  categorical actions, `mean + std * eps` for Gaussian ones), so a validator holding the seed can
  redraw the same random numbers (see `workers.rl.replay`).
* Checkpoints are safetensors: the tensors plus one metadata entry, `"decentrl"`, holding
  canonical JSON (format, version, space spec, config). Nothing is ever unpickled. The bytes are
  deterministic, and `digest(policy)` is keccak256 of them: the id of a round's policy.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import torch
from eth_utils import keccak
from safetensors import SafetensorError
from safetensors.numpy import save as np_save
from safetensors.torch import load as st_load
from torch import nn
from torch.nn import functional as F

from workers.framing import Malformed, brief, is_count, json_header
from workers.rl import architecture, policy_cnn
from workers.rl.config import KINDS, MLP, PolicyConfig
from workers.rl.envs import BOX, DISCRETE, SpaceSpec
from workers.rl.normalization import CLIP, VAR_EPSILON, RunningStats

FORMAT = "decentrl.policy"
VERSION = 1
METADATA_KEY = "decentrl"
_ACTIVATION_FNS = {nn.Tanh: torch.tanh, nn.ReLU: torch.relu}
LOG_2PI = math.log(2 * math.pi)


class ObsStats(nn.Module):
    """Running observation statistics a policy with `obs_norm` carries (float64 buffers, saved in
    its checkpoint) and normalises with: (obs - mean) / sqrt(var + 1e-8), clipped to +-10."""

    def __init__(self, shape: tuple[int, ...]):
        super().__init__()
        initial = RunningStats.initial(shape)
        self.register_buffer("mean", torch.from_numpy(initial.mean))
        self.register_buffer("var", torch.from_numpy(initial.var))
        self.register_buffer("count", torch.tensor(initial.count, dtype=torch.float64))

    def normalize(self, obs: torch.Tensor) -> torch.Tensor:
        x = (obs.double() - self.mean) / torch.sqrt(self.var + VAR_EPSILON)
        return x.clamp(-CLIP, CLIP).float()

    def stats(self) -> RunningStats:
        return RunningStats(self.mean.detach().cpu().numpy().copy(), self.var.detach().cpu().numpy().copy(),
                            float(self.count))

    def set_(self, stats: RunningStats) -> None:
        with torch.no_grad():
            self.mean.copy_(torch.from_numpy(stats.mean))
            self.var.copy_(torch.from_numpy(stats.var))
            self.count.fill_(stats.count)


class _Head(nn.Sequential):
    """The actor's or the critic's layers on the shared features (an MLP's are the whole MLP on the
    observations). Called on raw observations, as recorded, it computes the features first, so
    `policy.actor(obs)` gives logits (or Gaussian means) and `policy.critic(obs)` values for any kind."""

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return super().forward(self.features(obs))


class ActorCritic(nn.Module):
    """Actor (logits or Gaussian mean) and critic (state value) for one `SpaceSpec`: two MLPs on
    flat observations, or one CNN trunk with two linear heads on images (`PolicyConfig.kind`).

    Observations go in as recorded, shape (N, *spec.shape): uint8 images are scaled by 1/255 and
    permuted from (N, H, W, C) to (N, C, H, W) here; with `obs_norm` they are normalised by the
    carried statistics instead of scaled (module ObsStats). The CNN trunk is shared by actor and
    critic, as in SB3's CnnPolicy and cleanrl's ppo_atari (the rl-zoo's Atari hyperparameters are
    tuned for it, and one trunk pass serves both heads)."""

    def __init__(self, spec: SpaceSpec, config: PolicyConfig = PolicyConfig(), *, initialize: bool = True):
        """`initialize=False`: the parameters are left uninitialised, for a checkpoint to load.
        ValueError if the network cannot take the space's observations (what to set instead)."""
        super().__init__()
        spec.validate()
        problem = architecture.misfit(spec, config)
        if problem:
            raise ValueError(problem)
        self.spec = spec
        self.config = config
        g = torch.Generator().manual_seed(config.seed) if initialize else None
        self.obs_rms = ObsStats(spec.shape) if config.obs_norm else None
        hidden = list(config.hidden_sizes)
        if config.cnn:
            self.trunk = policy_cnn.cnn_trunk(spec, config, g)
            width = hidden[-1]
            self.critic = _Head(policy_cnn.linear(width, 1, 1.0, g))
            self.actor = _Head(policy_cnn.linear(width, spec.action_dim, 0.01, g))
        else:
            self.trunk = None
            self.critic = _Head(*policy_cnn.mlp_layers([spec.obs_dim, *hidden, 1], config.activation, 1.0, g))
            self.actor = _Head(*policy_cnn.mlp_layers([spec.obs_dim, *hidden, spec.action_dim], config.activation,
                                                      0.01, g))
        for head in (self.critic, self.actor):
            object.__setattr__(head, "features", self.features)  # a function, not a submodule
        # The parameters themselves (optimizers, load_state_dict and .to() update them in place).
        self._actor_layers, self._critic_layers = _layers(self.actor), _layers(self.critic)
        self.discrete = spec.action_kind == DISCRETE
        if not self.discrete:
            self.log_std = nn.Parameter(torch.full((spec.action_dim,), float(config.init_log_std)))
            self.register_buffer("action_low", torch.tensor(spec.action_low, dtype=torch.float32),
                                 persistent=False)
            self.register_buffer("action_high", torch.tensor(spec.action_high, dtype=torch.float32),
                                 persistent=False)

    # -- evaluation -------------------------------------------------------------------------------

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """What the heads take: the observations scaled or normalised (class doc), through the CNN
        trunk for a CNN kind. A flat float32 observation without obs_norm is used as it is."""
        x = obs
        if self.obs_rms is not None:
            x = self.obs_rms.normalize(x)
        elif x.dtype == torch.uint8:
            x = x.float() / 255.0
        if self.trunk is None:
            return x
        return self.trunk(x.permute(0, 3, 1, 2))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values, shape (B,)."""
        return _forward(self._critic_layers, self.features(obs)).squeeze(-1)

    def log_prob_entropy(self, obs: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities of `actions` (B,) or (B, k) and the entropies, both shape (B,)."""
        return self._log_prob_entropy(_forward(self._actor_layers, self.features(obs)), actions)

    def _log_prob_entropy(self, out: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.discrete:
            logp_all = torch.log_softmax(out, dim=-1)
            logp = logp_all.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
            entropy = -(logp_all.exp() * logp_all).sum(-1)
            return logp, entropy
        log_std = self.log_std.expand_as(out)
        z = (actions - out) / log_std.exp()
        logp = (-0.5 * z.pow(2) - log_std - 0.5 * LOG_2PI).sum(-1)
        entropy = (0.5 + 0.5 * LOG_2PI + log_std).sum(-1)
        return logp, entropy

    def evaluate(self, obs: torch.Tensor, actions: torch.Tensor):
        """(log-probs, entropies, values) of a batch: what a PPO update needs (one trunk pass)."""
        x = self.features(obs)
        logp, entropy = self._log_prob_entropy(_forward(self._actor_layers, x), actions)
        return logp, entropy, _forward(self._critic_layers, x).squeeze(-1)

    # -- acting -----------------------------------------------------------------------------------

    @torch.no_grad()
    def sample(self, obs: torch.Tensor, generator: torch.Generator):
        """Sample actions for a batch of observations with `generator`: `draw` then `sample_from`.
        Returns (actions, log-probs, values, draws)."""
        draws = self.draw(obs.shape[0], generator)
        return (*self.sample_from(obs, draws), draws)

    def draw(self, batch: int, generator: torch.Generator) -> torch.Tensor:
        """The random numbers behind `batch` actions: `torch.rand(batch)` (categorical, inverse
        CDF) or `torch.randn(batch, k)` (Gaussian), from `generator`."""
        if self.discrete:
            return torch.rand(batch, generator=generator)
        return torch.randn(batch, self.spec.action_dim, generator=generator)

    def sample_from(self, obs: torch.Tensor, draws: torch.Tensor):
        """The actions that `draws` (as `draw` makes them, one row per observation) select, with
        their log-probs and the observations' values. Actions are int64 (B,) or float32 (B, k),
        unclipped (clip with `env_action` before stepping the env). Call it under
        `torch.inference_mode()` or `torch.no_grad()` (as `sample` does; rollouts enter that once
        for many calls)."""
        x = self.features(obs)
        out = _forward(self._actor_layers, x)
        if self.discrete:
            logp_all = torch.log_softmax(out, dim=-1)
            actions = categorical_from_uniform(logp_all.exp(), draws)
            logp = logp_all.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        else:
            actions = out + self.log_std.exp() * draws
            logp = (-0.5 * draws.pow(2) - self.log_std - 0.5 * LOG_2PI).sum(-1)
        return actions, logp, _forward(self._critic_layers, x).squeeze(-1)

    @torch.no_grad()
    def deterministic_action(self, obs: torch.Tensor) -> torch.Tensor:
        """The most likely action: argmax of the logits, or the Gaussian mean."""
        out = self.actor(obs)
        return out.argmax(-1) if self.discrete else out

    def env_action(self, action: torch.Tensor):
        """One sampled action as the env takes it: a Python int, or a float32 array clipped to
        the action bounds."""
        if self.discrete:
            return int(action)
        return torch.clamp(action, self.action_low, self.action_high).cpu().numpy()

    # -- observation statistics ---------------------------------------------------------------------

    def obs_stats(self) -> RunningStats | None:
        """The observation statistics it normalises with (None without obs_norm)."""
        return None if self.obs_rms is None else self.obs_rms.stats()

    def set_obs_stats_(self, stats: RunningStats) -> None:
        if self.obs_rms is None:
            raise ValueError("this policy has no observation statistics (its config has obs_norm false)")
        self.obs_rms.set_(stats)


def _layers(net: nn.Sequential) -> list[tuple[torch.Tensor, torch.Tensor, object]]:
    """[(weight, bias, activation or None)] of a head: what `_forward` runs."""
    modules = list(net)
    return [(m.weight, m.bias, _ACTIVATION_FNS[type(modules[i + 1])] if i + 1 < len(modules) else None)
            for i, m in enumerate(modules) if isinstance(m, nn.Linear)]


def _forward(layers: list, x: torch.Tensor) -> torch.Tensor:
    """The head's output with the same kernels as calling it, without nn.Module call overhead
    (rollouts and updates run many small forward passes)."""
    for weight, bias, activation in layers:
        x = F.linear(x, weight, bias)
        if activation is not None:
            x = activation(x)
    return x


def categorical_from_uniform(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Inverse-CDF sampling: the first index whose cumulative probability exceeds u * total."""
    cdf = probs.cumsum(-1)
    idx = torch.searchsorted(cdf, (u * cdf[..., -1]).unsqueeze(-1), right=True).squeeze(-1)
    return idx.clamp(max=probs.shape[-1] - 1)


def make_policy(spec: SpaceSpec, config: PolicyConfig = PolicyConfig()) -> ActorCritic:
    return ActorCritic(spec, config)


# -- checkpoints ------------------------------------------------------------------------------------

def to_bytes(policy: ActorCritic) -> bytes:
    """The policy as safetensors bytes (float32 parameters, float64 observation statistics, and
    canonical JSON metadata)."""
    tensors = {name: t.detach().to("cpu", torch.float64 if name in architecture.OBS_STATS else torch.float32)
               for name, t in policy.state_dict().items()}
    meta = {"format": FORMAT, "version": VERSION, "spec": policy.spec.to_dict(),
            "config": policy.config.to_dict()}
    return safetensors_bytes(tensors, meta)


def safetensors_bytes(tensors: dict[str, torch.Tensor], meta: dict) -> bytes:
    """safetensors bytes of `tensors` (moved to the CPU) with `meta` as canonical JSON under
    one metadata key (safetensors keeps metadata in a hash map, whose order could vary). Through
    safetensors' numpy writer: the same bytes as its torch one, which took twice the CPU, and
    trainers record a state every few gradient steps."""
    arrays = {name: t.detach().cpu().contiguous().numpy() for name, t in tensors.items()}
    return np_save(arrays, metadata={METADATA_KEY: json.dumps(meta, sort_keys=True, separators=(",", ":"))})


_ITEMSIZE = {architecture.F32: 4, architecture.F64: 8}


Entries = dict[str, tuple[str, tuple[int, ...]]]
"""{tensor name: (safetensors dtype, shape)}"""


def safetensors_entries(data: bytes, fmt: str, version: int,
                        dtypes: tuple[str, ...] = (architecture.F32,)) -> tuple[Entries, dict]:
    """({tensor name: (dtype, shape)}, the decentrl metadata) of safetensors bytes as
    `safetensors_bytes` writes them for format `fmt` version `version`: tensors of `dtypes`,
    contiguous in the body. Read from the header alone, every length, offset and count checked
    against `data` before use: they may come from another node. Malformed saying what is wrong
    otherwise."""
    data = memoryview(data)
    if len(data) < 8:
        raise Malformed("not a safetensors checkpoint: shorter than its 8-byte header length")
    (n,) = struct.unpack_from("<Q", data)
    if n > len(data) - 8:
        raise Malformed(f"not a safetensors checkpoint: a {n}-byte header in {len(data)} bytes")
    header = json_header(bytes(data[8:8 + n]), "safetensors header")
    if not isinstance(header, dict):
        raise Malformed("safetensors header is not a JSON object")
    extra = header.pop("__metadata__", {})
    raw = extra.get(METADATA_KEY) if isinstance(extra, dict) else None
    what = "decentrl " + fmt.removeprefix("decentrl.").replace("_", " ")
    if not isinstance(raw, str):
        raise Malformed(f"safetensors checkpoint has no {METADATA_KEY!r} metadata: not a {what}")
    meta = json_header(raw, f"{METADATA_KEY!r} metadata")
    if not isinstance(meta, dict) or meta.get("format") != fmt or meta.get("version") != version:
        got = (meta.get("format"), meta.get("version")) if isinstance(meta, dict) else (None, None)
        raise Malformed(f"unsupported format {brief(got[0])} version {brief(got[1])}; expected {fmt!r} "
                        f"version {version} ({what})")
    entries, spans = {}, []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise Malformed(f"tensor {brief(name)}: not a safetensors entry (dtype, shape, data_offsets)")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in dtypes:
            raise Malformed(f"tensor {brief(name)}: dtype {brief(dtype)}, expected {' or '.join(dtypes)}")
        if not isinstance(shape, list) or not all(is_count(d) for d in shape):
            raise Malformed(f"tensor {brief(name)}: shape {brief(shape)} is not a list of sizes")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(is_count(o) for o in offsets):
            raise Malformed(f"tensor {brief(name)}: data_offsets {brief(offsets)} are not [begin, end]")
        if offsets[1] - offsets[0] != _ITEMSIZE[dtype] * math.prod(shape):
            raise Malformed(f"tensor {brief(name)}: data_offsets {offsets} do not span a {dtype} "
                            f"{brief(tuple(shape))}")
        entries[name] = (dtype, tuple(shape))
        spans.append(tuple(offsets))
    body, at = len(data) - 8 - n, 0
    for begin, end in sorted(spans):
        if begin != at:
            raise Malformed(f"safetensors body is not tensor after tensor: a tensor starts at {begin}, not {at}")
        at = end
    if at != body:
        raise Malformed(f"safetensors tensors end at byte {at} of a {body}-byte body")
    return entries, meta


def safetensors_header(data: bytes, fmt: str, version: int) -> tuple[dict[str, tuple[int, ...]], dict]:
    """({tensor name: shape}, the decentrl metadata) of safetensors bytes of float32 tensors
    (`safetensors_entries`, Malformed for any other dtype)."""
    entries, meta = safetensors_entries(data, fmt, version)
    return {name: shape for name, (_, shape) in entries.items()}, meta


def safetensors_tensors(data: bytes) -> dict[str, torch.Tensor]:
    """The tensors of safetensors bytes whose header `safetensors_entries` has checked (Malformed
    should safetensors still refuse them)."""
    try:
        return st_load(bytes(data))
    except SafetensorError as error:
        raise Malformed(f"safetensors refuses the bytes: {error}") from None


def _policy_entries(data: bytes):
    return safetensors_entries(data, FORMAT, VERSION, (architecture.F32, architecture.F64))


def policy_tensors(data: bytes) -> dict[str, torch.Tensor]:
    """The tensors of a policy's safetensors bytes, by name (header checked first; Malformed)."""
    _policy_entries(data)
    return safetensors_tensors(data)


def read_metadata(data: bytes) -> dict:
    """The decentrl metadata of a policy's safetensors bytes, parsed from the header alone."""
    return _policy_entries(data)[1]


def _architecture(meta: dict) -> tuple[SpaceSpec, PolicyConfig]:
    """The (spaces, architecture) a policy's metadata names; Malformed if it names none."""
    space, cfg = meta.get("spec"), meta.get("config")
    if not isinstance(space, dict) or not isinstance(cfg, dict):
        raise Malformed("policy metadata needs a spec and a config object")
    ints = [space.get("obs_dim"), space.get("action_dim"), cfg.get("seed")]
    hidden = cfg.get("hidden_sizes")
    bounds = [space.get("action_low"), space.get("action_high")]
    shape = space.get("obs_shape")
    if not all(is_count(x) for x in ints) or not isinstance(hidden, list) or not all(is_count(h) for h in hidden) \
            or not all(b is None or isinstance(b, list) and all(_is_number(x) for x in b) for b in bounds) \
            or not _is_number(cfg.get("init_log_std")) or space.get("action_kind") not in (DISCRETE, BOX) \
            or not isinstance(cfg.get("activation"), str) or cfg.get("kind", MLP) not in KINDS \
            or not isinstance(cfg.get("obs_norm", False), bool) \
            or not (shape is None or isinstance(shape, list) and all(is_count(d) for d in shape)):
        raise Malformed(f"policy metadata does not describe an architecture: spec {brief(space)}, "
                        f"config {brief(cfg)}")
    try:
        return SpaceSpec.from_dict(space), PolicyConfig(
            hidden_sizes=tuple(hidden), activation=cfg["activation"], init_log_std=float(cfg["init_log_std"]),
            seed=cfg["seed"], kind=cfg.get("kind", MLP), obs_norm=cfg.get("obs_norm", False))
    except (ValueError, OverflowError) as error:  # EnvError, PolicyConfig's checks, a number past float
        raise Malformed(f"policy metadata does not describe an architecture: {brief(str(error))}") from None


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def parameter_shapes(space: SpaceSpec, config: PolicyConfig) -> dict[str, tuple[int, ...]]:
    """{name: shape} of the state dict of an ActorCritic(space, config), without building it (a
    checkpoint's header is checked against it before any parameter is allocated)."""
    return {name: shape for name, (_, shape) in architecture.tensor_specs(space, config).items()}


def from_bytes(data: bytes) -> ActorCritic:
    """A policy from `to_bytes` output; Malformed unless its names, shapes and dtypes are those of
    the architecture its metadata names (checked before anything is allocated) and its observation
    statistics, if any, are statistics. Never unpickles."""
    entries, meta = _policy_entries(data)
    space, config = _architecture(meta)
    try:
        expected = architecture.tensor_specs(space, config)
    except ValueError as error:  # the metadata names a network that cannot take its space
        raise Malformed(f"policy metadata does not describe an architecture: {error}") from None
    if set(entries) != set(expected):
        raise Malformed(f"checkpoint tensors {brief(sorted(entries))} do not match the architecture's "
                        f"({config.kind}) {sorted(expected)}")
    for name, (dtype, shape) in entries.items():
        if (dtype, shape) != expected[name]:
            want_dtype, want_shape = expected[name]
            raise Malformed(f"tensor {name}: {_DTYPE_NAMES[dtype]} {brief(shape)}, expected "
                            f"{_DTYPE_NAMES[want_dtype]} {want_shape}")
    policy = ActorCritic(space, config, initialize=False)
    policy.load_state_dict(safetensors_tensors(data), strict=True)
    stats = policy.obs_stats()
    problem = None if stats is None else stats.problem()
    if problem:
        raise Malformed(f"the checkpoint's observation statistics are not statistics: {problem}")
    return policy


_DTYPE_NAMES = {architecture.F32: "float32", architecture.F64: "float64"}


def check_architecture(policy: ActorCritic, space: SpaceSpec, config: PolicyConfig) -> None:
    """ValueError saying how `policy` (a checkpoint's) differs from the architecture a task
    declares (its spaces, and its config but for the seed); nothing if it has it."""
    if policy.spec != space:
        raise ValueError(f"checkpoint policy does not have the spec's architecture: it is for spaces {policy.spec}, "
                         f"the task's environment has {space}")
    got, want = policy.config.architecture(), config.architecture()
    if got != want:
        diff = {f: (getattr(got, f), getattr(want, f)) for f in ("kind", "hidden_sizes", "activation", "obs_norm")
                if getattr(got, f) != getattr(want, f)}
        raise ValueError("checkpoint policy does not have the spec's architecture: "
                         + ", ".join(f"{f} {g!r} (the spec says {w!r})" for f, (g, w) in diff.items()))


def save(policy: ActorCritic, path: str | Path) -> bytes:
    """Writes the checkpoint to `path`; returns its digest."""
    data = to_bytes(policy)
    Path(path).write_bytes(data)
    return keccak(data)


def load(path: str | Path) -> ActorCritic:
    return from_bytes(Path(path).read_bytes())


def digest(policy: ActorCritic) -> bytes:
    """keccak256 of the policy's safetensors bytes (32 bytes)."""
    return keccak(to_bytes(policy))
