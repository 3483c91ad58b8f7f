"""workers/rl/presets.py: every preset names its env's family as workers.rl.envs does, builds a spec
the nodes accept (workers.spec.preset_spec), and keeps its own target; an id without one is
refused naming those with one."""

import pytest

from workers.rl.envs import families
from workers.rl.presets import ENV_PRESETS, preset_for
from workers.spec import DEMO_CARTPOLE, parse, preset_spec


@pytest.mark.parametrize("env_id", list(ENV_PRESETS))
def test_each_preset_builds_a_spec_with_its_family_and_target(env_id):
    preset = ENV_PRESETS[env_id]
    spec = preset_spec(env_id, seed=3)
    assert families.family(env_id) == preset.family and spec.env_id == preset.env_id == env_id
    assert (spec.seed, spec.target_return, spec.steps_per_shard, spec.ppo) == (3, preset.solved_return,
                                                                             preset.steps_per_shard, preset.ppo)
    assert (spec.policy_kind, spec.obs_norm) == (preset.policy.kind, preset.policy.obs_norm)
    assert parse(spec.to_bytes()) == spec


def test_the_cartpole_preset_is_the_demo_spec():
    assert preset_spec("CartPole-v1", seed=1) == DEMO_CARTPOLE


def test_an_id_without_a_preset_names_those_with_one():
    with pytest.raises(KeyError, match="no preset for 'LunarLander-v3'; presets exist for CartPole-v1, Acrobot-v1"):
        preset_for("LunarLander-v3")
