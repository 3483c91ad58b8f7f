"""workers.node.market.calibrate on each family's preset: the spec's own env (wrappers included),
policy kind and snapshots are what get timed, so every preset calibrates."""
import math

import pytest

from workers.node.market import calibrate as calibration
from workers.node.market.calibrate import calibrate
from workers.spec import preset_spec


@pytest.mark.parametrize("env_id", ["CartPole-v1", "HalfCheetah-v5", "MinAtar/Breakout-v1", "ALE/Breakout-v5"])
def test_each_family_preset_calibrates(env_id):
    rates = calibrate(preset_spec(env_id))
    assert set(rates) == {"rollout", "replay", "update"}
    assert all(math.isfinite(r) and r > 0 for r in rates.values()), rates


@pytest.mark.parametrize("kinds", [("rollout",), ("update",), ("replay", "update")])
def test_only_the_kinds_asked_for_are_timed(kinds, monkeypatch):
    timed = []
    monkeypatch.setattr(calibration, "_fastest", lambda run: timed.append(run) or (run(), 0.5)[1])
    rates = calibrate(preset_spec("CartPole-v1"), kinds)
    assert set(rates) == set(kinds) and len(timed) == len(kinds)
    assert all(rates[kind] > 0 for kind in kinds)


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match=r"cannot calibrate \['steps'\]: only rollout, replay, update"):
        calibrate(preset_spec("CartPole-v1"), ("rollout", "steps"))


@pytest.mark.parametrize("run_s, runs", [(0.1, 3), (0.3, 3), (0.4, 2), (0.6, 2), (1.0, 1), (3.0, 1)])
def test_short_runs_are_repeated_and_long_ones_are_not(run_s, runs):
    """The fastest of up to 3 runs, stopping once they add up to a second (calibration.ENOUGH_S)."""
    now, calls = [0.0], []

    def run():
        calls.append(1)
        now[0] += run_s * (1.5 if len(calls) == 1 else 1.0)  # the first run slower, as under load

    best = calibration._fastest(run, clock=lambda: now[0])
    assert len(calls) == runs
    assert best == pytest.approx(run_s if runs > 1 else run_s * 1.5)
