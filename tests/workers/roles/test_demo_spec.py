"""The demo spec solves CartPole-v1 through the roles in the demo's 5 rounds: 2 samplers per round,
each round's checkpoint bundle feeding the next, then 100 evaluation episodes."""

from workers.rl.evaluate import evaluate
from workers.roles import sampler, trainer
from workers.spec import DEMO_CARTPOLE

ROUNDS, SAMPLERS = 5, 2


def test_demo_spec_solves_cartpole_in_five_rounds():
    spec, prev = DEMO_CARTPOLE, None
    for r in range(ROUNDS):
        policy_bytes = None if prev is None else trainer.unbundle_checkpoint(prev).policy_bytes
        shards = [sampler.sample_shard(spec, 1, r, slot, policy_bytes) for slot in range(SAMPLERS)]
        prev = trainer.train_round(spec, 1, r, prev, [(s.shard, s.root, s.blob) for s in shards]).bundle
    final = sampler.round_policy(spec, trainer.unbundle_checkpoint(prev).policy_bytes)
    result = evaluate(final, spec.env_id, episodes=spec.eval_episodes, seed=10_000)
    assert result.mean_return >= spec.target_return, result.mean_return
