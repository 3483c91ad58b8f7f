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

**The forced-error plant** (workers.roles.plants): the one discrepancy that does not stop the
checks is the last observation's element 0 recorded as exactly the plant of the replayed value
(every other element equal). Everything else is still checked; an episode with nothing else wrong
gives `ok=False, planted=True` with that observation as its mismatch, one with anything else wrong
an ordinary rejection (`planted=False`). A plant anywhere else, or a planted value that is not
exactly the replayed one's plant, is an ordinary obs mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from workers.rl.envs import make_env
from workers.rl.plants import is_planted_obs
from workers.rl.policy import ActorCritic, digest
from workers.rl.rollout import Episode, derive_seeds

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
    terminated, truncated, length, end, sample, logp or value."""
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
    """The outcome of `replay_episode`."""

    ok: bool
    mismatch: Mismatch | None
    steps_checked: int
    """Steps re-simulated before the verdict (all of them when ok)."""
    max_logp_error: float
    """Largest |recorded - recomputed| log-prob (0.0 if the policy checks were not reached)."""
    max_value_error: float
    planted: bool = False
    """The only discrepancy is the forced-error plant of the last observation (module doc);
    `mismatch` is then that observation's."""

    def __bool__(self) -> bool:
        return self.ok


def _reject(mismatch: Mismatch, steps: int, logp_err: float = 0.0, value_err: float = 0.0) -> ReplayVerdict:
    return ReplayVerdict(False, mismatch, steps, logp_err, value_err)


def _obs_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def replay_episode(episode: Episode, policy: ActorCritic, *, env_id: str | None = None,
                   task_seed: int | None = None, round_: int | None = None,
                   shard: int | None = None, policy_digest: bytes | None = None) -> ReplayVerdict:
    """Re-execute `episode` under `policy` (the round's policy) and return the verdict.
    Pass env_id / task_seed / round_ / shard to also require those coordinates, and
    `policy_digest` (digest(policy)) when it is at hand: a validator replays several episodes
    under one policy, and serializing it to hash it costs more than a short episode's replay."""
    ep = episode
    # 1. coordinates
    for name, want, got in (("env_id", env_id, ep.env_id), ("task_seed", task_seed, ep.task_seed),
                            ("round", round_, ep.round), ("shard", shard, ep.shard)):
        if want is not None and want != got:
            return _reject(Mismatch("coordinates", None, {name: want}, {name: got}), 0)
    seeds = derive_seeds(ep.task_seed, ep.round, ep.shard, ep.index)
    if seeds != (ep.env_seed, ep.sample_seed):
        return _reject(Mismatch("seeds", None, seeds, (ep.env_seed, ep.sample_seed)), 0)
    policy_digest = digest(policy) if policy_digest is None else policy_digest
    if ep.policy != policy_digest:
        return _reject(Mismatch("policy", None, policy_digest.hex(), ep.policy.hex()), 0)
    if ep.action_kind != policy.spec.action_kind:
        return _reject(Mismatch("action_kind", None, policy.spec.action_kind, ep.action_kind), 0)
    if not policy.discrete and ep.actions.shape[1] != policy.spec.action_dim:
        return _reject(Mismatch("action_dim", None, policy.spec.action_dim, ep.actions.shape[1]), 0)

    # 2. simulation, exact (the last observation may carry the plant: module doc)
    steps = ep.steps
    planted: Mismatch | None = None
    env = make_env(ep.env_id)
    try:
        obs, _ = env.reset(seed=ep.env_seed)
        obs = np.asarray(obs, dtype=np.float32)
        if not _obs_equal(obs, ep.obs[0]):
            if steps or not is_planted_obs(obs, ep.obs[0]):
                return _reject(Mismatch("obs", 0, obs.tolist(), ep.obs[0].tolist()), 0)
            planted = Mismatch("obs", 0, obs.tolist(), ep.obs[0].tolist())
        n_actions = policy.spec.action_dim
        # the recorded arrays as Python values once: indexing numpy per step costs more than the env
        rewards, terminateds, truncateds = ep.rewards.tolist(), ep.terminated.tolist(), ep.truncated.tolist()
        actions = ep.actions.tolist() if policy.discrete else ep.actions
        for t in range(steps):
            a = actions[t]
            if policy.discrete and not 0 <= a < n_actions:
                return _reject(Mismatch("action", t, f"an integer in [0, {n_actions})", a), t)
            if not policy.discrete and not np.all(np.isfinite(a)):
                return _reject(Mismatch("action", t, "finite values", a.tolist()), t)
            obs, reward, terminated, truncated, _ = env.step(a if policy.discrete else
                                                             policy.env_action(torch.as_tensor(a)))
            obs = np.asarray(obs, dtype=np.float32)
            if not _obs_equal(obs, ep.obs[t + 1]):
                if t + 1 < steps or not is_planted_obs(obs, ep.obs[t + 1]):
                    return _reject(Mismatch("obs", t + 1, obs.tolist(), ep.obs[t + 1].tolist()), t)
                planted = Mismatch("obs", t + 1, obs.tolist(), ep.obs[t + 1].tolist())
            if float(reward) != float(rewards[t]):
                return _reject(Mismatch("reward", t, float(reward), float(rewards[t])), t)
            if bool(terminated) != bool(terminateds[t]):
                return _reject(Mismatch("terminated", t, bool(terminated), bool(terminateds[t])), t)
            if bool(truncated) != bool(truncateds[t]):
                return _reject(Mismatch("truncated", t, bool(truncated), bool(truncateds[t])), t)
            if (terminated or truncated) and t + 1 < steps:
                return _reject(Mismatch("length", t, t + 1, steps), t + 1)
        last_term = bool(ep.terminated[-1]) if steps else False
        last_trunc = bool(ep.truncated[-1]) if steps else False
        end = "terminated" if last_term else "truncated" if last_trunc else "cut"
        if end != ep.end:
            return _reject(Mismatch("end", steps - 1, end, ep.end), steps)
    finally:
        env.close()

    # 3. policy, within tolerance
    generator = torch.Generator().manual_seed(ep.sample_seed)
    obs_t = torch.from_numpy(ep.obs[:-1])
    act_t = torch.from_numpy(ep.actions)
    with torch.no_grad():
        out = policy.actor(obs_t)
        logp, _ = policy.log_prob_entropy(obs_t, act_t)
        values = policy.value(obs_t)
        if policy.discrete:
            cdf = torch.softmax(out, dim=-1).cumsum(-1)
    if policy.discrete:
        # the sampler drew torch.rand(1) a step from this generator: one draw of `steps` gives the
        # same numbers; and the CDF as Python floats, the same values float() of each entry gives
        uniforms, cdf_rows = torch.rand(steps, generator=generator).tolist(), cdf.tolist()
    for t in range(steps):
        if policy.discrete:
            row, a = cdf_rows[t], actions[t]
            u = uniforms[t] * row[-1]
            low = row[a - 1] if a > 0 else 0.0
            high = row[a] if a < n_actions - 1 else float("inf")
            if not low - SAMPLE_ATOL <= u <= high + SAMPLE_ATOL:
                drawn = int(torch.searchsorted(cdf[t], torch.tensor([u]), right=True).clamp(max=n_actions - 1))
                return _reject(Mismatch("sample", t, drawn, a), steps)
        else:
            eps = torch.randn(1, policy.spec.action_dim, generator=generator)[0]
            drawn = out[t] + policy.log_std.detach().exp() * eps
            got = torch.from_numpy(ep.actions[t])
            if not bool(((got - drawn).abs() <= SAMPLE_ATOL * (1 + drawn.abs())).all()):
                return _reject(Mismatch("sample", t, drawn.tolist(), got.tolist()), steps)
    logp_err = (torch.from_numpy(ep.logp) - logp).abs()
    value_err = (torch.from_numpy(ep.values) - values).abs()
    max_logp, max_value = (float(logp_err.max()), float(value_err.max())) if steps else (0.0, 0.0)
    bad_logp = (logp_err > LOGP_ATOL + RTOL * logp.abs()).nonzero()
    if len(bad_logp):
        t = int(bad_logp[0])
        return _reject(Mismatch("logp", t, float(logp[t]), float(ep.logp[t])), steps, max_logp, max_value)
    bad_value = (value_err > VALUE_ATOL + RTOL * values.abs()).nonzero()
    if len(bad_value):
        t = int(bad_value[0])
        return _reject(Mismatch("value", t, float(values[t]), float(ep.values[t])), steps, max_logp, max_value)
    if planted is not None:
        return ReplayVerdict(False, planted, steps, max_logp, max_value, planted=True)
    return ReplayVerdict(True, None, steps, max_logp, max_value)
