"""Trainer: turn the round's revealed shards into the next checkpoint, and bundle it.

`train_round` checks every shard blob against the root its sampler revealed (a bad one raises
ShardError naming the slot, so the caller can leave that shard out and call again), then runs one
`workers.rl.ppo.train_round` on all episodes in a fixed order: by sampler slot, then episode
index. It starts from the previous checkpoint bundle's policy and TrainState (or, with None, the
spec's initial policy and a fresh TrainState). The device is the caller's choice: the CPU by
default, CUDA or "auto" (CUDA when available) where a trainer node is so configured (the same
code, in workers.rl.ppo); on the CPU it computes with one thread, so any CPU node with the same
torch build gets the same bits, and a validator re-executes a CPU trace bit for bit.

Checkpoint bundle (version 1, integers little-endian):

    magic    4 bytes  b"DRLC"
    version  uint8    1
    H        uint32   length of the metadata
    meta     H bytes  canonical JSON (sorted keys, "," and ":", ASCII): device ("cpu"/"cuda", where
                      it was trained), format "decentrl.checkpoint", inputs (list of {"root": hex,
                      "slot": int} by slot: the shards trained on), policy (hex keccak256 of the
                      policy bytes), policy_size, prev (hex root of the previous checkpoint, or
                      null), round, spec (hex specDigest), task_id, trace_cid (CID of the round's
                      trace blob), trace_root (hex root of the trace, workers.roles.trace),
                      train_state (hex keccak256), train_state_size
    policy       the policy's safetensors (`workers.rl.policy.to_bytes`)
    train_state  the TrainState's safetensors (`TrainState.to_bytes`)

**The root** the trainer commits is `workers.merkle.merkle_root([policy, train_state, meta])` over
those three byte strings: it binds the parameters, the optimizer state and the metadata (task,
round, spec, previous checkpoint, the exact inputs, and the trace root: every intermediate state
and the pre-update data are fixed when the trainer commits). The policy's leaf is keccak256 of its digest,
so the policy alone can be proven against the root with the other two leaves as the proof.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field

from workers.content_memo import ContentMemo, memoized
from workers.framing import Malformed, brief, canonical, frame, is_count, unframe
from workers.hashing import keccak256 as keccak
from workers.merkle import MerkleTree
from workers.rl.policy import ActorCritic, to_bytes
from workers.rl.ppo import TrainState, resolve_device, update_obs_stats_
from workers.rl.ppo import train_round as ppo_train_round
from workers.rl.rollout import misfit
from workers.roles.determinism import single_thread
from workers.roles.plants import plant_policy_
from workers.roles.sampler import ShardMismatch, round_policy, verify_shard
from workers.roles.trace import Trace, TraceRecorder
from workers.spec import TaskSpec
from workers.storage import cid as cids

MAGIC = b"DRLC"
VERSION = 1
FORMAT = "decentrl.checkpoint"
_META_KEYS = {"device", "format", "inputs", "policy", "policy_size", "prev", "round", "spec",
              "task_id", "trace_cid", "trace_root", "train_state", "train_state_size"}


class ShardError(ValueError):
    """A shard the trainer cannot use; `slot` says whose."""

    def __init__(self, slot: int, problem: str):
        super().__init__(f"shard of sampler slot {slot}: {problem}")
        self.slot = slot


class CheckpointMismatch(Malformed):
    """A checkpoint bundle that is malformed or does not match its root."""


@dataclass(frozen=True, eq=False)
class CheckpointResult:
    """A checkpoint bundle and its parts."""

    meta: dict
    """The metadata (module doc)."""
    policy_bytes: bytes = field(repr=False)
    train_state_bytes: bytes = field(repr=False)
    bundle: bytes = field(repr=False)
    """What the trainer stores."""
    root: bytes
    """merkle_root([policy_bytes, train_state_bytes, meta bytes]): what the trainer commits."""
    stats: dict | None = None
    """PPO statistics of the update (losses, mean return...); local only, not in the bundle."""
    trace: Trace | None = field(default=None, repr=False)
    """The round's trace (its root and CID are in the metadata); None for an unbundled checkpoint."""
    trace_states: tuple[bytes, ...] = field(default=(), repr=False)
    """The trace's state leaves' bytes, each stored under its own CID."""

    @property
    def stored(self) -> tuple[bytes, ...]:
        """What the trainer stores besides the bundle: the trace's states and its blob."""
        return self.trace_states + ((self.trace.blob,) if self.trace is not None else ())

    @property
    def trace_root(self) -> bytes:
        return bytes.fromhex(self.meta["trace_root"])

    @property
    def task_id(self) -> int:
        return self.meta["task_id"]

    @property
    def round(self) -> int:
        return self.meta["round"]

    @property
    def policy_digest(self) -> bytes:
        return bytes.fromhex(self.meta["policy"])

    @property
    def train_state_digest(self) -> bytes:
        return bytes.fromhex(self.meta["train_state"])

    @property
    def inputs(self) -> list[tuple[int, bytes]]:
        """(slot, root) of each shard trained on, by slot."""
        return [(i["slot"], bytes.fromhex(i["root"])) for i in self.meta["inputs"]]

    @property
    def cid(self) -> str:
        return cids.compute(self.bundle)

    def train_state(self) -> TrainState:
        return TrainState.from_bytes(self.train_state_bytes)


def make_checkpoint(*, task_id: int, round_: int, spec_digest: bytes, prev_root: bytes | None,
                    inputs: Iterable[tuple[int, bytes]], device: str, policy_bytes: bytes,
                    train_state_bytes: bytes, trace_root: bytes, trace_cid: str, stats: dict | None = None,
                    trace: Trace | None = None, trace_states: tuple[bytes, ...] = ()) -> CheckpointResult:
    """Bundle a checkpoint (layout and root in the module doc)."""
    meta = {"device": device, "format": FORMAT,
            "inputs": [{"root": bytes(r).hex(), "slot": s} for s, r in sorted(inputs)],
            "policy": keccak(policy_bytes).hex(), "policy_size": len(policy_bytes),
            "prev": None if prev_root is None else bytes(prev_root).hex(), "round": round_,
            "spec": bytes(spec_digest).hex(), "task_id": task_id,
            "trace_cid": trace_cid, "trace_root": bytes(trace_root).hex(),
            "train_state": keccak(train_state_bytes).hex(), "train_state_size": len(train_state_bytes)}
    raw = canonical(meta)
    bundle = frame(MAGIC, VERSION, raw, policy_bytes, train_state_bytes)
    # merkle_root([policy, train_state, raw]) from the digests just taken: each part hashed once
    root = MerkleTree([bytes.fromhex(meta["policy"]), bytes.fromhex(meta["train_state"]), keccak(raw)],
                      digests=True).root
    return CheckpointResult(meta, bytes(policy_bytes), bytes(train_state_bytes), bundle, root, stats, trace,
                            tuple(trace_states))


UNBUNDLED: ContentMemo[CheckpointResult] = ContentMemo(max_items=4, max_bytes=256 * 2**20)
"""The bundles this process unbundled, by their bytes (workers.content_memo): a node reads the
task's current checkpoint in several jobs of a round, and a validator checks in one round the
checkpoint the next one starts from. Four: a round's previous and new checkpoints, twice over."""


def unbundle_checkpoint(bundle: bytes) -> CheckpointResult:
    """The parts of a bundle; CheckpointMismatch if it is malformed or not canonical. Hashing
    megabytes, so kept for the exact bytes (UNBUNDLED)."""
    result = memoized(UNBUNDLED, bytes(bundle), _unbundle)
    return dataclasses.replace(result, meta=copy.deepcopy(result.meta))  # the caller's to change


def known_bundle(root: bytes) -> bytes | None:
    """A bundle this process unbundled that hashes to `root` (so it need not be fetched and checked
    again), or None."""
    return next((bundle for bundle, r in UNBUNDLED.items() if r.root == bytes(root)), None)


def _unbundle(bundle: bytes) -> CheckpointResult:
    meta, start = unframe(bundle, MAGIC, VERSION, "checkpoint bundle", CheckpointMismatch)
    if not isinstance(meta, dict) or set(meta) != _META_KEYS or meta["format"] != FORMAT:
        raise CheckpointMismatch(f"checkpoint metadata must have keys {sorted(_META_KEYS)} and format {FORMAT!r}")
    _check_meta(meta)
    policy_end = start + meta["policy_size"]
    if policy_end + meta["train_state_size"] != len(bundle):
        raise CheckpointMismatch(f"checkpoint bundle is {len(bundle)} bytes; its metadata says "
                                 f"{policy_end + meta['train_state_size']}")
    try:
        result = make_checkpoint(
            task_id=meta["task_id"], round_=meta["round"], spec_digest=bytes.fromhex(meta["spec"]),
            prev_root=None if meta["prev"] is None else bytes.fromhex(meta["prev"]),
            inputs=[(i["slot"], bytes.fromhex(i["root"])) for i in meta["inputs"]], device=meta["device"],
            policy_bytes=bundle[start:policy_end], train_state_bytes=bundle[policy_end:],
            trace_root=bytes.fromhex(meta["trace_root"]), trace_cid=meta["trace_cid"])
    except ValueError as error:  # a hex field that is not hex
        raise CheckpointMismatch(f"checkpoint metadata is malformed: {brief(str(error))}") from None
    if result.bundle != bundle:
        raise CheckpointMismatch("checkpoint bundle is not canonical: its metadata disagrees with its "
                                 "parts (digests, sizes or field order)")
    return result


def _check_meta(meta: dict) -> None:
    """CheckpointMismatch naming the metadata fields of the wrong type or range (before any is used)."""
    inputs = meta["inputs"]
    problems = [k for k in ("policy_size", "train_state_size", "task_id") if not is_count(meta[k])]
    problems += [] if is_count(meta["round"], -1) else ["round"]  # -1: an initial bundle (encrypted inputs)
    problems += [k for k in ("device", "policy", "spec", "trace_cid", "trace_root", "train_state")
                 if not isinstance(meta[k], str)]
    problems += [] if meta["prev"] is None or isinstance(meta["prev"], str) else ["prev"]
    if not isinstance(inputs, list) or not all(
            isinstance(i, dict) and set(i) == {"root", "slot"} and is_count(i["slot"]) and isinstance(i["root"], str)
            for i in inputs):
        problems.append("inputs")
    if problems:
        raise CheckpointMismatch(f"checkpoint metadata fields {problems} have the wrong type or range")


def verify_checkpoint(bundle: bytes, root: bytes) -> CheckpointResult:
    """The bundle's parts if they hash to `root`; CheckpointMismatch otherwise."""
    result = unbundle_checkpoint(bundle)
    if result.root != bytes(root):
        raise CheckpointMismatch(f"checkpoint hashes to root {result.root.hex()}, the revealed root is "
                                 f"{bytes(root).hex()}")
    return result


def round_start(spec: TaskSpec, prev_bundle: bytes | None) -> tuple[ActorCritic, TrainState, bytes | None]:
    """(policy, train state, previous root) a round starts from: the previous checkpoint bundle
    (the task's current one, already checked against the chain's checkpointRoot), or the initial
    policy and a fresh TrainState."""
    if prev_bundle is None:
        return round_policy(spec, None), TrainState(), None
    prev = unbundle_checkpoint(prev_bundle)
    return round_policy(spec, prev.policy_bytes), prev.train_state(), prev.root


def train_round(spec: TaskSpec, task_id: int, round_: int, prev_bundle: bytes | None,
                shards: Iterable[tuple[int, bytes, bytes]], *, device: str = "cpu",
                on_step=None, forced: bool = False) -> CheckpointResult:
    """Train one round on `shards` = (slot, revealed root, blob) and bundle the checkpoint.

    Raises ShardError (with `.slot`) for a blob that does not match its root or is not this task's,
    round's and slot's; ValueError for no shards or a slot given twice. `device`: "cpu" (the
    default), "cuda" or "auto" (`node start --trainer-device`). The round's trace
    (workers.roles.trace) is recorded alongside: its root and CID go into the metadata, its states
    and blob into `CheckpointResult.stored`. `on_step`
    (ppo.train_round's hook) runs before each step is recorded: tests use it to model a
    trainer that alters a step. `forced`: the round's draw forced this trainer, so it plants the
    forced error (workers.roles.plants.plant_policy_) after every leaf of gradient steps, before
    the leaf's state is recorded, and continues training from it: every stored state but the
    first, and the checkpoint, is planted."""
    shards = sorted(shards, key=lambda s: s[0])
    if not shards:
        raise ValueError("train_round needs at least one shard")
    slots = [s for s, _, _ in shards]
    if len(set(slots)) != len(slots):
        raise ValueError(f"each sampler slot may be given once, got slots {slots}")
    policy, state, prev_root = round_start(spec, prev_bundle)
    episodes = []
    for slot, root, blob in shards:
        try:
            shard = verify_shard(blob, root)
        except ShardMismatch as error:
            raise ShardError(slot, str(error)) from None
        if (shard.task_id, shard.round, shard.shard) != (task_id, round_, slot):
            raise ShardError(slot, f"blob is of task {shard.task_id} round {shard.round} shard "
                                   f"{shard.shard}, expected task {task_id} round {round_} shard {slot}")
        for ep in shard.episodes:
            problem = misfit(ep, policy.spec)
            if problem:
                raise ShardError(slot, f"episode {ep.index} does not fit the round policy's spaces: it has {problem}")
        episodes.extend(shard.episodes)
    return train_episodes(spec, task_id, round_, policy, state, prev_root, [(slot, root) for slot, root, _ in shards],
                          episodes, device=device, on_step=on_step, forced=forced)


def train_episodes(spec: TaskSpec, task_id: int, round_: int, policy: ActorCritic, state: TrainState,
                   prev_root: bytes | None, inputs: list[tuple[int, bytes]], episodes: list, *,
                   device: str = "cpu", on_step=None, forced: bool = False) -> CheckpointResult:
    """`train_round` once its shards are checked: train `policy` and `state` (the round's start,
    updated in place) on `episodes` (in training order), record the trace and bundle the
    checkpoint, whose metadata names `inputs` = (slot, root) of the shards."""
    config = dataclasses.replace(spec.ppo, device=device)
    resolved = resolve_device(device).type
    recorder = TraceRecorder(state, spec.steps_per_leaf)
    first_update = state.updates

    def hook(steps, policy_, optimizer, batch):
        if on_step is not None:
            on_step(steps, policy_, optimizer, batch)
        if forced and steps > 0 and steps % spec.steps_per_leaf == 0:
            plant_policy_(policy_)
        recorder.on_step(steps, policy_, optimizer, batch)

    with single_thread():
        policy, stats = ppo_train_round(policy, episodes, config, state, on_step=hook, update_obs_stats=False)
        if forced and (state.updates - first_update) % spec.steps_per_leaf:
            plant_policy_(policy)  # the last leaf is shorter: its state is recorded by close()
        trace = recorder.close(policy, state, [ep.steps for ep in episodes])
        update_obs_stats_(policy, episodes)  # the trace's states act with the round's statistics
    return make_checkpoint(task_id=task_id, round_=round_, spec_digest=spec.digest(), prev_root=prev_root,
                           inputs=inputs, device=resolved,
                           policy_bytes=to_bytes(policy), train_state_bytes=state.to_bytes(),
                           trace_root=trace.tree().root, trace_cid=cids.compute(trace.blob), stats=stats,
                           # s_0 is the previous checkpoint: validators hold it, and storing it again
                           # would publish a requester's encrypted initial policy (SPECIFICATION 5.7)
                           trace=trace, trace_states=tuple(b for _, b in recorder.states[1:]))
