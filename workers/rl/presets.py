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

CLASSIC = "classic_control"
MUJOCO = "mujoco"
MINATAR = "minatar"
ATARI = "atari"
FAMILIES = (CLASSIC, MUJOCO, MINATAR, ATARI)
"""Environment families, as `decentrl task spec --list` shows them (workers.rl.envs.families' names)."""


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

ACROBOT = Preset(
    env_id="Acrobot-v1",
    policy=PolicyConfig(hidden_sizes=(64, 64), activation="tanh"),
    ppo=PPOConfig(learning_rate=5e-4, final_learning_rate=5e-5, anneal_steps=100_000, batch_size=128,
                  update_epochs=4, gamma=0.99, gae_lambda=0.94, ent_coef=0.01, clip_vloss=False),
    shards=2,
    steps_per_shard=2048,
    max_rounds=50,
    solved_return=-100.0,
    rounds=8,
    spec_fields=(("challenges_per_trainer", 4), ("steps_per_leaf", 4)),
)
"""Acrobot-v1 (gymnasium's reward threshold -100 is the target). rl-zoo's 16 envs x 256 steps become
2 samplers x 2048 (4,096 env steps a round), with its gamma 0.99, GAE lambda 0.94 and 4 epochs; a
learning rate of 5e-4 (decaying), an entropy bonus of 0.01 and no value clipping replace the zoo's
observation normalization: clipping the value update to 0.2 around returns of -100 kept the critic
from learning, and without the entropy bonus task seed 1 stayed at -500 for 10 rounds. Measured
through the roles in one process (10 evaluation episodes, seed 10000), from round 0 (the initial
policy) to round 8: seed 0: -500, -500, -500, -170, -92, -81, -84, -89, -85; seed 1: -500, -500,
-500, -422, -77, -76, -86, -87, -108; seed 2 learned sooner and then fell back: -500, -500, -225,
-97, -182, -416, -419 (round 6). Acrobot's deterministic policy is touchy; by 8 rounds (32,768 env
steps) seeds 0 and 1 held about -85. Tuned before policy.obs_norm existed. 128 gradient steps a
round (trace leaves of 4 steps)."""

PENDULUM = Preset(
    env_id="Pendulum-v1",
    policy=PolicyConfig(hidden_sizes=(64, 64), activation="tanh"),
    ppo=PPOConfig(learning_rate=1e-3, final_learning_rate=1e-4, anneal_steps=100_000, batch_size=64,
                  update_epochs=10, gamma=0.9, gae_lambda=0.95, clip_vloss=False, max_grad_norm=10.0),
    shards=2,
    steps_per_shard=2048,
    max_rounds=50,
    solved_return=-200.0,
    rounds=12,
    spec_fields=(("challenges_per_trainer", 4), ("steps_per_leaf", 8)),
)
"""Pendulum-v1 (gymnasium names no threshold; -200 is where rl-zoo's agents end, the pendulum swung
up and held). rl-zoo's 4 envs x 1024 steps become 2 samplers x 2048, with its gamma 0.9, GAE lambda
0.95, learning rate 1e-3, 10 epochs and minibatches of 64. The zoo explores with gSDE, which a spec
cannot ask for; what made the plain Gaussian policy learn instead was no value clipping (returns
of -100 to -1,000 against a clip of 0.2: with it, 10 rounds went from -1,082 to -1,227) and a
gradient-norm clip of 10 rather than 0.5 (the critic's large gradients otherwise shrink the
actor's step). Measured through the roles in one process (10 evaluation episodes, seed 10000),
rounds 0 to 15, seed 0: -1082, -1247, -1158, -1125, -1032, -991, -882, -653, -513, -311, -195, -156, -157,
-144, -144, -144; seed 1 to round 10: -1067, -1069, -1061, -1008, -994, -821, -842, -702, -458,
-296, -247. So it learns after about 5 rounds and reaches -200 in 10-12 rounds (41k-49k env steps).
640 gradient steps a round: trace leaves of 8 steps."""

MOUNTAIN_CAR = Preset(
    env_id="MountainCar-v0",
    policy=PolicyConfig(hidden_sizes=(64, 64), activation="tanh", obs_norm=True),
    ppo=PPOConfig(learning_rate=1e-3, final_learning_rate=1e-4, anneal_steps=100_000, batch_size=128,
                  update_epochs=4, gamma=0.99, gae_lambda=0.98, ent_coef=0.01, clip_vloss=False),
    shards=2,
    steps_per_shard=1024,
    max_rounds=100,
    solved_return=-110.0,
    rounds=5,
    spec_fields=(("challenges_per_trainer", 4), ("steps_per_leaf", 4),
                 ("wrappers", ({"name": "action_repeat", "times": 4},
                               {"name": "time_limit", "max_episode_steps": 250}))),
)
"""MountainCar-v0 (gymnasium's threshold -110). The reward is -1 every step until the car reaches the
flag, which independent random actions practically never do in gymnasium's 200 steps (0 of 100
random episodes; PPO then has no gradient to follow and stays at -200: rl-zoo gives it 1,000,000
steps). Three changes make it learn on a small budget, none of which changes what a return means
(minus the steps taken to the flag): the policy decides every 4 steps (`action_repeat`: held
actions build momentum; 19% of random episodes of 1,000 steps then reach the flag), episodes last
up to 1,000 env steps (`time_limit` 250 decisions), and observations are normalised (rl-zoo's
`normalize`; the velocity, within +-0.07, is otherwise invisible to the network: without it the
curve stayed flat). rl-zoo's gamma 0.99, GAE lambda 0.98, 4 epochs; 2 samplers x 1,024 decisions a
round. Measured through the roles in one process (10 evaluation episodes, seed 10000), rounds 0 to
5: seed 0: -1000, -668, -179, -168, -126, -121; seed 1: -1000, -1000, -121, -121, -133, -151;
seed 2: -1000, -1000, -140, -115, -119, -115. Without action repeat (episodes of 1,000 steps,
normalised) seed 0 reached -125 in round 6 and fell back to -303."""

MOUNTAIN_CAR_CONTINUOUS = Preset(
    env_id="MountainCarContinuous-v0",
    policy=PolicyConfig(hidden_sizes=(64, 64), activation="tanh", init_log_std=1.0),
    ppo=PPOConfig(learning_rate=1e-3, final_learning_rate=1e-4, anneal_steps=100_000, batch_size=128,
                  update_epochs=10, gamma=0.9999, gae_lambda=0.9, clip_vloss=False, max_grad_norm=5.0,
                  vf_coef=0.19),
    shards=2,
    steps_per_shard=4096,
    max_rounds=50,
    solved_return=90.0,
    rounds=8,
    spec_fields=(("challenges_per_trainer", 4), ("steps_per_leaf", 8), ("steps_per_snapshot", 100)),
)
"""MountainCarContinuous-v0 (gymnasium's threshold 90). rl-zoo's gamma 0.9999, GAE lambda 0.9,
10 epochs, gradient clip 5 and value weight 0.19; 2 samplers x 4096 steps (8 episodes of up to 999
steps a round). The zoo explores with gSDE from a log std of -3.29, which a spec cannot ask for;
here a wide initial Gaussian (log std 1.0, actions clipped to [-1, 1]) reaches the hill top in some
episodes of the first rounds, and no value clipping lets the critic learn the +100. Measured
through the roles in one process (10 evaluation episodes, seed 10000), rounds 0 to 8: seed 0:
-0, -0.1, -7.5, 44, 86, 86, 83, 76, 53; seed 1 (to round 6): -0, -0, -0.1, -1.7, 13, 45, 84; seed 2:
-0, -0.3, -0.9, -0, -0.3, -1.4, 38, 57, 62. With log std 0.5 seed 0 reached 84 in 5 rounds but
seeds 1 and 2 stayed at 0 for 6 and 8 rounds: no episode reached the top, so nothing was learned.
Once one does, 2-3 rounds take it to about 85; when none does, the policy learns to stand still
(return 0), so a seed can need more rounds; seed 0 also slid back from 86 to 53 by round 8. 640
gradient steps a round: trace leaves of 8 steps. Snapshots every 100 steps: a validator replays 4
segments of 100 steps of each shard, not 4 episodes of up to 999 (seed 0's curve is the same with
them, to round 4)."""

HALF_CHEETAH = Preset(
    env_id="HalfCheetah-v5",
    family=MUJOCO,
    policy=PolicyConfig(hidden_sizes=(256, 256), activation="relu", init_log_std=-2.0, obs_norm=True),
    ppo=PPOConfig(learning_rate=2.0633e-05, final_learning_rate=2.0633e-05, batch_size=64, update_epochs=20,
                  gamma=0.98, gae_lambda=0.92, clip_coef=0.1, clip_vloss=False, ent_coef=0.000401762,
                  vf_coef=0.58096, max_grad_norm=0.8, norm_reward=True),
    shards=2,
    steps_per_shard=256,
    max_rounds=2000,
    solved_return=4800.0,
    rounds=40,
    spec_fields=(("challenges_per_sampler", 2), ("challenges_per_trainer", 1), ("steps_per_leaf", 16),
                 ("steps_per_snapshot", 8)),
)
"""HalfCheetah-v5 (gymnasium's threshold 4800). rl-zoo's tuned HalfCheetah PPO as it is (256x256 ReLU,
log std -2, constant learning rate 2.06e-5, minibatches of 64, 20 epochs, gamma 0.98, GAE lambda
0.92, clip 0.1, SB3's unclipped value loss, VecNormalize's observation and reward normalization as
policy.obs_norm and ppo.norm_reward), and the zoo's update size: 2 samplers x 256 steps, 512 env
steps a round. Rounds of 2 x 1024 learned far slower on the same steps (bench/workloads.py, task seed
1, 40,960 env steps: 15.8 against 1,312; the same number of gradient steps, 4 times fewer policy
updates between rollouts). 160 gradient steps a round in trace leaves of 16, one re-executed by each
validator (10%): 10 trace states of ~1.7 MB (parameters and Adam state) stored a round, 17 MB
(leaves of 8 filled a disk with 2.7 GB in 80 rounds); snapshots every 8 steps, 2 segments replayed
of each 256-step shard (a 1,000-step episode is never replayed whole). Measured through the whole
network (bench/workloads.py, task seed 1): the deterministic evaluation (10 episodes) rose from -0.2
to 1,312 in 80 rounds (40,960 env steps, 106 s), against SB3's PPO at 742 on the same steps and
seed; with the CPU kernels pinned (MKL's AVX2 branch, an interim build), 1,104 / 1,677 / 1,335 at
task seeds 1 / 2 / 3 against SB3's 818 / 1,560 / 1,578, and with the final pin (COMPATIBLE) 1,271
at seed 1 against 264 (docs/benchmarks.md). The zoo gives it 1M env steps."""

HOPPER = Preset(
    env_id="Hopper-v5",
    family=MUJOCO,
    policy=PolicyConfig(hidden_sizes=(256, 256), activation="relu", init_log_std=-2.0, obs_norm=True),
    ppo=PPOConfig(learning_rate=9.80828e-05, final_learning_rate=9.80828e-05, batch_size=32, update_epochs=5,
                  gamma=0.999, gae_lambda=0.99, clip_coef=0.2, clip_vloss=False, ent_coef=0.00229519,
                  vf_coef=0.835671, max_grad_norm=0.7, norm_reward=True),
    shards=2,
    steps_per_shard=1024,
    max_rounds=500,
    solved_return=3800.0,
    rounds=10,
    spec_fields=(("challenges_per_trainer", 2), ("steps_per_leaf", 16), ("steps_per_snapshot", 25)),
)
"""Hopper-v5 (gymnasium's threshold 3800). rl-zoo's tuned Hopper PPO as it is (256x256 ReLU, log std
-2, learning rate 9.8e-5, minibatches of 32, 5 epochs, gamma 0.999, GAE lambda 0.99, observation and
reward normalization), 2 samplers x 1024 steps a round. 320 gradient steps a round: leaves of 16
steps, 2 re-executed by each validator (10%); snapshots every 25 steps (4 segments replayed, 10% of
a shard). Measured through the whole network (bench/workloads.py --mujoco-env Hopper-v5, task seed
1): the deterministic evaluation (10 episodes) rose from 159 to 1,000 in 20 rounds (40,960 env
steps, 61 s), against SB3's PPO at the zoo's settings alternating between ~1,000 and ~70 and ending
at 222 on the same steps and seed (docs/benchmarks.md). 1,000 is a hopper that stays up for its
1,000 steps without moving far forward: the zoo gives it 1M env steps."""

MINATAR_BREAKOUT = Preset(
    env_id="MinAtar/Breakout-v1",
    family=MINATAR,
    policy=PolicyConfig(kind="minatar_cnn"),
    ppo=PPOConfig(learning_rate=5e-4, final_learning_rate=5e-5, anneal_steps=500_000, batch_size=256,
                  update_epochs=4, gamma=0.99, gae_lambda=0.95, clip_coef=0.2, clip_vloss=False, ent_coef=0.01),
    shards=2,
    steps_per_shard=2048,
    max_rounds=250,
    solved_return=10.0,
    rounds=10,
    spec_fields=(("challenges_per_trainer", 2), ("steps_per_leaf", 4), ("steps_per_snapshot", 50)),
)
"""MinAtar Breakout (10x10x4 grids; the MinAtar paper's small CNN, one 3x3 convolution of 16 channels
and 128 units). rl-zoo has no MinAtar entry; the settings are PPO's usual ones for MinAtar (learning
rate 5e-4, 4 epochs, minibatches of 256, entropy 0.01, gamma 0.99, GAE lambda 0.95), 2 samplers x
2048 steps a round, 64 gradient steps: leaves of 4 steps, 2 re-executed (12.5%); snapshots every
50 steps (4 segments replayed, 10% of a shard). Target 10: a paddle that keeps the ball in play for
a few rows of bricks (random play scores under 1). Measured through the whole network
(bench/workloads.py, task seed 1): the deterministic evaluation (10 episodes) rose from 0 to 5.5 in
24 rounds (98,304 env steps, 49 s), against 3.3 for SB3's PPO with the same CNN, steps and seed
(docs/benchmarks.md). MinAtar agents are trained for millions of steps: this preset learns on a CPU,
not to the target in a few rounds."""

ATARI_BREAKOUT = Preset(
    env_id="ALE/Breakout-v5",
    family=ATARI,
    policy=PolicyConfig(kind="nature_cnn"),
    ppo=PPOConfig(learning_rate=2.5e-4, final_learning_rate=0.0, anneal_steps=10_000_000, batch_size=256,
                  update_epochs=4, gamma=0.99, gae_lambda=0.95, clip_coef=0.1, clip_vloss=False, ent_coef=0.01,
                  vf_coef=0.5, max_grad_norm=0.5),
    shards=2,
    steps_per_shard=4096,
    max_rounds=1250,
    solved_return=400.0,
    rounds=50,
    spec_fields=(("wrappers", ({"name": "atari_preprocessing"}, {"name": "frame_stack", "size": 4},
                               {"name": "clip_reward"})),
                 ("challenges_per_trainer", 1), ("steps_per_leaf", 16), ("steps_per_snapshot", 100)),
)
"""Atari Breakout through ale-py with rl-zoo's Atari PPO: AtariWrapper's preprocessing (no-op starts,
frame skip 4, 84x84 grayscale) and 4 stacked frames as spec wrappers, rewards clipped to their sign,
the Nature CNN, learning rate 2.5e-4 decaying to 0 over the zoo's 10M steps, clip 0.1, 4 epochs,
minibatches of 256, entropy 0.01. 2 samplers x 4096 steps a round (the zoo's 8 envs x 128 = 1024 an
update, made larger for the network's per-round cost): 128 gradient steps of a 1.7M-parameter
network (~20 MB of parameters and Adam state a trace leaf), so leaves of 16 steps (8 a round) and 1
re-executed (12.5%); snapshots every 100 steps (4 segments replayed, 10% of a shard). Target 400
(rl-zoo's agents score about that after 10M frames). It needs a GPU trainer and hundreds of rounds;
not measured here."""

ENV_PRESETS: dict[str, Preset] = {
    "CartPole-v1": CARTPOLE_NETWORK,
    "Acrobot-v1": ACROBOT,
    "MountainCar-v0": MOUNTAIN_CAR,
    "Pendulum-v1": PENDULUM,
    "MountainCarContinuous-v0": MOUNTAIN_CAR_CONTINUOUS,
    "HalfCheetah-v5": HALF_CHEETAH,
    "Hopper-v5": HOPPER,
    "MinAtar/Breakout-v1": MINATAR_BREAKOUT,
    "ALE/Breakout-v5": ATARI_BREAKOUT,
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
