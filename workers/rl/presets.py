"""Named training set-ups: one tuned preset per supported environment, and the design defaults.

A preset bundles what a task spec carries (the env, the policy architecture, the PPO
hyperparameters, the rollout budget per sampler) with what a requester books on chain (samplers,
rounds) and the evaluation target that counts as solved. `workers.spec.preset_spec` turns one into
a TaskSpec; `decentrl task spec --env ID` writes it and `decentrl task spec --list` lists them.

One round is one PPO update over `shards x steps_per_shard` env steps (every sampler's shard).
rl-baselines3-zoo's PPO hyperparameters (hyperparams/ppo.yml) are the reference; their
`n_envs x n_steps` per update maps to `shards x steps_per_shard` per round, rounded up to round
sizes the network's per-round overhead (a few seconds of commits, reveals and votes) makes worth
paying for. Where the zoo relies on what a spec cannot say (gSDE exploration) the preset says so.

Adding an environment is one entry in `ENV_PRESETS`; fields a TaskSpec has beyond the ones a
Preset names (policy kind, observation normalization, env kwargs, wrappers, verification) go in
`spec_fields`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from workers.rl.config import PolicyConfig, PPOConfig

CLASSIC = "classic-control"
MUJOCO = "mujoco"
MINATAR = "minatar"
ATARI = "atari"
FAMILIES = (CLASSIC, MUJOCO, MINATAR, ATARI)
"""Environment families, as `decentrl task spec --list` groups them."""


@dataclass(frozen=True)
class Preset:
    """One training set-up."""

    env_id: str
    """gymnasium id."""
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    """Actor-critic architecture and init seed."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """Trainer hyperparameters."""
    shards: int = 2
    """Samplers (shards) per round: `task submit --samplers`."""
    steps_per_shard: int = 1024
    """Env steps each sampler rolls per round (its last episode is cut at the budget)."""
    max_rounds: int = 100
    """Rounds after which a local training run (bench/) stops even if unsolved."""
    solved_return: float = 475.0
    """Mean evaluation return (100 episodes, deterministic actions) that counts as solved."""
    family: str = CLASSIC
    """Environment family (FAMILIES)."""
    rounds: int = 5
    """Rounds a requester books for this preset (`task submit --rounds`, `decentrl demo --env`)."""
    spec_fields: tuple[tuple[str, object], ...] = ()
    """Other TaskSpec fields by name (verification settings; policy kind, observation
    normalization, env kwargs and wrappers where the env needs them)."""

    def __post_init__(self):
        if self.shards < 1 or self.steps_per_shard < 1 or self.max_rounds < 1 or self.rounds < 1:
            raise ValueError("shards, steps_per_shard, max_rounds and rounds must be positive")
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {self.family!r}")

    @property
    def steps_per_round(self) -> int:
        """Env steps of one round: the work the samplers are paid for, and one PPO update's data."""
        return self.shards * self.steps_per_shard


DEFAULT_CARTPOLE = Preset(env_id="CartPole-v1")
"""The design values of a training node (PPOConfig defaults) on CartPole-v1."""

CARTPOLE = Preset(
    env_id="CartPole-v1",
    policy=PolicyConfig(hidden_sizes=(64, 64), activation="tanh", seed=1),
    ppo=PPOConfig(learning_rate=2.5e-3, final_learning_rate=2.5e-4, anneal_steps=60_000,
                  batch_size=256, update_epochs=4, gamma=0.99, gae_lambda=0.95,
                  ent_coef=0.0, max_grad_norm=0.5),
    shards=2,
    steps_per_shard=512,
    max_rounds=120,
)
"""Tuned for CartPole-v1: solves it in about ten rounds. steps_per_shard 512 (1024 env steps per
round) rather than 1024: more, smaller updates reach a mean return of 475 sooner (bench/ppo_vs_sb3.py's
protocol, held-out seeds 6..15: median 9216 env steps against 11264 with 1024 per shard; 256 per shard
was no better). update_epochs 4 rather than 10: on held-out seeds 46..165 (the same protocol,
2026-12-04) both solved in a median 10,240 env steps (mean 11,435 against 10,650), at 62 against
94 us of CPU per env step, so the median wall time to solve fell from 0.93 s to 0.61 s; 6 epochs
took 0.75 s there, and on seeds 6..45 2, 3, 6 and 8 epochs did no better (docs/benchmarks.md).
The demo's spec (workers.spec.DEMO_CARTPOLE) is CARTPOLE_NETWORK with seed 1: changing these PPO
hyperparameters changes the demo spec's digest."""

CARTPOLE_NETWORK = dataclasses.replace(
    CARTPOLE, steps_per_shard=2048, ppo=dataclasses.replace(CARTPOLE.ppo, update_epochs=20, clip_coef=0.3),
    rounds=5, spec_fields=(("challenges_per_trainer", 4), ("steps_per_leaf", 4)))
"""CartPole-v1 through the network (the demo's spec, workers.spec.DEMO_CARTPOLE): CARTPOLE with 2048
steps per shard, 20 epochs per round and clip 0.3 (a PPO round may move the policy further), so 2
samplers solve it in 5 rounds (20,480 env steps): fewer, larger rounds, as each round costs the
network its commits, reveals and votes. Measured through the roles (tests/workers/roles/
test_demo_spec.py), 1 thread: evaluation return 500.0 of 100 episodes after round 5. A round is 320
gradient steps; trace leaves of 4 steps, 4 of them re-executed by each validator (5%)."""

ENV_PRESETS: dict[str, Preset] = {
    "CartPole-v1": CARTPOLE_NETWORK,
}
"""The preset of each supported environment, by gymnasium id: what `decentrl task spec --env ID`
writes and `decentrl demo --env ID` runs."""

PRESETS = {"cartpole": CARTPOLE, "cartpole-default": DEFAULT_CARTPOLE}
"""Local training set-ups by name (bench/train_cartpole.py --preset)."""


def preset_for(env_id: str) -> Preset:
    """The preset of `env_id`; KeyError naming the ids that have one."""
    try:
        return ENV_PRESETS[env_id]
    except KeyError:
        raise KeyError(f"no preset for {env_id!r}; presets exist for {', '.join(ENV_PRESETS)}") from None
