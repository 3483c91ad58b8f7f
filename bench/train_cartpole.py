"""Trains CartPole-v1 with the demo preset, round by round as the network would (shards rolled
by `workers.rl.rollout`, one `train_round` per round), without chain, IPFS or Celery.

After each round whose training episodes average >= --check-at, the policy is evaluated on 20
episodes; when that reaches the preset's solved return, the final figure is the mean of 100
evaluation episodes (deterministic actions, seeds 10_000..). Prints one line per round and ends with
`RESULT eval_return=<x> rounds=<n> wall_s=<s>` (wall time includes rollouts, updates and evals).

    .venv/bin/python bench/train_cartpole.py [--threads 1] [--task-seed 1] [--preset cartpole]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="cartpole")
    ap.add_argument("--task-seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--check-at", type=float, default=300.0)
    args = ap.parse_args()

    import torch

    from workers.rl.envs import make_env, space_spec
    from workers.rl.evaluate import evaluate
    from workers.rl.policy import digest, make_policy
    from workers.rl.ppo import TrainState, train_round
    from workers.rl.presets import PRESETS
    from workers.rl.rollout import rollout

    torch.set_num_threads(args.threads)
    preset = PRESETS[args.preset]
    env = make_env(preset.env_id)
    policy = make_policy(space_spec(env), preset.policy)
    env.close()
    print(f"preset={args.preset} {preset}", flush=True)
    state = TrainState()
    t0 = time.perf_counter()
    result, rounds = None, 0
    for rnd in range(1, preset.max_rounds + 1):
        rounds = rnd
        t = time.perf_counter()
        episodes = [ep for shard in range(preset.shards)
                    for ep in rollout(policy, preset.env_id, task_seed=args.task_seed, round_=rnd,
                                      shard=shard, num_steps=preset.steps_per_shard)]
        t_roll = time.perf_counter() - t
        t = time.perf_counter()
        policy, stats = train_round(policy, episodes, preset.ppo, state)
        t_train = time.perf_counter() - t
        line = (f"round {rnd:3d} env_steps {state.env_steps:7d} train_return {stats['mean_return']:7.1f} "
                f"lr {stats['learning_rate']:.2e} kl {stats['approx_kl']:.4f} "
                f"rollout_s {t_roll:5.2f} train_s {t_train:5.2f} wall_s {time.perf_counter() - t0:6.1f}")
        if stats["mean_return"] >= args.check_at:
            quick = evaluate(policy, preset.env_id, episodes=20, seed=5_000 + rnd * 100)
            line += f" eval20 {quick.mean_return:6.1f}"
            if quick.mean_return >= preset.solved_return:
                result = evaluate(policy, preset.env_id, episodes=100, seed=10_000)
                line += f" eval100 {result.mean_return:6.1f}"
                if result.mean_return >= preset.solved_return:
                    print(line, flush=True)
                    break
        print(line, flush=True)
    if result is None or result.mean_return < preset.solved_return:
        result = evaluate(policy, preset.env_id, episodes=100, seed=10_000)
    wall = time.perf_counter() - t0
    print(f"policy digest {digest(policy).hex()} env_steps {state.env_steps} threads {args.threads}")
    print(f"RESULT eval_return={result.mean_return:.1f} rounds={rounds} wall_s={wall:.1f}")


if __name__ == "__main__":
    main()
