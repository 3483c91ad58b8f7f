"""The demo spec solves CartPole-v1 through the roles in the demo's 5 rounds: 2 samplers per round,
each round's checkpoint bundle feeding the next, then 100 evaluation episodes."""

from workers.rl.evaluate import evaluate
from workers.roles import sampler
from workers.roles.local_round import run_rounds
from workers.spec import DEMO_CARTPOLE

ROUNDS, SAMPLERS = 5, 2


def test_demo_spec_solves_cartpole_in_five_rounds():
    spec = DEMO_CARTPOLE
    *_, last = run_rounds(spec, 1, ROUNDS, slots=range(SAMPLERS))
    final = sampler.round_policy(spec, last.checkpoint.policy_bytes)
    result = evaluate(final, spec.env_id, episodes=spec.eval_episodes, seed=10_000)
    assert result.mean_return >= spec.target_return, result.mean_return
