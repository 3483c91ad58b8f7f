"""The draw never picks the requester, a node already assigned to the task, a paused node, one
below the reputation threshold or one without enough unlocked stake."""

from dataclasses import replace

from brownie import chain

from tests.registry.assignment.conftest import drawn_validators
from workers.protocol import Role, Status

TOKEN = 10**18


def _ineligible_pool(stake_as, penalise, stakes, requester, samplers, outsider, extra):
    """Stakes five ineligible validators beside the three eligible ones; returns them (the one
    staking under the minimum is not even in the pool)."""
    stake_as(requester, Role.VALIDATOR)
    stake_as(samplers[0], Role.VALIDATOR)  # will hold a sampler slot of the task
    stake_as(outsider, Role.VALIDATOR)
    stakes.setNodePaused(True, {"from": outsider})
    stake_as(extra[0], Role.VALIDATOR)
    penalise(extra[0])
    stake_as(extra[1], Role.VALIDATOR, 200 * TOKEN - 1)
    return [requester, samplers[0], outsider, extra[0], extra[1]]


def test_only_eligible_validators_are_drawn(registry, stakes, stake_as, penalise, requester, samplers, outsider,
                                            validators, extra_validators, drawing_task, state):
    excluded = _ineligible_pool(stake_as, penalise, stakes, requester, samplers, outsider, extra_validators)
    assert stakes.validatorCount() == 7  # all but the one under the minimum
    task_id = drawing_task()
    registry.drawValidators(task_id, {"from": outsider})
    picked = drawn_validators(state, task_id)
    assert sorted(picked) == sorted(v.address for v in validators)
    assert not set(picked) & {a.address for a in excluded}
    assert state.taskOf(task_id)["status"] == Status.ACTIVE


def test_excluded_nodes_stay_out_when_slots_remain(registry, stakes, stake_as, penalise, requester, samplers,
                                                   outsider, validators, extra_validators, drawing_task,
                                                   task_params, state):
    excluded = _ineligible_pool(stake_as, penalise, stakes, requester, samplers, outsider, extra_validators)
    task_id = drawing_task(replace(task_params, num_validators=6))
    for _ in range(3):  # every draw walks the whole pool of 7 and finds only the same three
        registry.drawValidators(task_id, {"from": outsider})
        chain.mine(2)
    picked = [a for a in drawn_validators(state, task_id) if a != "0x" + "00" * 20]
    assert sorted(picked) == sorted(v.address for v in validators)
    assert not set(picked) & {a.address for a in excluded}
    assert state.taskOf(task_id)["status"] == Status.DRAWING
    assert [int(stakes.stakeOf(a, Role.VALIDATOR)["locked"]) for a in excluded] == [0] * 5
