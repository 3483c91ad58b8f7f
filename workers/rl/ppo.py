"""PPO (clipped surrogate, GAE, value loss, entropy bonus), one round at a time.

A trainer node calls `train_round(policy, episodes, config, state)` once per round with the
episodes the samplers revealed. It follows cleanrl's ppo.py: advantages by GAE over each episode
(bootstrapping from the final observation unless the env terminated), then `update_epochs` passes
over shuffled minibatches of `batch_size` samples with the clipped objective, a (clipped) value
loss, an entropy bonus and global gradient-norm clipping; Adam's moments carry over between rounds
in `TrainState`.

Old log-probs and values are recomputed here from the episodes' observations and actions under
the incoming policy (samplers' recorded numbers are checked by validators, not trusted).
The round's pieces (pre_update, make_batch, MinibatchSchedule, gradient_step, finish_round)
are separate so that a validator can re-execute single steps of a round from a
stored intermediate state (workers.roles.trace_check) with the very same code.
Determinism: the minibatch order comes from a generator seeded by (config.seed, state.updates),
nothing touches the global RNG, so on CPU the same policy, episodes, config and state give
bit-identical parameters. The device is cuda when available, else cpu (`config.device="auto"`),
through the same code; the returned policy is on the cpu.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from workers import deadline
from workers.framing import Malformed, brief, is_count
from workers.rl.config import PPOConfig
from workers.rl.normalization import RunningStats, obs_stats_after, return_stats_after, scaled_rewards
from workers.rl.policy import ActorCritic, safetensors_bytes, safetensors_header, safetensors_tensors
from workers.rl.rollout import Episode, misfit

TRAIN_STATE_FORMAT = "decentrl.train_state"
TRAIN_STATE_VERSION = 1


@dataclass
class TrainState:
    """What a trainer carries between rounds (and a validator needs to re-run an update)."""

    env_steps: int = 0
    """Env steps trained on so far (drives the learning-rate schedule and checkpoints)."""
    rounds: int = 0
    updates: int = 0
    """Gradient steps taken so far."""
    last_checkpoint: int = 0
    """`env_steps` at the last due checkpoint."""
    adam: dict = field(default_factory=dict)
    """Adam state per parameter index: {"step", "exp_avg", "exp_avg_sq"} (cpu tensors)."""
    ret_rms: RunningStats | None = None
    """With `norm_reward`: the running statistics of discounted returns after the rounds so far
    (workers.rl.normalization); None before the first such round, and always without it."""

    def to_bytes(self) -> bytes:
        """safetensors bytes: Adam moments as tensors, counters as JSON metadata."""
        tensors, steps = {}, {}
        for i, s in sorted(self.adam.items()):
            tensors[f"adam.{i}.exp_avg"] = s["exp_avg"]
            tensors[f"adam.{i}.exp_avg_sq"] = s["exp_avg_sq"]
            steps[str(i)] = float(s["step"])
        meta = {"format": TRAIN_STATE_FORMAT, "version": TRAIN_STATE_VERSION, "env_steps": self.env_steps,
                "rounds": self.rounds, "updates": self.updates,
                "last_checkpoint": self.last_checkpoint, "adam_steps": steps}
        if self.ret_rms is not None:  # written only when set: every state before it keeps its bytes
            meta["ret_rms"] = {"count": self.ret_rms.count, "mean": float(self.ret_rms.mean),
                               "var": float(self.ret_rms.var)}
        return safetensors_bytes(tensors, meta)

    @classmethod
    def from_bytes(cls, data: bytes) -> TrainState:
        """The train state in `to_bytes` output; Malformed saying why for anything else (every
        count and name checked before use: a validator reads other nodes' states)."""
        shapes, meta = safetensors_header(data, TRAIN_STATE_FORMAT, TRAIN_STATE_VERSION)
        counters = [meta.get(k) for k in ("env_steps", "rounds", "updates", "last_checkpoint")]
        steps = meta.get("adam_steps")
        if not all(is_count(c) for c in counters) or not isinstance(steps, dict):
            raise Malformed(f"train state metadata needs counters and adam_steps: {brief(meta)}")
        adam_steps = {}
        for i, step in steps.items():
            if not (i.isascii() and i.isdigit() and len(i) <= 9 and str(int(i)) == i) or isinstance(step, bool) \
                    or not isinstance(step, (int, float)) or not 0 <= step < 2**53:
                raise Malformed(f"train state adam_steps entry {brief(i)}: {brief(step)} is not a parameter "
                                f"index and a step count")
            adam_steps[int(i)] = float(step)
        names = {f"adam.{i}.{k}" for i in adam_steps for k in ("exp_avg", "exp_avg_sq")}
        if set(shapes) != names:
            raise Malformed(f"train state tensors {brief(sorted(shapes))} are not the Adam moments of parameters "
                            f"{brief(sorted(adam_steps))}")
        if any(shapes[f"adam.{i}.exp_avg"] != shapes[f"adam.{i}.exp_avg_sq"] for i in adam_steps):
            raise Malformed("train state: an exp_avg and its exp_avg_sq differ in shape")
        tensors = safetensors_tensors(data)
        adam = {i: {"step": torch.tensor(step), "exp_avg": tensors[f"adam.{i}.exp_avg"],
                    "exp_avg_sq": tensors[f"adam.{i}.exp_avg_sq"]}
                for i, step in adam_steps.items()}
        return cls(*counters, adam, _ret_rms(meta))


def _ret_rms(meta: dict) -> RunningStats | None:
    """The return statistics of train state metadata (None when absent); Malformed if they are not."""
    if "ret_rms" not in meta:
        return None
    raw = meta["ret_rms"]
    if not isinstance(raw, dict) or set(raw) != {"count", "mean", "var"} or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw.values()):
        raise Malformed(f"train state ret_rms must be {{count, mean, var}} numbers, got {brief(raw)}")
    stats = RunningStats(np.float64(raw["mean"]), np.float64(raw["var"]), float(raw["count"]))
    problem = stats.problem()
    if problem:
        raise Malformed(f"train state ret_rms: {problem}")
    return stats


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError('device "cuda" requested but torch sees no CUDA device; use "auto" or "cpu"')
    return torch.device(name)


def learning_rate(config: PPOConfig, env_steps: int) -> float:
    """The linear schedule: learning_rate at 0 env steps, final_learning_rate from anneal_steps on."""
    frac = min(env_steps / config.anneal_steps, 1.0)
    return config.learning_rate + frac * (config.final_learning_rate - config.learning_rate)


def gae(rewards: np.ndarray, values: np.ndarray, last_value: float, gamma: float, lam: float):
    """(advantages, returns) of one episode, float64; `last_value` bootstraps past its end."""
    adv = np.zeros(len(rewards), dtype=np.float64)
    next_value, running = float(last_value), 0.0
    for t in range(len(rewards) - 1, -1, -1):
        delta = rewards[t] + gamma * next_value - values[t]
        running = delta + gamma * lam * running
        adv[t] = running
        next_value = values[t]
    return adv, adv + values


@dataclass
class Batch:
    """What a round's gradient steps consume: the samples (in episode order) and what the
    pre-update pass computed from them under the incoming policy."""

    obs: torch.Tensor
    actions: torch.Tensor
    old_logp: torch.Tensor
    old_values: torch.Tensor
    final_values: np.ndarray
    """Value of each episode's final observation (float64 of the float32 forward pass)."""
    advantages: torch.Tensor
    returns: torch.Tensor

    def __len__(self) -> int:
        return self.obs.shape[0]


def samples(episodes: list[Episode], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """(observations, actions) of the episodes' steps, concatenated in order."""
    obs = torch.from_numpy(np.concatenate([ep.obs[:-1] for ep in episodes])).to(device)
    return obs, torch.from_numpy(np.concatenate([ep.actions for ep in episodes])).to(device)


def pre_update(policy: ActorCritic, episodes: list[Episode], device: torch.device):
    """The pre-update forward pass: (obs, actions, old log-probs, old values, final values)."""
    obs, actions = samples(episodes, device)
    with torch.no_grad():
        old_logp, _, old_values = policy.evaluate(obs, actions)
        final_obs = torch.from_numpy(np.stack([ep.obs[-1] for ep in episodes])).to(device)
        final_values = policy.value(final_obs).cpu().numpy().astype(np.float64)
    return obs, actions, old_logp, old_values, final_values


def round_return_stats(state: TrainState, episodes: list[Episode], config: PPOConfig) -> RunningStats | None:
    """With `norm_reward`, the return statistics this round scales its rewards by: the state's
    updated by the round's returns (workers.rl.normalization); None without it."""
    return return_stats_after(state.ret_rms, episodes, config.gamma) if config.norm_reward else None


def make_batch(episodes: list[Episode], obs, actions, old_logp, old_values, final_values: np.ndarray,
               config: PPOConfig, ret_rms: RunningStats | None = None) -> Batch:
    """The Batch with GAE advantages and returns computed (float64, then float32) from the values,
    on rewards scaled by `ret_rms` when given (`round_return_stats`)."""
    device = obs.device
    values_np = old_values.cpu().numpy().astype(np.float64)
    advantages, returns, start = [], [], 0
    for i, ep in enumerate(episodes):
        v = values_np[start:start + ep.steps]
        last = 0.0 if ep.end == "terminated" else final_values[i]
        rewards = ep.rewards if ret_rms is None else scaled_rewards(ep.rewards, ret_rms)
        a, r = gae(rewards, v, last, config.gamma, config.gae_lambda)
        advantages.append(a)
        returns.append(r)
        start += ep.steps
    adv_t = torch.from_numpy(np.concatenate(advantages).astype(np.float32)).to(device)
    ret_t = torch.from_numpy(np.concatenate(returns).astype(np.float32)).to(device)
    return Batch(obs, actions, old_logp, old_values, final_values, adv_t, ret_t)


def make_optimizer(policy: ActorCritic, state: TrainState, config: PPOConfig) -> torch.optim.Adam:
    """Adam over the policy's parameters with `state`'s moments and the schedule's learning rate;
    Malformed if the moments are not those of the policy's parameters (a state read from another
    node may hold any)."""
    params = list(policy.parameters())
    if state.adam and (set(state.adam) != set(range(len(params))) or any(
            state.adam[i][k].shape != p.shape for i, p in enumerate(params) for k in ("exp_avg", "exp_avg_sq"))):
        moments = {i: tuple(s["exp_avg"].shape) for i, s in state.adam.items()}
        raise Malformed(f"train state's Adam moments {brief(moments)} do not fit the policy's {len(params)} "
                        f"parameters {[tuple(p.shape) for p in params]}")
    # fused: one kernel for all parameters instead of ~10 ops each (the per-op cost dominates here)
    optimizer = torch.optim.Adam(params, lr=learning_rate(config, state.env_steps), eps=1e-5, fused=True)
    if state.adam:
        sd = optimizer.state_dict()
        sd["state"] = {i: {k: v.clone() for k, v in s.items()} for i, s in state.adam.items()}
        optimizer.load_state_dict(sd)
    return optimizer


def adam_state(optimizer: torch.optim.Optimizer) -> dict:
    """The optimizer's Adam state as TrainState.adam holds it (cpu copies)."""
    return {i: {k: v.detach().to("cpu").clone() for k, v in s.items()}
            for i, s in optimizer.state_dict()["state"].items()}


class MinibatchSchedule:
    """Which samples each gradient step of a round on n samples trains on, in order: the trainer
    runs the schedule and a validator re-executes steps of it, so both take it from here.

    Epoch e shuffles the samples by the e-th permutation of a generator seeded by (config.seed,
    updates at the round's start); its minibatches are consecutive runs of batch_size samples of
    that order (a last one of fewer than 2 samples is skipped). With target_kl the round stops after
    an epoch whose last step's approximate KL exceeds it (`stops_after`)."""

    def __init__(self, n: int, config: PPOConfig, updates: int):
        self.n, self.config = n, config
        batch = config.batch_size
        rows = [slice(lo, lo + batch) for lo in range(0, n, batch) if min(batch, n - lo) >= 2]
        self.steps: list[tuple[int, slice]] = [(epoch, r) for epoch in range(config.update_epochs) for r in rows]
        """(epoch, rows of the epoch's permutation) of each gradient step of a full round."""
        self._seed = (config.seed * 1_000_003 + updates) % 2**63
        self._generator = torch.Generator().manual_seed(self._seed)
        self._epoch, self._permutation = -1, None

    def __len__(self) -> int:
        return len(self.steps)

    def permutation(self, epoch: int) -> torch.Tensor:
        """Epoch `epoch`'s order of the samples (one held at a time: asked in order, each is drawn once)."""
        if epoch < self._epoch:
            self._generator.manual_seed(self._seed)
            self._epoch = -1
        while self._epoch < epoch:
            self._permutation = torch.randperm(self.n, generator=self._generator)
            self._epoch += 1
        return self._permutation

    def indices(self, step: int) -> torch.Tensor:
        """The samples gradient step `step` trains on."""
        epoch, rows = self.steps[step]
        return self.permutation(epoch)[rows]

    def ends_epoch(self, step: int) -> bool:
        return step + 1 == len(self.steps) or self.steps[step + 1][0] != self.steps[step][0]

    def stops_after(self, step: int, approx_kl) -> bool:
        """Whether the round ends after `step`, whose approximate KL is `approx_kl` (read only at an
        epoch's end with target_kl set: on CUDA, reading it waits for the device)."""
        target = self.config.target_kl
        return target is not None and self.ends_epoch(step) and float(approx_kl) > target


def gradient_step(policy: ActorCritic, optimizer: torch.optim.Optimizer, mb: tuple, config: PPOConfig) -> dict:
    """One clipped-PPO gradient step on the minibatch `mb` = (obs, actions, old log-probs, old
    values, advantages, returns); returns the step's statistics as 0-d tensors."""
    m_obs, m_actions, m_logp, m_values, m_adv, m_ret = mb
    new_logp, entropy, new_values = policy.evaluate(m_obs, m_actions)
    log_ratio = new_logp - m_logp
    ratio = log_ratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipfrac = ((ratio - 1.0).abs() > config.clip_coef).float().mean()
    if config.norm_adv:
        m_adv = (m_adv - m_adv.mean()) / (m_adv.std() + 1e-8)
    pg_loss = torch.max(-m_adv * ratio, -m_adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)).mean()
    if config.clip_vloss:
        v_clipped = m_values + (new_values - m_values).clamp(-config.clip_coef, config.clip_coef)
        v_loss = 0.5 * torch.max((new_values - m_ret) ** 2, (v_clipped - m_ret) ** 2).mean()
    else:
        v_loss = 0.5 * ((new_values - m_ret) ** 2).mean()
    entropy_mean = entropy.mean()
    loss = pg_loss - config.ent_coef * entropy_mean + config.vf_coef * v_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(list(policy.parameters()), config.max_grad_norm, foreach=True)
    optimizer.step()
    return {"policy_loss": pg_loss, "value_loss": v_loss, "entropy": entropy_mean, "approx_kl": approx_kl,
            "clipfrac": clipfrac}


def finish_round(state: TrainState, samples: int, config: PPOConfig, ret_rms: RunningStats | None = None) -> bool:
    """Count a finished round of `samples` env steps into `state` (and its return statistics,
    `round_return_stats`, with norm_reward); whether a checkpoint is due."""
    if config.norm_reward:
        state.ret_rms = ret_rms
    state.rounds += 1
    state.env_steps += samples
    checkpoint_due = state.env_steps - state.last_checkpoint >= config.checkpoint_every
    if checkpoint_due:
        state.last_checkpoint = state.env_steps - state.env_steps % config.checkpoint_every
    return checkpoint_due


def update_obs_stats_(policy: ActorCritic, episodes: list[Episode]) -> None:
    """With obs_norm, the policy's observation statistics updated by the round's observations
    (workers.rl.normalization.obs_stats_after): what the next round's policy acts with."""
    stats = policy.obs_stats()
    if stats is not None:
        policy.set_obs_stats_(obs_stats_after(stats, episodes))


def train_round(policy: ActorCritic, episodes: list[Episode], config: PPOConfig,
                state: TrainState, on_step=None, update_obs_stats: bool = True) -> tuple[ActorCritic, dict]:
    """One round of PPO on `episodes`. Updates `policy` and `state` in place and returns
    (policy, stats); stats are plain floats/ints (losses, KL, clip fraction, learning rate,
    samples, mean return of finished episodes, env_steps, checkpoint_due).

    The gradient steps normalise observations by the statistics the round's policy acted with;
    then (with obs_norm, unless `update_obs_stats` is False: a trainer node does it after
    recording its trace, whose states hold the round's statistics) `update_obs_stats_`.
    With norm_reward, rewards are scaled by `round_return_stats`, which the state then keeps.

    `on_step(steps, policy, optimizer, batch)`, if given, is called once before the first
    gradient step (steps = 0) and after each one (steps = gradient steps taken so far): the
    trainer records its trace there (workers.roles.trace)."""
    if not episodes:
        raise ValueError("train_round needs at least one episode")
    for ep in episodes:
        problem = misfit(ep, policy.spec)
        if problem:
            raise ValueError(f"episode {ep.shard}/{ep.index} does not fit the policy's spaces {policy.spec}: {problem}")
    device = resolve_device(config.device)
    policy.to(device).train()

    # ALGO LOGIC: old log-probs, values and GAE under the incoming policy
    ret_rms = round_return_stats(state, episodes, config)
    batch = make_batch(episodes, *pre_update(policy, episodes, device), config, ret_rms)

    # ALGO LOGIC: optimizer with the carried-over Adam moments, lr from the schedule
    lr = learning_rate(config, state.env_steps)
    optimizer = make_optimizer(policy, state, config)
    if on_step is not None:
        on_step(0, policy, optimizer, batch)

    # ALGO LOGIC: minibatch epochs with the clipped objective
    n = len(batch)
    schedule = MinibatchSchedule(n, config, state.updates)
    tensors = (batch.obs, batch.actions, batch.old_logp, batch.old_values, batch.advantages, batch.returns)
    totals = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
    steps_taken, gathered = 0, None
    for step, (epoch, rows) in enumerate(schedule.steps):
        deadline.check()  # a job past its phase's deadline stops here (workers.deadline)
        if epoch != gathered:
            # one gather per epoch, then each minibatch is a slice (a view)
            perm = schedule.permutation(epoch).to(device)
            epoch_tensors, gathered = tuple(t[perm] for t in tensors), epoch
        step_stats = gradient_step(policy, optimizer, tuple(t[rows] for t in epoch_tensors), config)
        steps_taken += 1
        if on_step is not None:
            on_step(steps_taken, policy, optimizer, batch)
        for k, v in step_stats.items():
            totals[k] += float(v.detach())
        if schedule.stops_after(step, step_stats["approx_kl"]):
            break

    # ALGO LOGIC: carry state, report
    state.adam = adam_state(optimizer)
    state.updates += steps_taken
    checkpoint_due = finish_round(state, n, config, ret_rms)
    policy.to("cpu").eval()
    if update_obs_stats:
        update_obs_stats_(policy, episodes)
    with torch.no_grad():
        y = batch.returns.cpu()
        var_y = float(y.var())
        explained = float("nan") if var_y == 0 else 1 - float((y - batch.old_values.cpu()).var()) / var_y
    finished = [ep.total_reward for ep in episodes if ep.end != "cut"]
    stats = {k: v / max(steps_taken, 1) for k, v in totals.items()}
    stats.update(learning_rate=lr, samples=n, episodes=len(episodes), gradient_steps=steps_taken,
                 mean_return=float(np.mean(finished)) if finished else math.nan,
                 explained_variance=explained, env_steps=state.env_steps, round=state.rounds,
                 checkpoint_due=checkpoint_due, device=device.type)
    return policy, stats
