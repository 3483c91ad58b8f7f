"""A node's first measure of its own speed for an environment and policy size it has not worked
on yet: short timed rollouts, replays or PPO updates (those its roles price) on that env with a
policy of the spec's architecture (one torch thread, as the roles run). Each is timed up to REPEATS
times (fewer when the runs are long) and the fastest kept: a loaded host (other processes
starting, first-use costs) only ever makes a run slower, and a rate measured in such a moment
would have the node refuse work it can do. About a tenth of a second for CartPole's 64x64 policy
once warm. Job rates then refine it (workers.node.market.throughput)."""
from __future__ import annotations

import time

CALIBRATION_STEPS = 256
"""Steps rolled out and replayed in each timed run."""
UPDATE_SAMPLES, UPDATE_EPOCHS = 128, 4
"""Each timed update's samples and epochs (its rate counts samples x epochs, as the estimate does)."""
REPEATS = 3
ENOUGH_S = 1.0
"""A run is repeated only while the runs so far took less than this: a short run is what a moment's
load distorts, a run of a second or more (an Atari rollout, a Nature-CNN update) averages it out,
and repeating it would cost the node seconds before its first claim."""


def _fastest(run, clock=time.perf_counter) -> float:
    """The shortest of up to REPEATS timings of run(), stopping once they add up to ENOUGH_S."""
    best, spent = float("inf"), 0.0
    for _ in range(REPEATS):
        started = clock()
        run()
        took = clock() - started
        best, spent = min(best, took), spent + took
        if spent >= ENOUGH_S:
            break
    return best


KINDS = ("rollout", "replay", "update")
"""What calibrate can time: env steps rolled out and replayed a second, samples x epochs updated."""


def calibrate(spec, kinds=KINDS) -> dict[str, float]:
    """{kind: per second} of `kinds` (KINDS) on `spec`'s env and policy: only what the node's roles
    price (a sampler rolls out, a trainer updates), since each costs seconds on a heavy env."""
    import dataclasses

    from workers.rl.policy import digest, make_policy
    from workers.rl.ppo import TrainState, train_round
    from workers.rl.replay import replay_episode
    from workers.rl.rollout import rollout
    from workers.roles.determinism import single_thread

    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"cannot calibrate {sorted(unknown)}: only {', '.join(KINDS)}")
    measured = {}
    with single_thread():
        policy = make_policy(spec.space(), spec.policy_config())  # the spec's kind and sizes
        env, every = spec.env_config(), spec.steps_per_snapshot  # its wrappers and snapshots cost too

        def roll():
            return rollout(policy, env, task_seed=0, round_=0, shard=0, num_steps=CALIBRATION_STEPS,
                           steps_per_snapshot=every)

        if {"rollout", "replay"} & set(kinds):
            episodes = roll()  # untimed: the first-use costs (a node's workers paid most of them at start)
        if "rollout" in kinds:
            measured["rollout"] = CALIBRATION_STEPS / _fastest(roll)
        if "replay" in kinds:
            policy_digest = digest(policy)

            def replay():
                for ep in episodes:
                    replay_episode(ep, policy, env=env, policy_digest=policy_digest)

            measured["replay"] = CALIBRATION_STEPS / _fastest(replay)
        if "update" in kinds:
            config = dataclasses.replace(spec.ppo, device="cpu", update_epochs=UPDATE_EPOCHS,
                                         batch_size=min(spec.ppo.batch_size, UPDATE_SAMPLES // 2))
            samples = rollout(policy, env, task_seed=0, round_=0, shard=1, num_steps=UPDATE_SAMPLES)
            trained = make_policy(policy.spec, policy.config)  # updated in place, run after run: as fast
            train_round(trained, samples, config, TrainState())  # untimed, as above
            measured["update"] = UPDATE_SAMPLES * UPDATE_EPOCHS / _fastest(
                lambda: train_round(trained, samples, config, TrainState()))
    return measured
