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

import contextlib
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
from workers.rl.config import PolicyConfig
from workers.rl.envs import BOX, DISCRETE, SpaceSpec

FORMAT = "decentrl.policy"
VERSION = 1
METADATA_KEY = "decentrl"
_ACTIVATION_MODULES = {"tanh": nn.Tanh, "relu": nn.ReLU}
_ACTIVATION_FNS = {nn.Tanh: torch.tanh, nn.ReLU: torch.relu}
LOG_2PI = math.log(2 * math.pi)


class _UninitialisedLinear(nn.Linear):
    """nn.Linear without its default init (which draws from the global RNG), for a checkpoint's
    tensors to replace: cheaper than torch.nn.utils.skip_init, which builds on the meta device."""

    def reset_parameters(self) -> None:
        pass


def _mlp(sizes: list[int], activation: str, out_gain: float, generator: torch.Generator | None) -> nn.Sequential:
    """The MLP, initialised from `generator`; with None its parameters are left uninitialised (a
    checkpoint's tensors replace them: the orthogonal init's QR decompositions would be wasted)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        last = i == len(sizes) - 2
        if generator is None:
            linear = _UninitialisedLinear(sizes[i], sizes[i + 1])
        else:
            linear = nn.Linear(sizes[i], sizes[i + 1])
            nn.init.orthogonal_(linear.weight, gain=out_gain if last else math.sqrt(2), generator=generator)
            nn.init.zeros_(linear.bias)
        layers.append(linear)
        if not last:
            layers.append(_ACTIVATION_MODULES[activation]())
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """Actor (logits or Gaussian mean) and critic (state value) for one `SpaceSpec`."""

    def __init__(self, spec: SpaceSpec, config: PolicyConfig = PolicyConfig(), *, initialize: bool = True):
        """`initialize=False`: the parameters are left uninitialised, for a checkpoint to load."""
        super().__init__()
        spec.validate()
        self.spec = spec
        self.config = config
        hidden = list(config.hidden_sizes)
        g = torch.Generator().manual_seed(config.seed) if initialize else None
        # nn.Linear draws its default init from the global RNG before we overwrite it: restore it.
        with torch.random.fork_rng(devices=[]) if initialize else contextlib.nullcontext():
            self.critic = _mlp([spec.obs_dim, *hidden, 1], config.activation, 1.0, g)
            self.actor = _mlp([spec.obs_dim, *hidden, spec.action_dim], config.activation, 0.01, g)
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

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values, shape (B,)."""
        return _forward(self._critic_layers, obs).squeeze(-1)

    def log_prob_entropy(self, obs: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities of `actions` (B,) or (B, k) and the entropies, both shape (B,)."""
        out = _forward(self._actor_layers, obs)
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
        """(log-probs, entropies, values) of a batch: what a PPO update needs."""
        logp, entropy = self.log_prob_entropy(obs, actions)
        return logp, entropy, self.value(obs)

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
        out = _forward(self._actor_layers, obs)
        if self.discrete:
            logp_all = torch.log_softmax(out, dim=-1)
            actions = categorical_from_uniform(logp_all.exp(), draws)
            logp = logp_all.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        else:
            actions = out + self.log_std.exp() * draws
            logp = (-0.5 * draws.pow(2) - self.log_std - 0.5 * LOG_2PI).sum(-1)
        return actions, logp, _forward(self._critic_layers, obs).squeeze(-1)

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


def _layers(net: nn.Sequential) -> list[tuple[torch.Tensor, torch.Tensor, object]]:
    """[(weight, bias, activation or None)] of an `_mlp`: what `_forward` runs."""
    modules = list(net)
    return [(m.weight, m.bias, _ACTIVATION_FNS[type(modules[i + 1])] if i + 1 < len(modules) else None)
            for i, m in enumerate(modules) if isinstance(m, nn.Linear)]


def _forward(layers: list, x: torch.Tensor) -> torch.Tensor:
    """The MLP's output with the same kernels as calling it, without nn.Module call overhead
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
    """The policy as safetensors bytes (float32 tensors + canonical JSON metadata)."""
    tensors = {name: t.detach().to("cpu", torch.float32) for name, t in policy.state_dict().items()}
    meta = {"format": FORMAT, "version": VERSION, "spec": policy.spec.to_dict(),
            "config": policy.config.to_dict()}
    return safetensors_bytes(tensors, meta)


def safetensors_bytes(tensors: dict[str, torch.Tensor], meta: dict) -> bytes:
    """safetensors bytes of float32 `tensors` (moved to the CPU) with `meta` as canonical JSON under
    one metadata key (safetensors keeps metadata in a hash map, whose order could vary). Through
    safetensors' numpy writer: the same bytes as its torch one, which took twice the CPU, and
    trainers record a state every few gradient steps."""
    arrays = {name: t.detach().cpu().contiguous().numpy() for name, t in tensors.items()}
    return np_save(arrays, metadata={METADATA_KEY: json.dumps(meta, sort_keys=True, separators=(",", ":"))})


def safetensors_header(data: bytes, fmt: str, version: int) -> tuple[dict[str, tuple[int, ...]], dict]:
    """({tensor name: shape}, the decentrl metadata) of safetensors bytes as `safetensors_bytes`
    writes them for format `fmt` version `version`: float32 tensors, contiguous in the body. Read
    from the header alone, every length, offset and count checked against `data` before use: they
    may come from another node. Malformed saying what is wrong otherwise."""
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
    shapes, spans = {}, []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise Malformed(f"tensor {brief(name)}: not a safetensors entry (dtype, shape, data_offsets)")
        shape, offsets = entry["shape"], entry["data_offsets"]
        if entry["dtype"] != "F32":
            raise Malformed(f"tensor {brief(name)}: dtype {brief(entry['dtype'])}, expected F32 (float32)")
        if not isinstance(shape, list) or not all(is_count(d) for d in shape):
            raise Malformed(f"tensor {brief(name)}: shape {brief(shape)} is not a list of sizes")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(is_count(o) for o in offsets):
            raise Malformed(f"tensor {brief(name)}: data_offsets {brief(offsets)} are not [begin, end]")
        if offsets[1] - offsets[0] != 4 * math.prod(shape):
            raise Malformed(f"tensor {brief(name)}: data_offsets {offsets} do not span a float32 "
                            f"{brief(tuple(shape))}")
        shapes[name] = tuple(shape)
        spans.append(tuple(offsets))
    body, at = len(data) - 8 - n, 0
    for begin, end in sorted(spans):
        if begin != at:
            raise Malformed(f"safetensors body is not tensor after tensor: a tensor starts at {begin}, not {at}")
        at = end
    if at != body:
        raise Malformed(f"safetensors tensors end at byte {at} of a {body}-byte body")
    return shapes, meta


def safetensors_tensors(data: bytes) -> dict[str, torch.Tensor]:
    """The tensors of safetensors bytes whose header `safetensors_header` has checked (Malformed
    should safetensors still refuse them)."""
    try:
        return st_load(bytes(data))
    except SafetensorError as error:
        raise Malformed(f"safetensors refuses the bytes: {error}") from None


def policy_tensors(data: bytes) -> dict[str, torch.Tensor]:
    """The tensors of a policy's safetensors bytes, by name (header checked first; Malformed)."""
    safetensors_header(data, FORMAT, VERSION)
    return safetensors_tensors(data)


def read_metadata(data: bytes) -> dict:
    """The decentrl metadata of a policy's safetensors bytes, parsed from the header alone."""
    return safetensors_header(data, FORMAT, VERSION)[1]


def _architecture(meta: dict) -> tuple[SpaceSpec, PolicyConfig]:
    """The (spaces, architecture) a policy's metadata names; Malformed if it names none."""
    space, cfg = meta.get("spec"), meta.get("config")
    if not isinstance(space, dict) or not isinstance(cfg, dict):
        raise Malformed("policy metadata needs a spec and a config object")
    ints = [space.get("obs_dim"), space.get("action_dim"), cfg.get("seed")]
    hidden = cfg.get("hidden_sizes")
    bounds = [space.get("action_low"), space.get("action_high")]
    if not all(is_count(x) for x in ints) or not isinstance(hidden, list) or not all(is_count(h) for h in hidden) \
            or not all(b is None or isinstance(b, list) and all(_is_number(x) for x in b) for b in bounds) \
            or not _is_number(cfg.get("init_log_std")) or space.get("action_kind") not in (DISCRETE, BOX) \
            or not isinstance(cfg.get("activation"), str):
        raise Malformed(f"policy metadata does not describe an architecture: spec {brief(space)}, "
                        f"config {brief(cfg)}")
    try:
        return SpaceSpec.from_dict(space), PolicyConfig(
            hidden_sizes=tuple(hidden), activation=cfg["activation"], init_log_std=float(cfg["init_log_std"]),
            seed=cfg["seed"])
    except (ValueError, OverflowError) as error:  # EnvError, PolicyConfig's checks, a number past float
        raise Malformed(f"policy metadata does not describe an architecture: {brief(str(error))}") from None


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def parameter_shapes(space: SpaceSpec, config: PolicyConfig) -> dict[str, tuple[int, ...]]:
    """{name: shape} of the state dict of an ActorCritic(space, config), without building it (a
    checkpoint's header is checked against it before any parameter is allocated)."""
    shapes = {}
    for net, out in (("critic", 1), ("actor", space.action_dim)):
        sizes = [space.obs_dim, *config.hidden_sizes, out]
        for i in range(len(sizes) - 1):
            shapes[f"{net}.{2 * i}.weight"] = (sizes[i + 1], sizes[i])
            shapes[f"{net}.{2 * i}.bias"] = (sizes[i + 1],)
    if space.action_kind != DISCRETE:
        shapes["log_std"] = (space.action_dim,)
    return shapes


def from_bytes(data: bytes) -> ActorCritic:
    """A policy from `to_bytes` output; Malformed unless its names, shapes and dtypes are those of
    the architecture its metadata names (checked before anything is allocated). Never unpickles."""
    shapes, meta = safetensors_header(data, FORMAT, VERSION)
    space, config = _architecture(meta)
    expected = parameter_shapes(space, config)
    if set(shapes) != set(expected):
        raise Malformed(f"checkpoint tensors {brief(sorted(shapes))} do not match the architecture's "
                        f"{sorted(expected)}")
    for name, shape in shapes.items():
        if shape != expected[name]:
            raise Malformed(f"tensor {name}: float32 {brief(shape)}, expected float32 {expected[name]}")
    policy = ActorCritic(space, config, initialize=False)
    policy.load_state_dict(safetensors_tensors(data), strict=True)
    return policy


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
