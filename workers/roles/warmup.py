"""Pay the compute stack's first-use costs once, in a worker's main process before it forks its
pool: a tiny CartPole rollout and one PPO update. torch.optim's first `step()` alone imports some
800 modules (torch._dynamo; about a second), and every pool process would otherwise pay it on its
first round, on the round's critical path. One thread throughout (single_thread), so no thread
pool exists when the worker forks."""

from __future__ import annotations

import dataclasses

from workers.rl.envs import make_env, space_spec
from workers.rl.policy import make_policy
from workers.rl.ppo import PPOConfig, TrainState, train_round
from workers.rl.rollout import rollout
from workers.roles.determinism import single_thread

ENV_ID = "CartPole-v1"


def exercise(update: bool = True) -> None:
    """update=False: the rollout only (a sampler never updates a policy)."""
    with single_thread():
        env = make_env(ENV_ID)
        try:
            policy = make_policy(space_spec(env))
        finally:
            env.close()
        episodes = rollout(policy, ENV_ID, task_seed=0, round_=0, shard=0, num_steps=32)
        if not update:
            return
        config = dataclasses.replace(PPOConfig(), batch_size=32, update_epochs=1, device="cpu")
        train_round(policy, episodes, config, TrainState())
