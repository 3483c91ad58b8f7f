"""claimSlot locks exactly the role's minimum stake until the task settles."""

from workers.protocol import Role

TOKEN = 10**18


def test_stake_locked_event(staked, registry, samplers, create_task):
    task_id = create_task()
    tx = registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    ev = tx.events["StakeLocked"]
    assert [ev["node"], ev["role"], ev["amount"]] == [samplers[0], Role.SAMPLER, 100 * TOKEN]


def test_available_stake_drops_by_min_stake(staked, registry, stakes, trainer, create_task):
    before = stakes.availableStake(trainer, Role.TRAINER)
    registry.claimSlot(create_task(), Role.TRAINER, {"from": trainer})
    assert stakes.availableStake(trainer, Role.TRAINER) == before - 500 * TOKEN
    info = stakes.stakeOf(trainer, Role.TRAINER)
    assert [info["staked"], info["locked"]] == [2500 * TOKEN, 500 * TOKEN]


def test_locks_accumulate_across_tasks(staked, registry, stakes, samplers, create_task):
    for _ in range(3):
        registry.claimSlot(create_task(), Role.SAMPLER, {"from": samplers[0]})
    assert stakes.stakeOf(samplers[0], Role.SAMPLER)["locked"] == 300 * TOKEN
    assert stakes.availableStake(samplers[0], Role.SAMPLER) == 200 * TOKEN


def test_other_roles_stake_untouched(staked, registry, stakes, samplers, trainer, create_task):
    registry.claimSlot(create_task(), Role.SAMPLER, {"from": samplers[0]})
    assert stakes.stakeOf(trainer, Role.TRAINER)["locked"] == 0
    assert stakes.stakeOf(samplers[1], Role.SAMPLER)["locked"] == 0
