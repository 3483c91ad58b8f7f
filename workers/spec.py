"""The task spec: what a requester publishes on IPFS and every node of the task reads.

The chain holds the spec's CID and `specDigest` = keccak256 of its bytes. A requester publishes
`spec.to_bytes()` (canonical JSON) and passes `spec.digest()`; a node fetches the bytes by CID and
calls `parse(data, digest=specDigest)`, which checks the digest before anything else. Numbers of
nodes and rounds are not here: the chain holds them (`numSamplers`, `numRounds`).

Canonical bytes (`to_bytes`): UTF-8 JSON, keys sorted at every level, separators "," and ":", ASCII
only, no whitespace, no trailing newline. Integer fields are JSON integers within [0, 2**53) so
every JSON reader (JavaScript included) reads them exactly. Float fields are always written as
floats, in Python's `repr` of the IEEE-754 double: the shortest decimal that reads back to the
same double (`0.0025`, `1e-05`, `475.0`), so one value has one spelling and equal specs have equal
digests; NaN and infinities are refused. `parse` accepts any JSON with valid values (an integer
where a float is expected is fine), but only the canonical bytes have the digest `digest()` gives:
always publish `to_bytes()`, never a hand-written file.

Layout (version 1):

    {"env_id": str, "evaluation": {"episodes": int, "target_return": float},
     "policy": {"activation": str, "hidden_sizes": [int, ...], "init_log_std": float},
     "ppo": {every PPOConfig field except "device" and "norm_reward"}, "rollout": {"steps_per_shard": int},
     "seed": int, "verification": {"challenges_per_sampler": int, "challenges_per_trainer": int,
                                   "logp_tolerance": float, "steps_per_leaf": int,
                                   "steps_per_snapshot": int (only when nonzero)},
     "version": 1}

plus, only when the requester encrypted inputs (SPECIFICATION 5.7), "inputs": the public
descriptor of the ciphertext (`workers.crypto.inputs.EncryptedInputs`: algorithm, cid,
key_commitment, key_salt, kind, size). A spec without it has the same bytes as before it existed.

The environment may also carry, each written only when not empty (so a spec without them keeps
its bytes and digest): "env_kwargs": {name: JSON scalar}, keyword arguments for the id's
constructor (only names its entry point accepts; `workers.rl.envs.accepted_kwargs`), and
"wrappers": [{"name": str, argument: value, ...}, ...], applied in order from the closed registry
`workers.rl.envs.WRAPPER_ARGS` (atari_preprocessing, frame_stack, grayscale, resize, clip_reward,
time_limit), every argument written out. Observation and reward normalisation are not wrappers:
their statistics are committed with the policy. `TaskSpec.env_config()` is the EnvConfig they make.

`ppo.device` is not part of a spec: each trainer node picks its device (PPOConfig's "auto").

Optional fields, written only when not at their defaults (so a spec without them keeps its bytes
and digest): "policy": {"kind": "nature_cnn" | "minatar_cnn" (default "mlp"), "obs_norm": true}
and "ppo": {"norm_reward": true}. A CNN kind takes image observations and an MLP flat ones; for a
CNN kind, hidden_sizes are the linear layers after the convolutions (workers.rl.config).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from itertools import pairwise

from eth_utils import keccak

from workers.crypto import inputs as encrypted
from workers.rl import architecture
from workers.rl.config import ACTIVATIONS, KINDS, MLP, PolicyConfig, PPOConfig
from workers.rl.envs import EnvConfig, EnvError, SpaceSpec, WrapperConfig, env_space_spec, wrapper_config
from workers.rl.presets import Preset, preset_for

SPEC_VERSION = 1
MAX_INT = 2**53
"""Integers in a spec are below this, so any JSON reader reads them exactly."""
MAX_STEPS_PER_SHARD = 10_000_000
MAX_EVAL_EPISODES = 10_000
MAX_CHALLENGES = 10_000
MAX_LOGP_TOLERANCE = 0.1
MAX_STEPS_PER_LEAF = 10_000
MAX_SNAPSHOT_SHARD_STEPS = 2**16 - 1
"""A shard's steps when it carries snapshots: a dispute's item (uint32) names an episode and a
segment in 16 bits each (workers.roles.challenges.segment_item)."""
MAX_HIDDEN_WEIGHTS = 10**8
"""Weights between the policy's hidden layers (400 MB of float32 per network): a larger policy is
more than a node's memory and the nodes' transfers per round can hold. A CNN policy's parameters,
all of them counted, are held to the same bound."""
MAX_SPEC_BYTES = 1 << 20
"""A spec's JSON is ~1 KB; its encrypted-inputs descriptor keeps it far under this."""
MAX_NESTING = 16
"""Levels of arrays and objects: a spec has three (the object, its sections, hidden_sizes)."""
MAX_UPDATE_EPOCHS = 1_000
MAX_LEARNING_RATE = 1.0
_PPO_FIELDS = tuple(f.name for f in dataclasses.fields(PPOConfig) if f.name != "device")
_PPO_WRITTEN_WHEN_SET = ("norm_reward",)
"""PPO fields a spec holds only when not at their default (added after specs were published)."""


class SpecError(ValueError):
    """A spec that cannot be used; the message starts with the field path and says what to fix."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path}: {problem}" if path else f"the spec {problem}")
        self.path = path
        self.problem = problem


@dataclass(frozen=True)
class TaskSpec:
    """Everything a task's nodes need to sample, train, verify and evaluate (see module doc)."""

    env_id: str = "CartPole-v1"
    """gymnasium id of the environment (checked with `workers.rl.envs.make_env`)."""
    seed: int = 0
    """Task seed: seeds every rollout (with round, shard and episode index, see
    `workers.rl.rollout.derive_seeds`) and the initial policy's parameters (`policy_config`)."""
    hidden_sizes: tuple[int, ...] | None = None
    """Widths of the hidden layers of actor and critic (for a CNN kind: the linear layers after the
    convolutions); None: the kind's default, (64, 64) for the MLP (workers.rl.config.PolicyConfig)."""
    activation: str | None = None
    """Hidden-layer nonlinearity: "tanh" or "relu"; None: the kind's default ("tanh" for the MLP)."""
    init_log_std: float = 0.0
    """Initial log standard deviation of Gaussian actions (unused for discrete actions)."""
    steps_per_shard: int = 1024
    """Env steps each sampler rolls per round (its last episode is cut at the budget)."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """Trainer hyperparameters; the defaults are the design values. `device` stays "auto"."""
    eval_episodes: int = 100
    """Episodes (deterministic actions) of the final evaluation."""
    target_return: float = 475.0
    """Mean evaluation return that counts as solved."""
    challenges_per_sampler: int = 4
    """Episodes of each sampler's shard a validator replays each round (all when fewer)."""
    logp_tolerance: float = 1e-4
    """Largest |recorded - recomputed| action log-probability a validator accepts, on top of
    `workers.rl.replay`'s own checks (which already allow LOGP_ATOL + RTOL * |logp|)."""
    challenges_per_trainer: int = 1
    """Transitions of the trainer's trace (leaf to next leaf) a validator re-executes each round,
    and as many pre-update data chunks it recomputes (all when fewer). SPECIFICATION.md
    "Verification cost and detection" derives the default."""
    steps_per_leaf: int = 1
    """Gradient steps between two state leaves of the trainer's trace (workers.roles.trace): a
    challenged transition re-executes this many steps; the trainer stores S / k states a round."""
    steps_per_snapshot: int = 0
    """Env steps between two environment snapshots a sampler commits in each episode (at step 0
    and after every this many steps; workers.rl.rollout): a validator then replays challenged
    segments of this many steps instead of whole episodes. 0: no snapshots, whole-episode replay.
    Written to the canonical bytes only when nonzero."""
    version: int = SPEC_VERSION
    """Spec format version; this code reads version 1 only."""
    encrypted_inputs: encrypted.EncryptedInputs | None = None
    """The descriptor of the requester's encrypted payload (e.g. round 0's policy), or None."""
    env_kwargs: tuple[tuple[str, None | bool | int | float | str], ...] = ()
    """Keyword arguments for the environment's constructor, sorted by name (a dict is accepted)."""
    wrappers: tuple[WrapperConfig, ...] = ()
    """Wrappers applied to the environment in order (JSON dicts are accepted), every argument filled in."""
    policy_kind: str = MLP
    """The policy network: "mlp", "nature_cnn" or "minatar_cnn" (workers.rl.config.KINDS)."""
    obs_norm: bool = False
    """Normalise observations by running statistics the policy carries (PolicyConfig.obs_norm)."""

    def __post_init__(self):
        defaults = PolicyConfig(kind=self.policy_kind if self.policy_kind in KINDS else MLP)
        if self.hidden_sizes is None:
            object.__setattr__(self, "hidden_sizes", defaults.hidden_sizes)
        if self.activation is None:
            object.__setattr__(self, "activation", defaults.activation)
        object.__setattr__(self, "hidden_sizes", tuple(self.hidden_sizes))
        if not isinstance(self.ppo, PPOConfig):
            raise SpecError("ppo", f"must be a PPOConfig, got {type(self.ppo).__name__}")
        if self.ppo.device != "auto":
            raise SpecError("ppo.device", f'is chosen by each trainer node; leave it "auto", got {self.ppo.device!r}')
        for name, value in _validate(self.to_dict()).items():
            object.__setattr__(self, name, value)  # normalized: floats as floats, tuples

    # -- derived ----------------------------------------------------------------------------------

    def policy_config(self) -> PolicyConfig:
        """The architecture, with the task seed as the initialisation seed (round 0's policy)."""
        return PolicyConfig(hidden_sizes=self.hidden_sizes, activation=self.activation,
                            init_log_std=self.init_log_std, seed=self.seed, kind=self.policy_kind,
                            obs_norm=self.obs_norm)

    def space(self) -> SpaceSpec:
        """The `SpaceSpec` of the task's environment: what its policies are built for (a checkpoint
        of another space is refused)."""
        return env_space_spec(self.env_config())

    def env_config(self) -> EnvConfig:
        """The environment the task's nodes make: id, kwargs and wrappers."""
        return EnvConfig(self.env_id, self.env_kwargs, self.wrappers)

    def to_dict(self) -> dict:
        ppo = {name: getattr(self.ppo, name) for name in _PPO_FIELDS
               if name not in _PPO_WRITTEN_WHEN_SET or getattr(self.ppo, name) != getattr(PPOConfig, name)}
        policy = {"hidden_sizes": list(self.hidden_sizes), "activation": self.activation,
                  "init_log_std": self.init_log_std}
        if self.policy_kind != MLP:
            policy["kind"] = self.policy_kind
        if self.obs_norm:
            policy["obs_norm"] = True
        env = {}  # written only when set: a spec without them keeps its bytes
        if self.env_kwargs:
            env["env_kwargs"] = dict(self.env_kwargs)
        if self.wrappers:
            env["wrappers"] = [w.to_dict() if isinstance(w, WrapperConfig) else w for w in self.wrappers]
        return {
            "version": self.version,
            "env_id": self.env_id,
            "seed": self.seed,
            "policy": policy,
            "rollout": {"steps_per_shard": self.steps_per_shard},
            "ppo": ppo,
            "evaluation": {"episodes": self.eval_episodes, "target_return": self.target_return},
            "verification": {"challenges_per_sampler": self.challenges_per_sampler,
                             "challenges_per_trainer": self.challenges_per_trainer,
                             "logp_tolerance": self.logp_tolerance, "steps_per_leaf": self.steps_per_leaf}
            | ({"steps_per_snapshot": self.steps_per_snapshot} if self.steps_per_snapshot else {}),
        } | env | ({} if self.encrypted_inputs is None else {"inputs": self.encrypted_inputs.to_dict()})

    def to_bytes(self) -> bytes:
        """The canonical JSON bytes (module doc): what is published and hashed."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                          allow_nan=False).encode("ascii")

    def digest(self) -> bytes:
        """keccak256 of `to_bytes()`: the task's `specDigest` on chain (32 bytes)."""
        return keccak(self.to_bytes())


# -- parsing and validation -------------------------------------------------------------------------

def _int(path: str, v, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise SpecError(path, f"must be an integer, got {type(v).__name__} {v!r}")
    if not lo <= v < hi:
        raise SpecError(path, f"must be in [{lo}, {hi}), got {v}")
    return v


def _float(path: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SpecError(path, f"must be a number, got {type(v).__name__} {v!r}")
    if not math.isfinite(v):
        raise SpecError(path, f"must be finite, got {v!r}")
    return float(v)


def _str(path: str, v) -> str:
    if not isinstance(v, str):
        raise SpecError(path, f"must be a string, got {type(v).__name__} {v!r}")
    return v


def _object(path: str, v, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(v, dict):
        raise SpecError(path, f"must be a JSON object, got {type(v).__name__}")
    prefix = f"{path}." if path else ""
    for key in sorted(v):
        if key not in keys:
            hint = " (each trainer node picks its own device)" if key == "device" else ""
            raise SpecError(f"{prefix}{key}", f"unknown key{hint}; allowed keys: {', '.join(keys)}")
    for key in keys:
        if key not in v and key not in optional:
            raise SpecError(f"{prefix}{key}", "missing")
    return v


def _ppo(d) -> PPOConfig:
    _object("ppo", d, _PPO_FIELDS, optional=_PPO_FIELDS)
    defaults = PPOConfig()
    values = {}
    for f in dataclasses.fields(PPOConfig):
        if f.name == "device" or f.name not in d:
            continue
        path, v, default = f"ppo.{f.name}", d[f.name], getattr(defaults, f.name)
        if isinstance(default, bool):
            if not isinstance(v, bool):
                raise SpecError(path, f"must be true or false, got {v!r}")
        elif isinstance(default, int):
            v = _int(path, v, 0, MAX_INT)
        elif f.name == "target_kl":
            v = None if v is None else _float(path, v)
        else:
            v = _float(path, v)
        try:  # PPOConfig's own range checks, one field at a time so the error names the field
            PPOConfig(**{f.name: v})
        except ValueError as error:
            raise SpecError(path, str(error).removeprefix("invalid PPOConfig: ")) from None
        if f.name == "update_epochs" and v > MAX_UPDATE_EPOCHS:
            raise SpecError(path, f"must be at most {MAX_UPDATE_EPOCHS}, got {v}: each epoch is a pass over the "
                                  "round's samples within the trainer's commit window")
        if f.name in ("learning_rate", "final_learning_rate") and v > MAX_LEARNING_RATE:
            raise SpecError(path, f"must be at most {MAX_LEARNING_RATE}, got {v!r}")
        values[f.name] = v
    return PPOConfig(**values)


def _validate(d: dict) -> dict:
    """Checks the dict form of a spec (as `to_dict` gives it); returns the fields for TaskSpec."""
    top = ("version", "env_id", "seed", "policy", "rollout", "ppo", "evaluation", "verification")
    optional = ("inputs", "env_kwargs", "wrappers")
    _object("", d, (*top, *optional), optional=optional)
    version = d["version"]
    if isinstance(version, bool) or version != SPEC_VERSION:
        raise SpecError("version", f"this node reads spec version {SPEC_VERSION}, got {version!r}; "
                                   f"upgrade the node or write a version-{SPEC_VERSION} spec")
    env_id = _str("env_id", d["env_id"])
    env, space = _env_config(env_id, d.get("env_kwargs", {}), d.get("wrappers", []))
    seed = _int("seed", d["seed"], 0, MAX_INT)

    pol = _object("policy", d["policy"], ("hidden_sizes", "activation", "init_log_std", "kind", "obs_norm"),
                  optional=("kind", "obs_norm"))
    kind = _str("policy.kind", pol.get("kind", MLP))
    if kind not in KINDS:
        raise SpecError("policy.kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    obs_norm = pol.get("obs_norm", False)
    if not isinstance(obs_norm, bool):
        raise SpecError("policy.obs_norm", f"must be true or false, got {obs_norm!r}")
    hidden = pol["hidden_sizes"]
    if not isinstance(hidden, (list, tuple)) or not hidden:
        raise SpecError("policy.hidden_sizes", f"must be a non-empty list of layer widths, got {hidden!r}")
    hidden = tuple(_int(f"policy.hidden_sizes[{i}]", h, 1, 65_537) for i, h in enumerate(hidden))
    weights = sum(a * b for a, b in pairwise(hidden))
    if weights > MAX_HIDDEN_WEIGHTS:
        raise SpecError("policy.hidden_sizes", f"{weights:,} weights between the hidden layers, more than the "
                                               f"{MAX_HIDDEN_WEIGHTS:,} a node is asked to hold")
    activation = _str("policy.activation", pol["activation"])
    if activation not in ACTIVATIONS:
        raise SpecError("policy.activation", f"must be one of {', '.join(sorted(ACTIVATIONS))}, got {activation!r}")
    init_log_std = _float("policy.init_log_std", pol["init_log_std"])
    _check_network(space, PolicyConfig(hidden_sizes=hidden, activation=activation, kind=kind, obs_norm=obs_norm))

    roll = _object("rollout", d["rollout"], ("steps_per_shard",))
    steps = _int("rollout.steps_per_shard", roll["steps_per_shard"], 1, MAX_STEPS_PER_SHARD + 1)

    ppo = _ppo(d["ppo"])

    ev = _object("evaluation", d["evaluation"], ("episodes", "target_return"))
    episodes = _int("evaluation.episodes", ev["episodes"], 1, MAX_EVAL_EPISODES + 1)
    target = _float("evaluation.target_return", ev["target_return"])

    ver = _object("verification", d["verification"],
                  ("challenges_per_sampler", "challenges_per_trainer", "logp_tolerance", "steps_per_leaf",
                   "steps_per_snapshot"), optional=("steps_per_snapshot",))
    challenges = _int("verification.challenges_per_sampler", ver["challenges_per_sampler"], 1, MAX_CHALLENGES + 1)
    trainer_challenges = _int("verification.challenges_per_trainer", ver["challenges_per_trainer"], 1,
                              MAX_CHALLENGES + 1)
    steps_per_leaf = _int("verification.steps_per_leaf", ver["steps_per_leaf"], 1, MAX_STEPS_PER_LEAF + 1)
    steps_per_snapshot = _int("verification.steps_per_snapshot", ver.get("steps_per_snapshot", 0), 0, MAX_INT)
    if steps_per_snapshot and steps > MAX_SNAPSHOT_SHARD_STEPS:
        raise SpecError("verification.steps_per_snapshot", f"needs rollout.steps_per_shard at most "
                                                           f"{MAX_SNAPSHOT_SHARD_STEPS}, got {steps}")
    tol = _float("verification.logp_tolerance", ver["logp_tolerance"])
    if not 0 < tol <= MAX_LOGP_TOLERANCE:
        raise SpecError("verification.logp_tolerance", f"must be in (0, {MAX_LOGP_TOLERANCE}], got {tol!r}")
    inputs = None
    if "inputs" in d:
        try:
            inputs = encrypted.from_dict(d["inputs"])
        except encrypted.InputsFieldError as error:
            raise SpecError(f"inputs.{error.field}".rstrip("."), error.problem) from None
    return dict(version=version, env_id=env_id, seed=seed, hidden_sizes=hidden, activation=activation,
                env_kwargs=env.kwargs, wrappers=env.wrappers, policy_kind=kind, obs_norm=obs_norm,
                init_log_std=init_log_std, steps_per_shard=steps, ppo=ppo, eval_episodes=episodes,
                target_return=target, challenges_per_sampler=challenges, logp_tolerance=tol,
                challenges_per_trainer=trainer_challenges, steps_per_leaf=steps_per_leaf,
                steps_per_snapshot=steps_per_snapshot, encrypted_inputs=inputs)


def _env_config(env_id: str, kwargs, wrappers) -> tuple[EnvConfig, SpaceSpec]:
    """The EnvConfig of a spec's env_id, env_kwargs and wrappers, made once to check it builds, and
    its SpaceSpec."""
    if not isinstance(kwargs, dict):
        raise SpecError("env_kwargs", f"must be a JSON object of keyword arguments, got {type(kwargs).__name__}")
    if not isinstance(wrappers, (list, tuple)):
        raise SpecError("wrappers", f"must be a list of wrappers, got {type(wrappers).__name__}")
    steps = [("env_id", lambda: EnvConfig(env_id)), ("env_kwargs", lambda: EnvConfig(env_id, kwargs))]
    steps += [(f"wrappers[{i}]", lambda w=w: wrapper_config(w)) for i, w in enumerate(wrappers)]
    steps += [("wrappers", lambda: EnvConfig(env_id, kwargs, tuple(wrappers)))]
    for path, check in steps:  # in this order, so the error names the first field at fault
        try:
            config = check()
        except EnvError as error:
            raise SpecError(path, str(error)) from None
    try:
        space = env_space_spec(config)
    except EnvError as error:
        raise SpecError("wrappers" if wrappers else "env_kwargs" if kwargs else "env_id", str(error)) from None
    return config, space


def _check_network(space, config: PolicyConfig) -> None:
    """SpecError if the policy network cannot take the environment's observations (saying which
    kind to set), or if a CNN has more parameters than MAX_HIDDEN_WEIGHTS."""
    problem = architecture.misfit(space, config)
    if problem:
        raise SpecError("policy.kind", problem)
    if config.cnn:
        count = architecture.parameter_count(space, config)
        if count > MAX_HIDDEN_WEIGHTS:
            raise SpecError("policy.hidden_sizes", f"the {config.kind} network on {space.obs_shape} images has "
                                                   f"{count:,} parameters, more than the {MAX_HIDDEN_WEIGHTS:,} a "
                                                   f"node is asked to hold: use smaller hidden_sizes or images")


def from_dict(d: dict) -> TaskSpec:
    """A TaskSpec from the JSON object form; SpecError naming the first bad field."""
    return TaskSpec(**_validate(d))


def parse(data: bytes, *, digest: bytes | None = None) -> TaskSpec:
    """The TaskSpec in `data` (JSON bytes). With `digest` (the on-chain specDigest), first checks
    keccak256(data) == digest. Raises SpecError naming the field path and what to fix."""
    if digest is not None and keccak(bytes(data)) != bytes(digest):
        raise SpecError("(bytes)", f"keccak256 is {keccak(bytes(data)).hex()}, the task's specDigest is "
                                   f"{bytes(digest).hex()}: wrong or corrupted spec file")
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError("(bytes)", f"{len(data):,} bytes: a spec is at most {MAX_SPEC_BYTES:,}")
    if _nesting(bytes(data)) > MAX_NESTING:
        raise SpecError("(bytes)", f"not a task spec: its JSON nests deeper than {MAX_NESTING} levels")
    try:
        d = json.loads(bytes(data).decode("utf-8"),
                       parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"{c} is not allowed")))
    except (UnicodeDecodeError, ValueError) as error:
        raise SpecError("(bytes)", f"not valid UTF-8 JSON: {error}") from None
    return from_dict(d)


def _nesting(data: bytes) -> int:
    """How deep the JSON text's arrays and objects nest (brackets inside strings not counted),
    found before parsing it: a spec comes from the network, and json's C parser recurses once per
    level (on a thread's smaller stack, tens of thousands of levels crash the process)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


# -- presets ---------------------------------------------------------------------------------------

def preset_spec(preset: Preset | str, seed: int = 0) -> TaskSpec:
    """The TaskSpec of a preset (workers.rl.presets), or of the preset of an env id (KeyError
    naming the ids that have one), with the task seed `seed`."""
    preset = preset_for(preset) if isinstance(preset, str) else preset
    policy = preset.policy
    return TaskSpec(env_id=preset.env_id, seed=seed, hidden_sizes=policy.hidden_sizes, activation=policy.activation,
                    init_log_std=policy.init_log_std, policy_kind=policy.kind, obs_norm=policy.obs_norm,
                    steps_per_shard=preset.steps_per_shard, ppo=preset.ppo, target_return=preset.solved_return,
                    **dict(preset.spec_fields))


DEMO_CARTPOLE = preset_spec("CartPole-v1", seed=1)
"""The demo's CartPole-v1 task: presets.CARTPOLE_NETWORK (presets.CARTPOLE with 2048 steps per shard,
20 epochs per round and clip 0.3, so a PPO round may move the policy further) with task seed 1: 2
samplers solve it in 5 rounds (20,480 env steps). Measured through the roles
(tests/workers/roles/test_demo_spec.py), 1 thread: evaluation return 500.0 of 100 episodes after
round 5, 12-20 s of sampling and training. Other task seeds (same loop): 2, 3, 4 reach >= 499.9, but
5 and 6 only 450.4 and 474.4, so a spec with another seed may need a 6th round. With 10 epochs and
clip 0.2 it takes ~7 rounds.
A round is 320 gradient steps (2 x 2048 samples / 256 x 20 epochs): the trace has 80 state leaves
of 4 steps (~9 MB stored a round) and a validator re-executes 4 of them, 16 steps (5%)."""
