"""Reinforcement learning for decentrl's nodes: environments, policies, deterministic rollouts,
replay checks for validators and PPO for trainers. Plain modules, no chain, no Celery, no IPFS.

torch is imported by the modules that need it (policy, rollout, replay, ppo), not here, so that
importing `workers.rl` stays cheap."""
