"""Round fixtures: an active task with its driver, and staking for newcomers."""

import pytest
from brownie import chain

from tests.registry.rounds.driver import RoundDriver, send
from workers.protocol import Role


@pytest.fixture
def active_task(staked, create_task, samplers, trainer):
    """tests/conftest.py's active_task (round 0, SampleCommit), its transactions sent through
    `send` so that a falsely "dropped" receipt does not fail the set-up."""
    task_id = create_task()
    for s in samplers:
        send(staked.registry.claimSlot, task_id, Role.SAMPLER, sender=s)
    send(staked.registry.claimSlot, task_id, Role.TRAINER, sender=trainer)
    chain.mine(2)
    send(staked.registry.drawValidators, task_id, sender=trainer)
    return task_id


@pytest.fixture
def round_driver(staked, active_task, samplers, trainer):
    return RoundDriver(staked.registry, active_task, samplers, trainer)


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
