"""workers.node.market.calibrate on each family's preset: the spec's own env (wrappers included),
policy kind and snapshots are what get timed, so every preset calibrates."""
import math

import pytest

from workers.node.market.calibrate import calibrate
from workers.spec import preset_spec


@pytest.mark.parametrize("env_id", ["CartPole-v1", "HalfCheetah-v5", "MinAtar/Breakout-v1", "ALE/Breakout-v5"])
def test_each_family_preset_calibrates(env_id):
    rates = calibrate(preset_spec(env_id))
    assert set(rates) == {"rollout", "replay", "update"}
    assert all(math.isfinite(r) and r > 0 for r in rates.values()), rates
