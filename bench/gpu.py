"""The trainer's PPO update throughput (samples/s) on a CUDA GPU against the CPU.

What is timed: `workers.rl.ppo.train_round` itself, the call a trainer node makes once per round
(old log-probs/values and GAE under the incoming policy, then `update_epochs` passes of shuffled
minibatches with the clipped objective, Adam, gradient clipping; the policy moved to the device and
back to the cpu, as in production). samples/s = (round samples x update_epochs) / wall time of the
call, i.e. minibatch samples processed per second, median over the timed rounds after one warm-up
round. The episodes are synthetic (random observations and discrete actions, 500 steps each):
the update's cost does not depend on the values. CartPole-v1-shaped for the MLPs (obs dim 4, 2
actions); Atari-shaped for the CNN (84x84x4 uint8 frames, stacked grayscale as the rl-zoo's Atari
wrappers give them, 6 actions).

Three policies:
  cartpole    the CartPole preset: MLP 64x64 tanh, its minibatch (256), epochs (10) and samples per
              round (shards x steps_per_shard)
  nature_cnn  the Nature CNN (Mnih et al. 2015; conv 32x8x8/4, 64x4x4/2, 64x3x3/1, linear 512, shared
              by actor and critic) at the rl-zoo's Atari PPO settings: minibatch 256, 4 epochs, 1024
              samples per round (8 envs x 128 steps)
  large       MLP 1024x1024 tanh (actor and critic), minibatch 4096, 4 epochs, 16384 samples per round

When torch sees no CUDA device the script says so plainly and reports the cpu figures only, with
gpu_samples_s=nan. The last line is `RESULT gpu_samples_s=<x> cpu_samples_s=<y>` for the LARGE
policy (as it always was); every policy's figures are printed above it.

    .venv/bin/python bench/gpu.py [--threads N (default: torch's default)] [--rounds 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@dataclass(frozen=True)
class Workload:
    name: str
    hidden_sizes: tuple[int, ...]
    batch_size: int
    update_epochs: int
    samples: int
    kind: str = "mlp"
    """The policy network (workers.rl.config.KINDS); a CNN kind trains on ATARI_FRAMES."""


ATARI_FRAMES = (84, 84, 4)
"""The observation shape of the CNN workload: 4 stacked 84x84 grayscale frames, uint8."""


def workloads() -> dict[str, Workload]:
    from workers.rl.presets import CARTPOLE

    return {
        # 10 epochs, as the figures in docs/benchmarks.md were measured (the preset now trains 4).
        "cartpole": Workload("cartpole", CARTPOLE.policy.hidden_sizes, CARTPOLE.ppo.batch_size,
                             10, CARTPOLE.shards * CARTPOLE.steps_per_shard),
        "nature_cnn": Workload("nature_cnn", (512,), 256, 4, 1024, kind="nature_cnn"),
        "large": Workload("large", (1024, 1024), 4096, 4, 16384),
    }


def synthetic_episodes(policy, samples: int, ep_len: int = 500, seed: int = 0):
    """Episodes of the policy's observation shape and dtype totalling `samples` steps (the last one cut)."""
    from workers.rl.rollout import Episode

    rng = np.random.default_rng(seed)
    spec = policy.spec
    episodes, left, i = [], samples, 0
    while left > 0:
        t = min(ep_len, left)
        end = "terminated" if t == ep_len else "cut"
        term = np.zeros(t, dtype=bool)
        term[-1] = end == "terminated"
        episodes.append(Episode(
            env_id="CartPole-v1", task_seed=0, round=0, shard=0, index=i, env_seed=i, sample_seed=i,
            policy=bytes(32), end=end, action_kind=spec.action_kind,
            obs=(rng.integers(0, 256, (t + 1, *spec.shape), dtype=np.uint8) if spec.image
                 else rng.standard_normal((t + 1, spec.obs_dim)).astype(np.float32)),
            actions=rng.integers(0, spec.action_dim, t).astype(np.int64),
            rewards=np.ones(t, dtype=np.float64), terminated=term, truncated=np.zeros(t, dtype=bool),
            logp=np.zeros(t, dtype=np.float32), values=np.zeros(t, dtype=np.float32)))
        left -= t
        i += 1
    return episodes


def samples_per_second(work: Workload, device: str, rounds: int = 3) -> float:
    """Median samples/s of `rounds` timed train_round calls (after one warm-up round) on `device`."""
    from workers.rl.envs import DISCRETE, SpaceSpec, make_env, space_spec
    from workers.rl.policy import PolicyConfig, make_policy
    from workers.rl.ppo import TrainState, train_round
    from workers.rl.presets import CARTPOLE

    if work.kind == "mlp":
        env = make_env("CartPole-v1")
        space = space_spec(env)
        env.close()
    else:
        h, w, c = ATARI_FRAMES
        space = SpaceSpec(obs_dim=h * w * c, action_kind=DISCRETE, action_dim=6, obs_shape=ATARI_FRAMES,
                          obs_dtype="uint8")
    policy = make_policy(space, PolicyConfig(hidden_sizes=work.hidden_sizes, seed=0, kind=work.kind))
    config = dataclasses.replace(CARTPOLE.ppo, batch_size=work.batch_size,
                                 update_epochs=work.update_epochs, device=device)
    episodes = synthetic_episodes(policy, work.samples)
    state = TrainState()
    rates = []
    for r in range(rounds + 1):
        t = time.perf_counter()
        policy, stats = train_round(policy, episodes, config, state)
        dt = time.perf_counter() - t
        assert stats["device"] == device and stats["samples"] == work.samples
        if r > 0:  # round 0 warms up (allocations, cuda context, kernels)
            rates.append(work.samples * work.update_epochs / dt)
    return statistics.median(rates)


def run(names=("cartpole", "nature_cnn", "large"), rounds: int = 3, threads: int = 0,
        override: dict[str, Workload] | None = None, out=print) -> tuple[dict, str]:
    """Measures each workload on cpu and (if present) cuda; returns (figures, RESULT line), the
    RESULT for the last workload of `names`."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    works = {**workloads(), **(override or {})}
    has_gpu = torch.cuda.is_available()
    if has_gpu:
        out(f"GPU: {torch.cuda.get_device_name(0)} (torch {torch.__version__}, CUDA {torch.version.cuda})")
    else:
        out(f"NO GPU: torch {torch.__version__} sees no CUDA device on this machine; "
            f"cpu figures only, gpu_samples_s=nan")
    out(f"CPU: torch threads {torch.get_num_threads()}; timed rounds {rounds} (+1 warm-up)")
    figures = {}
    for name in names:
        w = works[name]
        cpu = samples_per_second(w, "cpu", rounds)
        gpu = samples_per_second(w, "cuda", rounds) if has_gpu else math.nan
        figures[name] = (gpu, cpu)
        net = "MLP " + "x".join(map(str, w.hidden_sizes)) if w.kind == "mlp" else \
            f"{w.kind} {'x'.join(map(str, ATARI_FRAMES))}"
        out(f"  {name:10s} {net:>18s} minibatch {w.batch_size:5d} "
            f"epochs {w.update_epochs:2d} samples/round {w.samples:6d}: cpu {cpu:12.0f} samples/s, "
            f"gpu {gpu:12.0f} samples/s" + (f" ({gpu / cpu:.1f}x)" if has_gpu else ""))
    gpu, cpu = figures[names[-1]]
    out(f"RESULT below is for the '{names[-1]}' policy")
    return figures, f"RESULT gpu_samples_s={gpu:.0f} cpu_samples_s={cpu:.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds per figure (after 1 warm-up)")
    args = ap.parse_args()
    _, result = run(rounds=args.rounds, threads=args.threads, out=lambda s: print(s, flush=True))
    print(result)


if __name__ == "__main__":
    main()
