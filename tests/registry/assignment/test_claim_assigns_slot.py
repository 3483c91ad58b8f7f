"""claimSlot gives the caller the first vacant slot of the role and records the membership."""

from workers.protocol import Role, Status


def test_samplers_fill_slots_in_order(registry, samplers, create_task, state):
    task_id = create_task()
    for i, s in enumerate(samplers):
        tx = registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
        assert tx.return_value == i
        assert state.slotOf(task_id, Role.SAMPLER, i)["node"] == s
    assert state.taskOf(task_id)["filledSamplers"] == 2


def test_slot_assigned_event_args(registry, trainer, create_task, state):
    task_id = create_task()
    tx = registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    ev = tx.events["SlotAssigned"]
    assert [ev["taskId"], ev["node"], ev["role"], ev["slot"], ev["sinceRound"]] == [
        task_id, trainer, Role.TRAINER, 0, 0]
    assert state.taskOf(task_id)["trainerFilled"] is True


def test_membership_recorded(registry, samplers, trainer, outsider, create_task, state):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[1]})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    assert list(state.membershipOf(task_id, samplers[1])) == [True, Role.SAMPLER, 1]
    assert list(state.membershipOf(task_id, trainer)) == [True, Role.TRAINER, 0]
    assert list(state.membershipOf(task_id, outsider)) == [False, 0, 0]


def test_slot_records_locked_stake_and_round(staked, registry, samplers, create_task, state):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    slot = state.slotOf(task_id, Role.SAMPLER, 0)
    assert [slot["node"], slot["sinceRound"], slot["lockedStake"]] == [
        samplers[0], 0, staked.stakes.minStake(Role.SAMPLER)]


def test_partial_claims_keep_task_open(registry, samplers, create_task, state):
    task_id = create_task()
    tx = registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    assert "TaskStatusChanged" not in tx.events
    assert "DrawArmed" not in tx.events
    assert state.taskOf(task_id)["status"] == Status.OPEN


def test_same_node_may_work_in_two_tasks(registry, samplers, create_task, state):
    first, second = create_task(), create_task()
    registry.claimSlot(first, Role.SAMPLER, {"from": samplers[0]})
    registry.claimSlot(second, Role.SAMPLER, {"from": samplers[0]})
    assert state.membershipOf(second, samplers[0])["assigned"] is True
