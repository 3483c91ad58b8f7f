"""claimSlot checks the node itself: not paused, enough unlocked stake, reputation at or above the
threshold (60). A node below the threshold is never assigned."""

import brownie

from workers.protocol import Outcome, Role

TOKEN = 10**18


def test_paused_node_refused(registry, stakes, samplers, create_task):
    task_id = create_task()
    stakes.setNodePaused(True, {"from": samplers[0]})
    with brownie.reverts(f"NodePaused: {samplers[0].address.lower()}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    stakes.setNodePaused(False, {"from": samplers[0]})
    assert registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]}).return_value == 0


def test_unstaked_node_refused_with_amounts(registry, outsider, create_task):
    task_id = create_task()
    with brownie.reverts(f"InsufficientStake: {outsider.address.lower()}, {Role.TRAINER}, 0, {500 * TOKEN}"):
        registry.claimSlot(task_id, Role.TRAINER, {"from": outsider})


def test_stake_of_another_role_does_not_count(registry, validators, create_task):
    task_id = create_task()
    with brownie.reverts(f"InsufficientStake: {validators[0].address.lower()}, {Role.SAMPLER}, 0, {100 * TOKEN}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": validators[0]})


def test_stake_one_short_refused(registry, stake_as, outsider, create_task):
    stake_as(outsider, Role.SAMPLER, 100 * TOKEN - 1)
    task_id = create_task()
    with brownie.reverts(
        f"InsufficientStake: {outsider.address.lower()}, {Role.SAMPLER}, {100 * TOKEN - 1}, {100 * TOKEN}"
    ):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": outsider})


def test_stake_locked_elsewhere_does_not_count(registry, samplers, create_task):
    # 5x the minimum: five tasks lock it all, the sixth claim finds nothing available.
    for _ in range(5):
        registry.claimSlot(create_task(), Role.SAMPLER, {"from": samplers[0]})
    task_id = create_task()
    with brownie.reverts(f"InsufficientStake: {samplers[0].address.lower()}, {Role.SAMPLER}, 0, {100 * TOKEN}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})


def test_node_below_threshold_is_never_assigned(registry, penalise, samplers, create_task, state):
    task_id = create_task()
    assert penalise(samplers[0]) == 50
    with brownie.reverts(f"ReputationTooLow: {samplers[0].address.lower()}, 50, 60"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    assert state.membershipOf(task_id, samplers[0])["assigned"] is False
    assert state.taskOf(task_id)["filledSamplers"] == 0


def test_node_at_threshold_is_assigned(registry, penalise, trainer, create_task):
    assert penalise(trainer, Outcome.MISSED) == 60
    task_id = create_task()
    assert registry.claimSlot(task_id, Role.TRAINER, {"from": trainer}).return_value == 0


def test_failed_claim_locks_nothing(registry, stakes, penalise, samplers, create_task):
    task_id = create_task()
    penalise(samplers[1])
    with brownie.reverts(f"ReputationTooLow: {samplers[1].address.lower()}, 50, 60"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[1]})
    assert stakes.stakeOf(samplers[1], Role.SAMPLER)["locked"] == 0
