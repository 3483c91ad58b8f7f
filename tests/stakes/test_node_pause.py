"""setNodePaused(): an operator takes only its own node out of, and back into, assignments."""

from tests.stakes.conftest import TOKEN
from workers.protocol import Role


def test_nodes_start_unpaused(stakes, node, outsider):
    assert not stakes.isNodePaused(node)
    assert not stakes.isNodePaused(outsider)


def test_pause_sets_flag_and_emits(stakes, node):
    tx = stakes.setNodePaused(True, {"from": node})
    assert stakes.isNodePaused(node)
    assert dict(tx.events["NodePauseSet"]) == {"node": node.address, "paused": True}


def test_unpause_clears_flag_and_emits(stakes, node):
    stakes.setNodePaused(True, {"from": node})
    tx = stakes.setNodePaused(False, {"from": node})
    assert not stakes.isNodePaused(node)
    assert dict(tx.events["NodePauseSet"]) == {"node": node.address, "paused": False}


def test_pause_only_affects_caller(stakes, node, outsider):
    stakes.setNodePaused(True, {"from": outsider})
    assert stakes.isNodePaused(outsider)
    assert not stakes.isNodePaused(node)


def test_paused_validator_stays_staked_and_listed(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.setNodePaused(True, {"from": validator})
    assert stakes.validatorCount() == 1
    assert stakes.validatorAt(0) == validator
    assert stakes.availableStake(validator, Role.VALIDATOR) == 200 * TOKEN
