"""A node's first measure of its own speed for an environment and policy size it has not worked
on yet: a short timed rollout, replay and PPO update on that env with a policy of the spec's
architecture (one torch thread, as the roles run), about a tenth of a second for CartPole's 64x64
policy. Job rates then refine it (workers.node.market.throughput)."""
from __future__ import annotations

import time

CALIBRATION_STEPS = 256
"""Steps rolled out and replayed; the update runs one epoch over them."""


def calibrate(spec) -> dict[str, float]:
    """{"rollout": steps/s, "replay": steps/s, "update": samples/s} on `spec`'s env and policy."""
    import dataclasses

    from workers.rl.config import PolicyConfig
    from workers.rl.envs import env_space_spec
    from workers.rl.policy import digest, make_policy
    from workers.rl.ppo import TrainState, train_round
    from workers.rl.replay import replay_episode
    from workers.rl.rollout import rollout
    from workers.roles.determinism import single_thread

    with single_thread():
        policy = make_policy(env_space_spec(spec.env_id), PolicyConfig(hidden_sizes=spec.hidden_sizes,
                                                                       activation=spec.activation))
        config = dataclasses.replace(spec.ppo, device="cpu", update_epochs=1,
                                     batch_size=min(spec.ppo.batch_size, CALIBRATION_STEPS))
        # untimed: the first-use costs (a node's workers paid them at start: workers.roles.warmup)
        train_round(make_policy(policy.spec, policy.config),
                    rollout(policy, spec.env_id, task_seed=1, round_=0, shard=0, num_steps=16),
                    dataclasses.replace(config, batch_size=8), TrainState())
        started = time.perf_counter()
        episodes = rollout(policy, spec.env_id, task_seed=0, round_=0, shard=0, num_steps=CALIBRATION_STEPS)
        rollout_s = time.perf_counter() - started
        policy_digest, replayed = digest(policy), 0
        started = time.perf_counter()
        for ep in episodes:
            replay_episode(ep, policy, policy_digest=policy_digest)
            replayed += ep.steps
            if replayed >= CALIBRATION_STEPS // 2:
                break
        replay_s = time.perf_counter() - started
        started = time.perf_counter()
        train_round(policy, episodes, config, TrainState())
        update_s = time.perf_counter() - started
    return {"rollout": CALIBRATION_STEPS / rollout_s, "replay": replayed / replay_s,
            "update": CALIBRATION_STEPS / update_s}
