"""One draw examines at most 4 candidates per vacancy: an eligible validator further along the
walk is not reached, and the draw re-arms instead."""

from dataclasses import replace

from tests.registry.assignment.conftest import draw_walk, seed_of
from workers.protocol import Role, Status


def _only_eligible(stakes, pool, keep):
    """Pauses every validator in `pool` except `keep` (and unpauses `keep`)."""
    for v in pool:
        if stakes.isNodePaused(v) != (v != keep):
            stakes.setNodePaused(v != keep, {"from": v})


def test_fifth_candidate_is_not_examined(registry, stakes, stake_as, outsider, extra_validators,
                                         drawing_task, task_params, state):
    for v in extra_validators:
        stake_as(v, Role.VALIDATOR)
    task_id = drawing_task(replace(task_params, num_validators=1))
    walk = draw_walk(stakes, seed_of(state, task_id), task_id)
    assert len(walk) == 13
    _only_eligible(stakes, walk, keep=walk[4])
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert "SlotAssigned" not in tx.events
    assert state.taskOf(task_id)["seedBlock"] == tx.block_number + 1
    assert state.taskOf(task_id)["status"] == Status.DRAWING


def test_fourth_candidate_is_examined(registry, stakes, stake_as, outsider, extra_validators, drawing_task,
                                      task_params, state):
    for v in extra_validators:
        stake_as(v, Role.VALIDATOR)
    task_id = drawing_task(replace(task_params, num_validators=1))
    walk = draw_walk(stakes, seed_of(state, task_id), task_id)
    _only_eligible(stakes, walk, keep=walk[3])
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert tx.events["SlotAssigned"]["node"] == walk[3]
    assert state.taskOf(task_id)["status"] == Status.ACTIVE
