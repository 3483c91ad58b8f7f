"""Pay the compute stack's first-use costs once, before anything forks: in the node's fork server
(workers.node.processes.preload), and again (then nearly free) in a worker's main process before it forks its
pool: a tiny CartPole rollout, the PPO loss's forward pass and one Adam step. torch.optim's first
`step()` alone imports some 800 modules (torch._dynamo; about a second), and every pool process
would otherwise pay it on its first round, on the round's critical path.

Fork safety: one thread throughout (single_thread), so no thread pool exists when the worker
forks, and no backward pass (gradients are set by hand). And only on a CPU-only build of torch:
on a CUDA build, the first optimizer step and the autograd engine initialize CUDA (seen on an
H200: a CUDA driver thread, and autograd's thread for the GPU), after which a forked pool process
can neither use CUDA ("Cannot re-initialize CUDA in forked subprocess") nor even train on the CPU
("CUDA error: initialization error"). There each pool process pays the first-use costs itself."""

from __future__ import annotations

import torch

from workers.rl.envs import make_env, space_spec
from workers.rl.policy import make_policy
from workers.rl.ppo import PPOConfig, TrainState, make_optimizer, samples
from workers.rl.rollout import rollout
from workers.roles.determinism import single_thread

ENV_ID = "CartPole-v1"


def fork_safe() -> bool:
    """Whether warming up in a process that will fork leaves its children able to compute: on a
    CPU-only build of torch (the module doc)."""
    return torch.version.cuda is None and getattr(torch.version, "hip", None) is None


def exercise(update: bool = True) -> None:
    """update=False: the rollout only (a sampler never updates a policy). Does nothing where it is
    not fork-safe (a CUDA or ROCm build of torch)."""
    if not fork_safe():
        return
    with single_thread():
        env = make_env(ENV_ID)
        try:
            policy = make_policy(space_spec(env))
        finally:
            env.close()
        episodes = rollout(policy, ENV_ID, task_seed=0, round_=0, shard=0, num_steps=32)
        if not update:
            return
        obs, actions = samples(episodes, torch.device("cpu"))
        with torch.no_grad():
            policy.evaluate(obs, actions)
        optimizer = make_optimizer(policy, TrainState(), PPOConfig(device="cpu"))
        for p in policy.parameters():
            p.grad = torch.zeros_like(p)
        optimizer.step()
