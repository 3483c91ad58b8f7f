"""Round fixtures: a driver for the shared active task, and staking for newcomers."""

import pytest

from tests.registry.rounds.driver import RoundDriver


@pytest.fixture
def round_driver(staked, active_task, samplers, trainer):
    return RoundDriver(staked.registry, staked.state, active_task, samplers, trainer)


@pytest.fixture
def stake_node(staked, admin):
    """Funds `node` from the admin and stakes it at 5x the minimum for `role`."""

    def _stake(node, role):
        amount = 5 * staked.stakes.minStake(role)
        staked.token.transfer(node, amount, {"from": admin})
        staked.token.approve(staked.stakes, amount, {"from": node})
        staked.stakes.stake(role, amount, {"from": node})
        return node

    return _stake
