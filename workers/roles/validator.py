"""Validator: re-execute a round's work and decide each submission, for the attest bitmap.

**Samplers.** For each revealed (slot, root, blob): the blob must be there (None = the fetch
failed: reject, missing data) and hash to the root; every episode's header must be this task's,
round's and slot's (env, task seed, round, shard = slot, index = position, seeds from
`derive_seeds`), rolled with the round's policy (its digest; a stale policy is rejected here), and
the episodes must add up to exactly `spec.steps_per_shard` steps with only the last one cut, and an
episode marked truncated must end at the env's time limit (an episode cut short is caught on
every episode, not by sampling). Then
the *challenged* episodes are re-executed in full (`workers.rl.replay.replay_episode`: exact
simulation, the committed actions are the seeded draws of the round's policy, recorded log-probs
and values within tolerance) and their largest log-prob error must be at most
`spec.logp_tolerance`.

**Challenges** (workers.roles.challenges): for a shard of n episodes, the k =
min(spec.challenges_per_sampler, n) episodes with the lowest keccak scores under this validator's
secret `challenge_seed` (e.g. os.urandom(32)) are challenged, so a sampler cannot know which
episodes will be checked; a fraud in episodes that no validator challenges goes unseen
(SPECIFICATION.md "Verification cost and detection" gives the odds). When the spec has
`steps_per_snapshot` s > 0, every episode must carry snapshots every s steps, and the items are
the shard's segments instead (`challenged_segments`): each challenged segment is replayed from
its committed snapshot and joined to the next (`workers.rl.replay.replay_segment`), so a
validator steps at most k * s env steps per sampler whatever the episodes' length. A segment's
rejection names it as `segment_item(episode, segment)`.

**Trainer.** The bundle must be there and hash to its revealed root; its metadata must name this
task, round and spec, and the previous checkpoint's root; each input (slot, root) it trained on
must be a sampler submission revealed this round whose blob this validator holds, and every
sampler this validator accepts must be among the inputs. Then its *trace* is checked by sampling
(workers.roles.trace_check): the trace root in the metadata (fixed at commitment) must cover a
trace whose first state is the previous checkpoint and whose last is this checkpoint; only
spec.challenges_per_trainer transitions (spec.steps_per_leaf gradient steps each) are
re-executed from their stored states, and as many pre-update data chunks recomputed. A CPU-trained
trace must re-execute bit for bit (both sides compute with one CPU thread and the same torch
build; a CPU with another instruction set may round differently, which then shows as a
rejection: a known limit); a CUDA-trained one within trace_check.GPU_ATOL + GPU_RTOL x the
transition's largest parameter change (provisional values: a tampered step moves parameters by
far more than 1% of a step's update). A rejection names the step or chunk that failed. The
validator never re-runs the whole update: its cost is about challenges_per_trainer x
steps_per_leaf of the round's gradient steps.

A trainer is not blamed for a sampler's bad episodes (it checks roots, not replays): it may train
on a shard this validator rejects, as long as that shard was revealed and matches its root.

**Early.** The samplers reveal before the trainer commits, so a validator can judge them while
the trainer trains (`verify_samplers`, on CPU the trainer's one thread leaves); `verify_round`
then takes each of those verdicts whose slot, root and round policy are the ones it is given,
and the Attest phase only waits for the trainer's check.

**Evidence.** A rejection says which item failed (`Judgement.evidence`: an episode, a transition,
a data chunk, or the submission as a whole), which the validator's node states when it disputes a
verdict it dissented from; a juror re-executes the item a dispute names (`Focus`) besides its own
challenges (SPECIFICATION.md 13).

**Forced errors** (SPECIFICATION.md 5.5.3, workers.roles.plants). A forced worker plants a known
one-ulp error in its work: a sampler in obs[-1][0] of every episode, a CPU trainer in element 0 of
its first parameter tensor after every leaf. A submission whose ONLY discrepancy is that plant,
found in EVERY challenged item (and the focus item), is judged `planted` (not accepted, and not a
rejection: the vote's plant bit, `RoundVerdict.bitmap`); a mix of planted and exact items, or a
plant beside any other fault, is an ordinary rejection whose evidence names an item of the fewer
kind. A shard or trace this validator judges planted counts as accepted for the trainer's inputs
(a plant is training-neutral). The validator votes before the draws are opened, so it does not
know which submissions were forced; a juror does (`Focus.forced`): a planted judgement of a
forced submission is good work. CUDA traces are compared within tolerance, which hides a one-ulp
plant: a forced CUDA trainer's trace is judged as if unplanted (a stated limit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from workers import deadline
from workers.protocol import Evidence, Role, encode_vote
from workers.rl.envs import time_limit
from workers.rl.episode import segment_bounds
from workers.rl.policy import digest
from workers.rl.replay import replay_episode, replay_segment
from workers.rl.rollout import derive_seeds, misfit
from workers.roles.challenges import challenged_indices, challenged_segments, segment_item
from workers.roles.determinism import single_thread
from workers.roles.plants import inconsistent_plant
from workers.roles.sampler import ShardMismatch, ShardResult, verify_shard
from workers.roles.trace_check import GPU_ATOL, GPU_RTOL, check_trace  # noqa: F401 (re-exported)
from workers.roles.trainer import CheckpointMismatch, round_start, verify_checkpoint
from workers.spec import TaskSpec

Fetch = Callable[[str], "bytes | None"]
"""A content fetch by CID: the bytes, or None when they cannot be had (missing data)."""


@dataclass(frozen=True)
class Judgement:
    """One submission's verdict."""

    accepted: bool
    reason: str
    """Why it was rejected, or what was checked when accepted."""
    tolerance_used: float | None = None
    """A CUDA-trained checkpoint's largest re-execution error as a fraction of the CUDA tolerance
    (SPECIFICATION 12); None for everything else (a CPU trace is re-executed bit for bit)."""
    evidence: tuple[Evidence, int] = (Evidence.WHOLE, 0)
    """For a rejection, the item that failed: (Evidence.EPISODE, i), (TRANSITION, j), (DATA_CHUNK,
    i), or (WHOLE, 0) for the submission as a whole."""
    planted: bool = False
    """The only discrepancy found is the forced-error plant, in every challenged item (module doc,
    "Forced errors"): the vote's plant bit, not a rejection to dispute. With `accepted` (a juror's
    judgement of a forced submission, `Focus.forced`): the plant counted as good work."""


@dataclass(frozen=True)
class Focus:
    """The item a dispute names (IDisputeManager's evidence): a juror re-executes it whatever its
    own challenge draw."""

    role: Role
    slot: int
    evidence: Evidence
    item: int
    forced: bool = False
    """The chain says the disputed submission was forced (its draw opened forced): a planted-only
    judgement of it counts as good work (`as_forced`)."""

    def items(self, role: Role, slot: int, evidence: Evidence) -> tuple[int, ...]:
        """The forced items of `evidence`'s kind in submission (`role`, `slot`)."""
        return (self.item,) if (self.role, self.slot, self.evidence) == (role, slot, evidence) else ()


@dataclass(frozen=True)
class RoundVerdict:
    """A validator's verdicts for one round."""

    samplers: dict[int, Judgement] = field(default_factory=dict)
    """By sampler slot (revealed submissions only)."""
    trainer: Judgement | None = None
    """None when no trainer revealed."""

    def bitmap(self, num_samplers: int) -> int:
        """The vote (workers.protocol.encode_vote): accept bit i for sampler slot i, bit
        `num_samplers` for the trainer; a planted judgement sets the same bit of the plant bits
        instead; neither bit rejects."""
        judged = list(self.samplers.items())
        for slot, _ in judged:
            if not 0 <= slot < num_samplers:
                raise ValueError(f"sampler slot {slot} is outside the task's {num_samplers} slots")
        if self.trainer is not None:
            judged.append((num_samplers, self.trainer))
        accept = plant = 0
        for bit, judgement in judged:
            if judgement.accepted:
                accept |= 1 << bit
            elif judgement.planted:
                plant |= 1 << bit
        return encode_vote(accept, plant)


def as_forced(judgement: Judgement) -> Judgement:
    """`judgement` of a submission the chain says was forced: a planted-only one is good work
    (accepted, still marked planted); any other judgement as it is."""
    if judgement.planted and not judgement.accepted:
        return Judgement(True, f"forced, and planted as its draw required: {judgement.reason}",
                         judgement.tolerance_used, judgement.evidence, planted=True)
    return judgement


def _reject(reason: str, episode: int | None = None) -> Judgement:
    return Judgement(False, reason, evidence=(Evidence.WHOLE, 0) if episode is None else (Evidence.EPISODE, episode))


# -- samplers --------------------------------------------------------------------------------------

def verify_sampler(spec: TaskSpec, task_id: int, round_: int, slot: int, root: bytes, blob: bytes | None,
                   policy, challenge_seed: bytes,
                   policy_digest: bytes | None = None,
                   also: tuple[int, ...] = ()) -> tuple[Judgement, ShardResult | None]:
    """One sampler's verdict (module doc) and, when its blob matches the root, its shard.
    `policy_digest`: digest(policy), when the caller has it (a round's samplers share it). `also`:
    episodes re-executed besides the challenged ones (a dispute's evidence)."""
    if blob is None:
        return _reject(f"missing data: the blob of sampler slot {slot} could not be fetched"), None
    try:
        shard = verify_shard(blob, root)
    except ShardMismatch as error:
        return _reject(f"blob does not match the revealed root: {error}"), None
    policy_digest = digest(policy) if policy_digest is None else policy_digest
    limit = time_limit(spec.env_config())
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
                           f"{coords}, expected {want}", i), shard
        if (ep.env_seed, ep.sample_seed) != derive_seeds(spec.seed, round_, slot, i):
            return _reject(f"episode {i} has seeds that derive_seeds does not give", i), shard
        if spec.steps_per_snapshot and ep.steps == 0:  # none is rolled; and items name < 2**16 episodes
            return _reject(f"episode {i} has no steps", i), shard
        if ep.end == "cut" and i != len(shard.episodes) - 1:
            return _reject(f"episode {i} is cut but is not the shard's last episode", i), shard
        # Deterministic, so every episode is checked: only the env's TimeLimit truncates, at its limit.
        if ep.end == "truncated" and ep.steps != limit:
            return _reject(f"episode {i} is marked truncated after {ep.steps} steps; {spec.env_id} truncates "
                           f"{'never' if limit is None else f'at step {limit}'}", i), shard
        if ep.steps_per_snapshot != spec.steps_per_snapshot:
            return _reject(f"episode {i} has a snapshot every {ep.steps_per_snapshot} steps, the spec asks for "
                           f"{spec.steps_per_snapshot} (0: none)", i), shard
        problem = misfit(ep, policy.spec)
        if problem:
            return _reject(f"episode {i} does not fit the round policy's spaces: it has {problem}", i), shard
    return _replay_challenged(spec, task_id, round_, slot, shard, policy, challenge_seed, policy_digest, also), shard


def _replay_challenged(spec: TaskSpec, task_id: int, round_: int, slot: int, shard: ShardResult, policy,
                       challenge_seed: bytes, policy_digest: bytes, also: tuple[int, ...]) -> Judgement:
    """The verdict of replaying the shard's challenged episodes, or segments where the task's
    episodes carry snapshots (module doc, "Challenges")."""
    episodes = shard.episodes
    if spec.steps_per_snapshot:
        picked = challenged_segments(challenge_seed, task_id, round_, slot, [ep.segments for ep in episodes],
                                     spec.challenges_per_sampler, also)
        what = "segments (episode, segment)"
    else:
        picked = [(i, None) for i in challenged_indices(challenge_seed, task_id, round_, slot, len(episodes),
                                                        spec.challenges_per_sampler, also=also)]
        what = "episodes"
    planted, exact = [], []
    kwargs = dict(env=spec.env_config(), task_seed=spec.seed, round_=round_, shard=slot, policy_digest=policy_digest)
    for i, j in picked:
        deadline.check()  # a vote past the Attest deadline is of no use (workers.deadline)
        if j is None:
            verdict, item, name = replay_episode(episodes[i], policy, **kwargs), i, f"episode {i}"
        else:
            start, stop = segment_bounds(episodes[i], j)
            verdict = replay_segment(episodes[i], policy, j, **kwargs)
            item, name = segment_item(i, j), f"episode {i} segment {j} (steps {start}..{stop - 1})"
        if not verdict.ok and not verdict.planted:
            return _reject(f"{name} does not replay: {verdict.mismatch}", item)
        if verdict.max_logp_error > spec.logp_tolerance:
            return _reject(f"{name}: log-prob error {verdict.max_logp_error:.3g} exceeds the spec's "
                           f"tolerance {spec.logp_tolerance:.3g}", item)
        (planted if verdict.planted else exact).append(item)
    shown = [i for i, _ in picked] if not spec.steps_per_snapshot else picked
    if planted and exact:
        reason, item = inconsistent_plant("episodes" if not spec.steps_per_snapshot else "segment items",
                                          planted, exact)
        return _reject(reason, item)
    if planted:
        where = "obs[-1][0] of each" if not spec.steps_per_snapshot else "the last reward of each"
        return Judgement(False, f"planted: the only discrepancy of the {len(picked)} replayed {what} {shown} is "
                                f"the forced-error plant ({where})",
                         evidence=(Evidence.EPISODE, planted[0]), planted=True)
    return Judgement(True, f"root, headers and {len(picked)} replayed {what} {shown} check")


# -- trainer ---------------------------------------------------------------------------------------

def verify_trainer(spec: TaskSpec, task_id: int, round_: int, prev_bundle: bytes | None,
                   prev_root: bytes | None, root: bytes, bundle: bytes | None,
                   revealed: dict[int, tuple[bytes, bytes | None]], accepted_slots: set[int],
                   fetch: Fetch, challenge_seed: bytes, parsed: dict[int, ShardResult] | None = None,
                   start: tuple | None = None, focus: Focus | None = None) -> Judgement:
    """The trainer's verdict (module doc). `revealed`: slot -> (root, blob or None);
    `accepted_slots`: the samplers this validator accepts or judges planted; `fetch`
    gets the trace and its challenged states by CID. `parsed`: shards already read from their
    blobs (verify_sampler's), by slot, so they are not parsed again; `start`: round_start's
    (policy, train state, previous root) for `prev_bundle`, when the caller has it; `focus`: a
    dispute's item, re-executed besides the challenged ones."""
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
            return _reject(f"missing data: cannot check the update without the blob of slot {slot}")
    left_out = sorted(accepted_slots - {slot for slot, _ in inputs})
    if left_out:
        return _reject(f"did not train on the accepted shards of slots {left_out}")
    if not inputs:
        return _reject("checkpoint declares no inputs")
    episodes = []
    parsed = parsed or {}
    for slot, input_root in inputs:
        shard = parsed.get(slot)
        if shard is None or shard.root != input_root:
            try:
                shard = verify_shard(revealed[slot][1], input_root)
            except ShardMismatch as error:
                return _reject(f"trained on the shard of slot {slot}, whose blob does not match its root: {error}")
        if (shard.task_id, shard.round, shard.shard) != (task_id, round_, slot):
            return _reject(f"trained on the shard of slot {slot}, which is of task {shard.task_id} round "
                           f"{shard.round} shard {shard.shard}")
        episodes.extend(shard.episodes)
    with single_thread():
        policy0, start, _ = round_start(spec, prev_bundle) if start is None else start
        for ep in episodes:
            problem = misfit(ep, policy0.spec)
            if problem:
                return _reject(f"trained on episode {ep.index} of the shard of slot {ep.shard}, which does not fit "
                               f"the round policy's spaces: it has {problem}")
        also = {kind: focus.items(Role.TRAINER, 0, kind) if focus else () for kind in Evidence}
        accepted, reason, used, evidence, planted = check_trace(
            spec, task_id, round_, claimed, policy0, start, episodes, fetch, challenge_seed,
            also[Evidence.DATA_CHUNK], also[Evidence.TRANSITION])
    return Judgement(accepted, reason, used, evidence, planted)


# -- the round -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SamplerChecks:
    """Sampler verdicts made before the round's Attest phase (`verify_samplers`)."""

    prev_root: bytes | None
    """The previous checkpoint's root (None: the spec's initial policy): the round policy judged under."""
    judged: dict[int, tuple[bytes, Judgement, ShardResult | None]] = field(default_factory=dict)
    """By sampler slot: (the revealed root judged, its verdict, the shard read from its blob)."""

    def blob(self, slot: int, root: bytes) -> bytes | None:
        """The blob judged for `slot` if it matched `root` (so it need not be fetched again), else None."""
        _, _, shard = self.judged.get(slot, (None, None, None))
        return shard.blob if shard is not None and shard.root == bytes(root) else None


def _judge_samplers(spec: TaskSpec, task_id: int, round_: int, policy,
                    samplers: list[tuple[int, bytes, bytes | None]], challenge_seed: bytes,
                    known: dict[int, tuple[bytes, Judgement, ShardResult | None]], focus: Focus | None = None):
    """({slot: verdict}, {slot: shard read from a blob matching its root}) of the samplers, taking
    a `known` verdict where its root is the one revealed (unless `focus`, a dispute's item, is in it)."""
    slots = [slot for slot, _, _ in samplers]
    if len(set(slots)) != len(slots):
        raise ValueError(f"each sampler slot may be given once, got slots {slots}")
    judgements, parsed, policy_digest = {}, {}, None
    for slot, root, blob in sorted(samplers, key=lambda s: s[0]):
        root = bytes(root)
        also = focus.items(Role.SAMPLER, slot, Evidence.EPISODE) if focus else ()
        if slot in known and known[slot][0] == root and not also:
            judgements[slot], shard = known[slot][1], known[slot][2]
        else:
            policy_digest = digest(policy) if policy_digest is None else policy_digest  # one per round
            judgements[slot], shard = verify_sampler(spec, task_id, round_, slot, root, blob, policy,
                                                     challenge_seed, policy_digest, also)
        if shard is not None:
            parsed[slot] = shard
    return judgements, parsed


def verify_samplers(spec: TaskSpec, task_id: int, round_: int, prev_bundle: bytes | None,
                    samplers: list[tuple[int, bytes, bytes | None]], challenge_seed: bytes) -> SamplerChecks:
    """The samplers' verdicts ahead of the round's Attest phase (module doc, "Early"); arguments as
    verify_round's. A shard without its blob (None) is left out: missing data is judged at Attest,
    after that phase's fetch. Pass the result to verify_round as `early`."""
    fetched = [(slot, bytes(root), blob) for slot, root, blob in samplers if blob is not None]
    with single_thread():
        policy, _, prev_root = round_start(spec, prev_bundle)
        judgements, parsed = _judge_samplers(spec, task_id, round_, policy, fetched, challenge_seed, {})
    return SamplerChecks(prev_root, {slot: (root, judgements[slot], parsed.get(slot)) for slot, root, _ in fetched})


def verify_round(spec: TaskSpec, task_id: int, round_: int, prev_bundle: bytes | None,
                 samplers: list[tuple[int, bytes, bytes | None]],
                 trainer: tuple[bytes, bytes | None] | None, challenge_seed: bytes,
                 fetch: Fetch, early: SamplerChecks | None = None, focus: Focus | None = None) -> RoundVerdict:
    """Verdicts for the round's revealed submissions.

    `prev_bundle`: the task's current checkpoint bundle (checked by the caller against the chain's
    checkpointRoot), None before any was accepted. `samplers`: (slot, revealed root, blob or None
    when the fetch failed). `trainer`: (revealed root, bundle or None), or None if no trainer
    revealed. `challenge_seed`: this validator's secret randomness for the challenges. `fetch`:
    content by CID (None when missing) for the trainer's trace and its challenged states.
    `early`: verify_samplers' verdicts for this round, by this validator (same seed); one is
    taken for a slot whose revealed root it judged, under the same previous checkpoint. `focus`:
    the item a dispute names, re-executed besides this validator's own challenges (a juror's);
    with `focus.forced`, the focused submission's judgement is `as_forced`'s."""
    with single_thread():
        start = round_start(spec, prev_bundle)
        policy, _, prev_root = start
        known = early.judged if early is not None and early.prev_root == prev_root else {}
        judgements, parsed = _judge_samplers(spec, task_id, round_, policy, samplers, challenge_seed, known, focus)
    trainer_judgement = None
    if trainer is not None:
        revealed = {slot: (bytes(root), blob) for slot, root, blob in samplers}
        accepted = {slot for slot, j in judgements.items() if j.accepted or j.planted}
        trainer_judgement = verify_trainer(spec, task_id, round_, prev_bundle, prev_root, bytes(trainer[0]),
                                           trainer[1], revealed, accepted, fetch, challenge_seed, parsed, start,
                                           focus)
    if focus is not None and focus.forced:
        if focus.role == Role.TRAINER and trainer_judgement is not None:
            trainer_judgement = as_forced(trainer_judgement)
        elif focus.role == Role.SAMPLER and focus.slot in judgements:
            judgements[focus.slot] = as_forced(judgements[focus.slot])
    return RoundVerdict(judgements, trainer_judgement)
