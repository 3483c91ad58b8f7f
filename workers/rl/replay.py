"""Validator side: re-execute a committed episode and say whether, and where, it is wrong.

`replay_episode` checks, in this order, and stops at the first mismatch:

1. Coordinates: the seeds are the ones `derive_seeds` gives for the episode's (task seed, round,
   shard, index), which also must equal the ones the validator expects, when it passes them; the
   env id and the acting policy's digest are the expected ones.
2. Simulation, exactly: the env reset with the episode's seed gives obs[0] bit for bit; stepping it
   with each committed action (clipped to the bounds for Box actions, as the sampler did) gives
   obs[t+1], reward[t], terminated[t] and truncated[t] bit for bit; the episode stops where the
   env stopped (or earlier, only if its end is "cut").
3. Policy, within tolerance (float32 results differ by a few ulps between the sampler's forward
   passes, batched over the episodes it rolled in lockstep, and the one here over this episode's
   steps, and between machines):
   * each committed action is the one the seeded generator draws: the uniform draw u falls in the
     action's cumulative-probability interval widened by `SAMPLE_ATOL` (categorical), or
     |action - (mean + std * eps)| <= `SAMPLE_ATOL` * (1 + |mean + std * eps|) (Gaussian);
   * recorded log-probs and values match the recomputed ones: |got - want| <= atol + rtol * |want|
     with `LOGP_ATOL` / `VALUE_ATOL` and `RTOL`.

The tolerances are far above float32 noise (~1e-6 here) and far below what any real change to a
policy, an action or a reward produces.

**Segments** (episodes with snapshots, workers.rl.episode): `replay_segment` checks one segment,
steps [a, b), the same way from its committed snapshot instead of from the reset: segment 0 resets
the env with the episode's seed and requires obs[0] and the env's snapshot (`workers.rl.snapshot
.capture`) to be the committed snapshot 0, bit for bit; a later segment restores its snapshot into
an env just reset with the episode's seed (bytes that are not a snapshot of this env: a "snapshot"
mismatch; the env may be one an earlier replay used, where a reset makes it a fresh one's equal:
workers.rl.env_pool). Then it
steps the segment's recorded actions with the exact checks of 2., and checks the **join**: the
env's snapshot after step b - 1 is the committed snapshot of the next segment, byte for byte (for
the last segment, the episode's recorded end, as 2.). The policy checks of 3. cover the segment's
steps only; the action generator is seeded as for the episode and the earlier steps' draws are
drawn and discarded (snapshots carry no generator state). `replay_episode` on an episode with
snapshots checks every join on its way through.

**The forced-error plant** (workers.rl.plants): the one discrepancy that does not stop the checks
is the plant where a forced sampler puts it: without snapshots the last observation's element 0,
with snapshots the reward of each segment's last step, recorded as exactly the plant of the
replayed value. Everything else is still checked; work with nothing else wrong gives `ok=False,
planted=True` with the planted value as its mismatch, work with anything else wrong an ordinary
rejection (`planted=False`). A plant anywhere else, or a planted value that is not exactly the
replayed one's plant, is an ordinary mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from workers.framing import Malformed
from workers.hashing import keccak256
from workers.rl.env_pool import lent
from workers.rl.envs import EnvConfig, as_config
from workers.rl.episode import segment_bounds
from workers.rl.plants import is_planted_obs, is_planted_reward
from workers.rl.policy import ActorCritic, digest
from workers.rl.rollout import Episode, derive_seeds
from workers.rl.snapshot import capture, restore

LOGP_ATOL = 1e-4
"""Absolute tolerance on recorded log-probabilities."""
VALUE_ATOL = 1e-4
"""Absolute tolerance on recorded values."""
RTOL = 1e-4
"""Relative tolerance on log-probabilities and values."""
SAMPLE_ATOL = 1e-5
"""Tolerance of the action-draw check (on cumulative probabilities, or relative for Gaussians)."""


@dataclass(frozen=True)
class Mismatch:
    """The first disagreement between an episode and its re-execution."""

    field: str
    """What disagreed: seeds, coordinates, env_id, policy, action_kind, action_dim, obs, action, reward,
    terminated, truncated, length, end, snapshot, join, sample, logp or value."""
    step: int | None
    """Step index (for obs: the index into the observations), or None for header fields."""
    expected: object
    """What re-execution produced."""
    got: object
    """What the episode records."""

    def __str__(self) -> str:
        at = "" if self.step is None else f" at step {self.step}"
        return f"{self.field}{at}: expected {self.expected!r}, got {self.got!r}"


@dataclass(frozen=True)
class ReplayVerdict:
    """The outcome of `replay_episode` or `replay_segment`."""

    ok: bool
    mismatch: Mismatch | None
    steps_checked: int
    """Steps re-simulated before the verdict (all of them when ok)."""
    max_logp_error: float
    """Largest |recorded - recomputed| log-prob (0.0 if the policy checks were not reached)."""
    max_value_error: float
    planted: bool = False
    """The only discrepancy is the forced-error plant (module doc); `mismatch` is then the planted
    value's."""

    def __bool__(self) -> bool:
        return self.ok


def _reject(mismatch: Mismatch, steps: int, logp_err: float = 0.0, value_err: float = 0.0) -> ReplayVerdict:
    return ReplayVerdict(False, mismatch, steps, logp_err, value_err)


def _obs_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _check_coordinates(ep: Episode, policy: ActorCritic, env_id, task_seed, round_, shard,
                       policy_digest) -> Mismatch | None:
    """1. of the module doc: the first header field that is not what the validator expects."""
    for name, want, got in (("env_id", env_id, ep.env_id), ("task_seed", task_seed, ep.task_seed),
                            ("round", round_, ep.round), ("shard", shard, ep.shard)):
        if want is not None and want != got:
            return Mismatch("coordinates", None, {name: want}, {name: got})
    seeds = derive_seeds(ep.task_seed, ep.round, ep.shard, ep.index)
    if seeds != (ep.env_seed, ep.sample_seed):
        return Mismatch("seeds", None, seeds, (ep.env_seed, ep.sample_seed))
    policy_digest = digest(policy) if policy_digest is None else policy_digest
    if ep.policy != policy_digest:
        return Mismatch("policy", None, policy_digest.hex(), ep.policy.hex())
    if ep.action_kind != policy.spec.action_kind:
        return Mismatch("action_kind", None, policy.spec.action_kind, ep.action_kind)
    if not policy.discrete and ep.actions.shape[1] != policy.spec.action_dim:
        return Mismatch("action_dim", None, policy.spec.action_dim, ep.actions.shape[1])
    return None


class _Simulation:
    """2. of the module doc over steps [start, stop) of `ep` in `env` (already at step `start`):
    `run` returns the first mismatch or None, and keeps the plant it let through in `planted`."""

    def __init__(self, env, ep: Episode, policy: ActorCritic):
        self.env, self.ep, self.policy = env, ep, policy
        self.planted: Mismatch | None = None
        # the recorded arrays as Python values once: indexing numpy per step costs more than the env
        self.rewards, self.terminated = ep.rewards.tolist(), ep.terminated.tolist()
        self.truncated = ep.truncated.tolist()
        self.actions = ep.actions.tolist() if policy.discrete else ep.actions

    def obs(self, t: int, obs) -> Mismatch | None:
        """obs[t] against the env's `obs` (the plant allowed where module doc says)."""
        ep = self.ep
        obs = np.asarray(obs, dtype=ep.obs.dtype)
        if _obs_equal(obs, ep.obs[t]):
            return None
        mismatch = Mismatch("obs", t, obs.tolist(), ep.obs[t].tolist())
        if t == ep.steps and not ep.steps_per_snapshot and is_planted_obs(obs, ep.obs[t]):
            self.planted = mismatch
            return None
        return mismatch

    def reward(self, t: int, reward: float) -> Mismatch | None:
        ep, recorded = self.ep, float(self.rewards[t])
        if float(reward) == recorded:
            return None
        mismatch = Mismatch("reward", t, float(reward), recorded)
        segment_end = t + 1 == ep.steps or (t + 1) % max(ep.steps_per_snapshot, 1) == 0
        if ep.steps_per_snapshot and segment_end and is_planted_reward(float(reward), recorded):
            self.planted = mismatch
            return None
        return mismatch

    def join(self, t: int) -> Mismatch | None:
        """The env's snapshot at step t against the committed snapshot t / steps_per_snapshot."""
        want = self.ep.snapshots[t // self.ep.steps_per_snapshot]
        got = capture(self.env)
        if got != want:
            return Mismatch("join" if t else "snapshot", t, f"{len(got)} bytes, keccak {_hex(got)}",
                            f"{len(want)} bytes, keccak {_hex(want)}")
        return None

    def run(self, start: int, stop: int, joins: bool) -> tuple[Mismatch | None, int]:
        """(first mismatch or None, steps simulated). `joins`: check each snapshot boundary passed."""
        ep, policy, env = self.ep, self.policy, self.env
        n_actions, steps, every = policy.spec.action_dim, ep.steps, ep.steps_per_snapshot
        for t in range(start, stop):
            a = self.actions[t]
            if policy.discrete and not 0 <= a < n_actions:
                return Mismatch("action", t, f"an integer in [0, {n_actions})", a), t - start
            if not policy.discrete and not np.all(np.isfinite(a)):
                return Mismatch("action", t, "finite values", a.tolist()), t - start
            obs, reward, terminated, truncated, _ = env.step(a if policy.discrete else
                                                             policy.env_action(torch.as_tensor(a)))
            mismatch = self.obs(t + 1, obs) or self.reward(t, reward)
            if mismatch is None and bool(terminated) != bool(self.terminated[t]):
                mismatch = Mismatch("terminated", t, bool(terminated), bool(self.terminated[t]))
            if mismatch is None and bool(truncated) != bool(self.truncated[t]):
                mismatch = Mismatch("truncated", t, bool(truncated), bool(self.truncated[t]))
            if mismatch is None and (terminated or truncated) and t + 1 < steps:
                return Mismatch("length", t, t + 1, steps), t + 1 - start
            if mismatch is None and joins and every and (t + 1) % every == 0 and t + 1 < steps:
                mismatch = self.join(t + 1)
            if mismatch is not None:
                return mismatch, t - start
        if stop == steps:
            last_term = bool(ep.terminated[-1]) if steps else False
            last_trunc = bool(ep.truncated[-1]) if steps else False
            end = "terminated" if last_term else "truncated" if last_trunc else "cut"
            if end != ep.end:
                return Mismatch("end", steps - 1, end, ep.end), stop - start
        return None, stop - start


def _hex(data: bytes) -> str:
    return keccak256(data).hex()[:16]


def _check_policy(ep: Episode, policy: ActorCritic, start: int, stop: int) -> tuple[Mismatch | None, float, float]:
    """3. of the module doc over steps [start, stop): (first mismatch or None, largest log-prob
    error, largest value error)."""
    n = stop - start
    generator = torch.Generator().manual_seed(ep.sample_seed)
    # the sampler drew policy.draw(1) a step from this generator; the earlier steps' draws are
    # drawn and discarded (one rand of `start` values gives the same stream as `start` of one)
    if policy.discrete and start:
        torch.rand(start, generator=generator)
    elif start:
        for _ in range(start):
            torch.randn(1, policy.spec.action_dim, generator=generator)
    obs_t = torch.from_numpy(np.ascontiguousarray(ep.obs[start:stop]))
    act_t = torch.from_numpy(np.ascontiguousarray(ep.actions[start:stop]))
    with torch.no_grad():
        out = policy.actor(obs_t)
        logp, _ = policy.log_prob_entropy(obs_t, act_t)
        values = policy.value(obs_t)
        if policy.discrete:
            cdf = torch.softmax(out, dim=-1).cumsum(-1)
    n_actions = policy.spec.action_dim
    if policy.discrete:
        # one draw of n gives the sampler's numbers; the CDF as Python floats, as float() of each entry
        uniforms, cdf_rows, actions = torch.rand(n, generator=generator).tolist(), cdf.tolist(), act_t.tolist()
    for i in range(n):
        t = start + i
        if policy.discrete:
            row, a = cdf_rows[i], actions[i]
            u = uniforms[i] * row[-1]
            low = row[a - 1] if a > 0 else 0.0
            high = row[a] if a < n_actions - 1 else float("inf")
            if not low - SAMPLE_ATOL <= u <= high + SAMPLE_ATOL:
                drawn = int(torch.searchsorted(cdf[i], torch.tensor([u]), right=True).clamp(max=n_actions - 1))
                return Mismatch("sample", t, drawn, a), 0.0, 0.0
        else:
            eps = torch.randn(1, n_actions, generator=generator)[0]
            drawn = out[i] + policy.log_std.detach().exp() * eps
            got = act_t[i]
            if not bool(((got - drawn).abs() <= SAMPLE_ATOL * (1 + drawn.abs())).all()):
                return Mismatch("sample", t, drawn.tolist(), got.tolist()), 0.0, 0.0
    logp_err = (torch.from_numpy(ep.logp[start:stop]) - logp).abs()
    value_err = (torch.from_numpy(ep.values[start:stop]) - values).abs()
    max_logp, max_value = (float(logp_err.max()), float(value_err.max())) if n else (0.0, 0.0)
    bad_logp = (logp_err > LOGP_ATOL + RTOL * logp.abs()).nonzero()
    if len(bad_logp):
        i = int(bad_logp[0])
        return Mismatch("logp", start + i, float(logp[i]), float(ep.logp[start + i])), max_logp, max_value
    bad_value = (value_err > VALUE_ATOL + RTOL * values.abs()).nonzero()
    if len(bad_value):
        i = int(bad_value[0])
        return Mismatch("value", start + i, float(values[i]), float(ep.values[start + i])), max_logp, max_value
    return None, max_logp, max_value


def _verdict(sim: _Simulation, ep: Episode, policy: ActorCritic, start: int, stop: int) -> ReplayVerdict:
    """The verdict after a simulation of [start, stop) that found nothing but perhaps the plant."""
    mismatch, max_logp, max_value = _check_policy(ep, policy, start, stop)
    if mismatch is not None:
        return _reject(mismatch, stop - start, max_logp, max_value)
    if sim.planted is not None:
        return ReplayVerdict(False, sim.planted, stop - start, max_logp, max_value, planted=True)
    return ReplayVerdict(True, None, stop - start, max_logp, max_value)


def replay_episode(episode: Episode, policy: ActorCritic, *, env: str | EnvConfig | None = None,
                   env_id: str | None = None, task_seed: int | None = None, round_: int | None = None,
                   shard: int | None = None, policy_digest: bytes | None = None) -> ReplayVerdict:
    """Re-execute `episode` under `policy` (the round's policy), all of it, and return the verdict.
    `env`: the environment to replay in (a gymnasium id or an EnvConfig; None: the episode's
    env_id); the episode must name its id. Pass env_id / task_seed / round_ / shard to also require
    those coordinates, and `policy_digest` (digest(policy)) when it is at hand: a validator replays
    several episodes under one policy, and serializing it to hash it costs more than a short
    episode's replay."""
    ep = episode
    config = as_config(ep.env_id if env is None else env)
    mismatch = _check_coordinates(ep, policy, env_id if env_id is not None else config.env_id, task_seed, round_,
                                  shard, policy_digest)
    if mismatch is not None:
        return _reject(mismatch, 0)
    with lent(config) as instance:
        sim = _Simulation(instance, ep, policy)
        obs, _ = instance.reset(seed=ep.env_seed)
        mismatch = sim.obs(0, obs) or (sim.join(0) if ep.steps_per_snapshot else None)
        if mismatch is None:
            mismatch, simulated = sim.run(0, ep.steps, joins=True)
        else:
            simulated = 0
    if mismatch is not None:
        return _reject(mismatch, simulated)
    return _verdict(sim, ep, policy, 0, ep.steps)


def replay_segment(episode: Episode, policy: ActorCritic, segment: int, *, env: str | EnvConfig | None = None,
                   env_id: str | None = None, task_seed: int | None = None, round_: int | None = None,
                   shard: int | None = None, policy_digest: bytes | None = None) -> ReplayVerdict:
    """Re-execute segment `segment` of `episode` (an episode with snapshots) from its committed
    snapshot and check its join (module doc, "Segments"); the arguments are replay_episode's.
    ValueError if the episode has no snapshots, IndexError if it has no such segment."""
    ep = episode
    if not ep.steps_per_snapshot:
        raise ValueError(f"episode {ep.index} has no snapshots: replay it whole (replay_episode)")
    start, stop = segment_bounds(ep, segment)
    config = as_config(ep.env_id if env is None else env)
    mismatch = _check_coordinates(ep, policy, env_id if env_id is not None else config.env_id, task_seed, round_,
                                  shard, policy_digest)
    if mismatch is not None:
        return _reject(mismatch, 0)
    with lent(config) as instance:
        sim = _Simulation(instance, ep, policy)
        obs, _ = instance.reset(seed=ep.env_seed)
        if segment == 0:
            mismatch = sim.obs(0, obs) or sim.join(0)
        else:
            mismatch = _restored(instance, ep.snapshots[segment], start)
        simulated = 0
        if mismatch is None:
            mismatch, simulated = sim.run(start, stop, joins=False)
        if mismatch is None and stop < ep.steps:
            mismatch = sim.join(stop)
    if mismatch is not None:
        return _reject(mismatch, simulated)
    return _verdict(sim, ep, policy, start, stop)


def _restored(env, snapshot: bytes, step: int) -> Mismatch | None:
    """Restores `snapshot` into `env`; a "snapshot" mismatch if it is not a snapshot of this env."""
    try:
        restore(env, snapshot)
    except Malformed as error:
        return Mismatch("snapshot", step, "a snapshot of this environment", str(error)[:200])
    return None
