"""claimSlot refuses validator claims, closed tasks, the requester, double membership and full roles."""

from dataclasses import replace

import brownie

from workers.protocol import Role, Status


def test_validator_slots_cannot_be_claimed(registry, validators, create_task):
    task_id = create_task()
    with brownie.reverts("ValidatorsAreDrawn: "):
        registry.claimSlot(task_id, Role.VALIDATOR, {"from": validators[0]})


def test_drawing_task_refuses_claims(registry, stake_as, outsider, drawing_task):
    task_id = drawing_task()
    stake_as(outsider, Role.SAMPLER)
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.DRAWING}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": outsider})


def test_cancelled_task_refuses_claims(registry, requester, samplers, create_task):
    task_id = create_task()
    registry.cancelTask(task_id, {"from": requester})
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.CANCELLED}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})


def test_requester_cannot_work_on_own_task(registry, stake_as, requester, create_task):
    stake_as(requester, Role.SAMPLER)
    task_id = create_task()
    with brownie.reverts(f"RequesterCannotWork: {task_id}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": requester})


def test_node_cannot_hold_two_slots_of_one_task(registry, stake_as, samplers, create_task, state):
    stake_as(samplers[0], Role.TRAINER)  # eligible as trainer too: only membership stops it
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    for role in [Role.SAMPLER, Role.TRAINER]:
        with brownie.reverts(f"AlreadyAssigned: {task_id}, {samplers[0].address.lower()}"):
            registry.claimSlot(task_id, role, {"from": samplers[0]})
    assert state.taskOf(task_id)["filledSamplers"] == 1


def test_full_sampler_role_has_no_vacant_slot(registry, samplers, create_task, task_params):
    task_id = create_task(replace(task_params, num_samplers=1))
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    with brownie.reverts(f"NoVacantSlot: {task_id}, {Role.SAMPLER}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[1]})


def test_trainer_slot_is_single(registry, trainer, stake_as, outsider, create_task):
    task_id = create_task()
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    stake_as(outsider, Role.TRAINER)
    with brownie.reverts(f"NoVacantSlot: {task_id}, {Role.TRAINER}"):
        registry.claimSlot(task_id, Role.TRAINER, {"from": outsider})
