"""Validator: re-execute a round's work and decide each submission, for the attest bitmap.

**Samplers.** For each revealed (slot, root, blob): the blob must be there (None = the fetch
failed: reject, missing data) and hash to the root; every episode's header must be this task's,
round's and slot's (env, task seed, round, shard = slot, index = position, seeds from
`derive_seeds`), rolled with the round's policy (its digest; a stale policy is rejected here), and
the episodes must add up to exactly `spec.steps_per_shard` steps with only the last one cut. Then
the *challenged* episodes are re-executed in full (`workers.rl.replay.replay_episode`: exact
simulation, the committed actions are the seeded draws of the round's policy, recorded log-probs
and values within tolerance) and their largest log-prob error must be at most
`spec.logp_tolerance`.

**Challenges.** For a shard of n episodes, episode i scores
keccak256("decentrl.challenge.v1" ++ challenge_seed ++ uint256(task_id) ++ uint256(round) ++
uint256(slot) ++ uint256(i)); the k = min(spec.challenges_per_sampler, n) lowest scores (as
big-endian integers) are challenged. A validator draws its own secret `challenge_seed` (e.g.
os.urandom(32)), so a sampler cannot know which episodes will be checked; a fraud in episodes that
no validator challenges goes unseen (it costs a fraudster about k/n of detection per validator
and round, and its slash).

**Trainer.** The bundle must be there and hash to its revealed root; its metadata must name this
task, round and spec, and the previous checkpoint's root; each input (slot, root) it trained on
must be a sampler submission revealed this round whose blob this validator holds, and every
sampler this validator accepts must be among the inputs. Then the validator re-runs
`trainer.train_round` on the CPU from the previous bundle and those inputs and compares:

* bundle trained on "cpu": the policy and the train state must be **bit-identical** (both sides
  compute with one CPU thread and the same torch build; a CPU with another instruction set may
  round differently, which then shows as a rejection: a known limit);
* bundle trained on "cuda": GPU kernels do not give the CPU's bits, so the comparison is a
  tolerance: every parameter within GPU_ATOL + GPU_RTOL * (largest parameter change of the
  round, re-run minus previous), every Adam moment within GPU_ATOL + GPU_RTOL * (largest
  magnitude of that moment), counters exact. These values are provisional (not yet measured on a
  GPU); a tampered update moves parameters by far more than 1% of the round's update.

A trainer is not blamed for a sampler's bad episodes (it checks roots, not replays): it may train
on a shard this validator rejects, as long as that shard was revealed and matches its root.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from eth_utils import keccak
from safetensors.torch import load as st_load

from workers.rl.policy import digest, to_bytes
from workers.rl.replay import replay_episode
from workers.rl.rollout import derive_seeds
from workers.roles.determinism import single_thread
from workers.roles.sampler import ShardMismatch, ShardResult, round_policy, verify_shard
from workers.roles.trainer import CheckpointMismatch, CheckpointResult, ShardError, round_start, \
    train_round, unbundle_checkpoint, verify_checkpoint
from workers.spec import TaskSpec

CHALLENGE_DOMAIN = b"decentrl.challenge.v1"
GPU_RTOL = 1e-2
"""Tolerance for CUDA-trained checkpoints, relative to the round's largest parameter change."""
GPU_ATOL = 1e-6
"""Absolute slack of the CUDA comparison."""


@dataclass(frozen=True)
class Judgement:
    """One submission's verdict."""

    accepted: bool
    reason: str
    """Why it was rejected, or what was checked when accepted."""


@dataclass(frozen=True)
class RoundVerdict:
    """A validator's verdicts for one round."""

    samplers: dict[int, Judgement] = field(default_factory=dict)
    """By sampler slot (revealed submissions only)."""
    trainer: Judgement | None = None
    """None when no trainer revealed."""

    def bitmap(self, num_samplers: int) -> int:
        """The attest bitmap: bit i accepts sampler slot i, bit `num_samplers` the trainer."""
        bits = 0
        for slot, judgement in self.samplers.items():
            if not 0 <= slot < num_samplers:
                raise ValueError(f"sampler slot {slot} is outside the task's {num_samplers} slots")
            if judgement.accepted:
                bits |= 1 << slot
        if self.trainer is not None and self.trainer.accepted:
            bits |= 1 << num_samplers
        return bits


def _word(x: int) -> bytes:
    return int(x).to_bytes(32, "big")


def challenged_indices(challenge_seed: bytes, task_id: int, round_: int, slot: int, num_episodes: int,
                       k: int) -> list[int]:
    """The episodes of a shard a validator replays (module doc), ascending."""
    scores = sorted((keccak(CHALLENGE_DOMAIN + bytes(challenge_seed) + _word(task_id) + _word(round_)
                            + _word(slot) + _word(i)), i) for i in range(num_episodes))
    return sorted(i for _, i in scores[:min(k, num_episodes)])


def _reject(reason: str) -> Judgement:
    return Judgement(False, reason)


# -- samplers --------------------------------------------------------------------------------------

def verify_sampler(spec: TaskSpec, task_id: int, round_: int, slot: int, root: bytes, blob: bytes | None,
                   policy, challenge_seed: bytes) -> tuple[Judgement, ShardResult | None]:
    """One sampler's verdict (module doc) and, when its blob matches the root, its shard."""
    if blob is None:
        return _reject(f"missing data: the blob of sampler slot {slot} could not be fetched"), None
    try:
        shard = verify_shard(blob, root)
    except ShardMismatch as error:
        return _reject(f"blob does not match the revealed root: {error}"), None
    policy_digest = digest(policy)
    if (shard.task_id, shard.round, shard.shard) != (task_id, round_, slot):
        return _reject(f"blob is of task {shard.task_id} round {shard.round} shard {shard.shard}, "
                       f"expected task {task_id} round {round_} shard {slot}"), shard
    if shard.policy != policy_digest:
        return _reject(f"rolled out with policy {shard.policy.hex()}, the round's policy is "
                       f"{policy_digest.hex()}"), shard
    if shard.steps != spec.steps_per_shard:
        return _reject(f"shard has {shard.steps} steps, the spec asks for {spec.steps_per_shard}"), shard
    for i, ep in enumerate(shard.episodes):
        coords = (ep.env_id, ep.task_seed, ep.round, ep.shard, ep.index)
        want = (spec.env_id, spec.seed, round_, slot, i)
        if coords != want:
            return _reject(f"episode {i} has coordinates (env, task seed, round, shard, index) "
                           f"{coords}, expected {want}"), shard
        if (ep.env_seed, ep.sample_seed) != derive_seeds(spec.seed, round_, slot, i):
            return _reject(f"episode {i} has seeds that derive_seeds does not give"), shard
        if ep.end == "cut" and i != len(shard.episodes) - 1:
            return _reject(f"episode {i} is cut but is not the shard's last episode"), shard
    picked = challenged_indices(challenge_seed, task_id, round_, slot, len(shard.episodes),
                                spec.challenges_per_sampler)
    for i in picked:
        verdict = replay_episode(shard.episodes[i], policy, env_id=spec.env_id, task_seed=spec.seed,
                                 round_=round_, shard=slot)
        if not verdict.ok:
            return _reject(f"episode {i} does not replay: {verdict.mismatch}"), shard
        if verdict.max_logp_error > spec.logp_tolerance:
            return _reject(f"episode {i}: log-prob error {verdict.max_logp_error:.3g} exceeds the spec's "
                           f"tolerance {spec.logp_tolerance:.3g}"), shard
    return Judgement(True, f"root, headers and {len(picked)} replayed episodes {picked} check"), shard


# -- trainer ---------------------------------------------------------------------------------------

def _max_abs_diff(a: dict, b: dict) -> float:
    return max((float((a[k].double() - b[k].double()).abs().max()) for k in a if a[k].numel()), default=0.0)


def _compare_gpu(claimed: CheckpointResult, rerun: CheckpointResult, prev_policy_bytes: bytes) -> str | None:
    """None if a CUDA-trained checkpoint is within the tolerance of the CPU re-run, else why not."""
    c_pol, r_pol, p_pol = (st_load(b) for b in (claimed.policy_bytes, rerun.policy_bytes, prev_policy_bytes))
    if set(c_pol) != set(r_pol) or any(c_pol[k].shape != r_pol[k].shape for k in r_pol):
        return "policy tensors differ in names or shapes from the re-run"
    update = _max_abs_diff(r_pol, p_pol)
    err = _max_abs_diff(c_pol, r_pol)
    if not err <= GPU_ATOL + GPU_RTOL * update:
        return (f"policy parameters differ from the re-run by up to {err:.3g}, more than the CUDA "
                f"tolerance {GPU_ATOL:g} + {GPU_RTOL:g} x the round's update {update:.3g}")
    c_st, r_st = claimed.train_state(), rerun.train_state()
    counters = lambda s: (s.env_steps, s.rounds, s.updates, s.last_checkpoint,  # noqa: E731
                          {i: float(m["step"]) for i, m in s.adam.items()})
    if counters(c_st) != counters(r_st):
        return f"train state counters {counters(c_st)} differ from the re-run's {counters(r_st)}"
    for i, moments in r_st.adam.items():
        for name in ("exp_avg", "exp_avg_sq"):
            want, got = moments[name].double(), c_st.adam[i][name].double()
            if got.shape != want.shape:
                return f"Adam {name} of parameter {i} has shape {tuple(got.shape)}, expected {tuple(want.shape)}"
            scale = float(want.abs().max()) if want.numel() else 0.0
            err = float((got - want).abs().max()) if want.numel() else 0.0
            if not err <= GPU_ATOL + GPU_RTOL * scale:
                return f"Adam {name} of parameter {i} differs from the re-run by {err:.3g}"
    return None


def _same_run(precomputed: CheckpointResult | None, claimed: CheckpointResult) -> bool:
    """Whether a precomputed CPU run had the claimed checkpoint's inputs (task, round, spec,
    previous checkpoint and shards), so that it is the re-run."""
    if precomputed is None or precomputed.meta.get("device") != "cpu":
        return False
    keys = ("task_id", "round", "spec", "prev")
    return (all(precomputed.meta.get(k) == claimed.meta.get(k) for k in keys)
            and list(precomputed.inputs) == list(claimed.inputs))


def verify_trainer(spec: TaskSpec, task_id: int, round_: int, prev_bundle: bytes | None,
                   prev_root: bytes | None, root: bytes, bundle: bytes | None,
                   revealed: dict[int, tuple[bytes, bytes | None]], accepted_slots: set[int],
                   precomputed: CheckpointResult | None = None) -> Judgement:
    """The trainer's verdict (module doc). `revealed`: slot -> (root, blob or None).
    `precomputed`: this validator's own CPU run of the round's update (train_round with
    device="cpu"), made earlier from the revealed shards; used as the re-run when it was made
    from exactly the checkpoint's inputs and previous checkpoint, else the update is re-run."""
    if bundle is None:
        return _reject("missing data: the trainer's checkpoint bundle could not be fetched")
    try:
        claimed = verify_checkpoint(bundle, root)
    except CheckpointMismatch as error:
        return _reject(f"checkpoint does not match its revealed root: {error}")
    meta = claimed.meta
    want = {"task_id": task_id, "round": round_, "spec": spec.digest().hex(),
            "prev": None if prev_root is None else prev_root.hex()}
    got = {k: meta[k] for k in want}
    if got != want:
        return _reject(f"checkpoint metadata {got} does not name this round: expected {want}")
    if meta["device"] not in ("cpu", "cuda"):
        return _reject(f"checkpoint device {meta['device']!r} is neither 'cpu' nor 'cuda'")
    inputs = claimed.inputs
    for slot, input_root in inputs:
        if slot not in revealed or revealed[slot][0] != input_root:
            return _reject(f"trained on shard (slot {slot}, root {input_root.hex()}), which was not "
                           f"revealed this round")
        if revealed[slot][1] is None:
            return _reject(f"missing data: cannot re-run the update without the blob of slot {slot}")
    left_out = sorted(accepted_slots - {slot for slot, _ in inputs})
    if left_out:
        return _reject(f"did not train on the accepted shards of slots {left_out}")
    if not inputs:
        return _reject("checkpoint declares no inputs")
    if _same_run(precomputed, claimed):
        rerun = precomputed
    else:
        try:
            rerun = train_round(spec, task_id, round_, prev_bundle,
                                [(slot, r, revealed[slot][1]) for slot, r in inputs], device="cpu")
        except ShardError as error:
            return _reject(f"cannot re-run the update: {error}")
    if meta["device"] == "cpu":
        if claimed.policy_digest != rerun.policy_digest:
            return _reject(f"re-running the update gives policy {rerun.policy_digest.hex()}, the "
                           f"checkpoint has {claimed.policy_digest.hex()}")
        if claimed.train_state_digest != rerun.train_state_digest:
            return _reject(f"re-running the update gives train state {rerun.train_state_digest.hex()}, "
                           f"the checkpoint has {claimed.train_state_digest.hex()}")
        return Judgement(True, "re-run is bit-identical")
    prev_policy = round_policy(spec, None if prev_bundle is None else unbundle_checkpoint(prev_bundle).policy_bytes)
    problem = _compare_gpu(claimed, rerun, to_bytes(prev_policy))
    return _reject(problem) if problem else Judgement(True, "CUDA checkpoint within tolerance of the CPU re-run")


# -- the round -------------------------------------------------------------------------------------

def verify_round(spec: TaskSpec, task_id: int, round_: int, prev_bundle: bytes | None,
                 samplers: list[tuple[int, bytes, bytes | None]],
                 trainer: tuple[bytes, bytes | None] | None, challenge_seed: bytes,
                 precomputed: CheckpointResult | None = None) -> RoundVerdict:
    """Verdicts for the round's revealed submissions.

    `prev_bundle`: the task's current checkpoint bundle (checked by the caller against the chain's
    checkpointRoot), None before any was accepted. `samplers`: (slot, revealed root, blob or None
    when the fetch failed). `trainer`: (revealed root, bundle or None), or None if no trainer
    revealed. `challenge_seed`: this validator's secret randomness for the challenges.
    `precomputed`: see verify_trainer."""
    slots = [slot for slot, _, _ in samplers]
    if len(set(slots)) != len(slots):
        raise ValueError(f"each sampler slot may be given once, got slots {slots}")
    with single_thread():
        policy, _, prev_root = round_start(spec, prev_bundle)
        judgements = {}
        for slot, root, blob in sorted(samplers, key=lambda s: s[0]):
            judgements[slot], _ = verify_sampler(spec, task_id, round_, slot, bytes(root), blob, policy,
                                                 challenge_seed)
    trainer_judgement = None
    if trainer is not None:
        revealed = {slot: (bytes(root), blob) for slot, root, blob in samplers}
        accepted = {slot for slot, j in judgements.items() if j.accepted}
        trainer_judgement = verify_trainer(spec, task_id, round_, prev_bundle, prev_root, bytes(trainer[0]),
                                           trainer[1], revealed, accepted, precomputed)
    return RoundVerdict(judgements, trainer_judgement)
