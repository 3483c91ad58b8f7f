"""A draw with enough eligible validators fills every validator slot with distinct validators and
starts round 0 (TaskStatusChanged(Active), PhaseStarted(0, SampleCommit, deadline))."""

from tests.registry.assignment.conftest import drawn_validators
from workers.protocol import Phase, Role, Status

TOKEN = 10**18


def test_all_validator_slots_filled_with_distinct_validators(registry, validators, outsider, drawing_task, state):
    task_id = drawing_task()
    registry.drawValidators(task_id, {"from": outsider})
    picked = drawn_validators(state, task_id)
    assert sorted(picked) == sorted(v.address for v in validators)
    for i, v in enumerate(picked):
        assert list(state.membershipOf(task_id, v)) == [True, Role.VALIDATOR, i]
    task = state.taskOf(task_id)
    assert [task["filledValidators"], task["seedBlock"]] == [3, 0]


def test_slot_assigned_for_each_validator(registry, outsider, drawing_task, state):
    task_id = drawing_task()
    tx = registry.drawValidators(task_id, {"from": outsider})
    assigned = [(e["taskId"], e["node"], e["role"], e["slot"], e["sinceRound"]) for e in tx.events["SlotAssigned"]]
    picked = drawn_validators(state, task_id)
    assert assigned == [(task_id, picked[i], Role.VALIDATOR, i, 0) for i in range(3)]


def test_validator_stakes_locked(registry, stakes, validators, outsider, drawing_task):
    registry.drawValidators(drawing_task(), {"from": outsider})
    assert [stakes.stakeOf(v, Role.VALIDATOR)["locked"] for v in validators] == [200 * TOKEN] * 3


def test_task_activated_with_first_phase(registry, outsider, drawing_task, state):
    task_id = drawing_task()
    tx = registry.drawValidators(task_id, {"from": outsider})
    deadline = registry.protocolTime() + 600  # commit window
    assert [int(x) for x in tx.events["TaskStatusChanged"].values()] == [task_id, Status.ACTIVE]
    assert [int(x) for x in tx.events["PhaseStarted"].values()] == [task_id, 0, Phase.SAMPLE_COMMIT, deadline]
    task = state.taskOf(task_id)
    assert [task["status"], task["phase"], task["round"], task["phaseDeadline"]] == [
        Status.ACTIVE, Phase.SAMPLE_COMMIT, 0, deadline]
    assert task["pending"] == 2  # both samplers are expected to commit


def test_anyone_may_draw(registry, validators, drawing_task, state):
    task_id = drawing_task()
    registry.drawValidators(task_id, {"from": validators[0]})
    assert state.taskOf(task_id)["status"] == Status.ACTIVE
