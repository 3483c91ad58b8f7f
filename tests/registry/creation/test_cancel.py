"""cancelTask before the rounds start refunds the whole bounty to the requester's claimable
balance, unlocks every claimed stake and settles the task as Cancelled."""

from workers.protocol import Role, Status

TOKEN = 10**18


def test_open_task_refunds_whole_bounty(registry, vault, requester, create_task, state):
    task_id = create_task()
    tx = registry.cancelTask(task_id, {"from": requester})
    assert vault.escrowOf(task_id) == 0
    assert vault.claimableOf(requester) == 10_000 * TOKEN
    assert [tx.events["Refunded"][k] for k in ("taskId", "account", "amount")] == [task_id, requester, 10_000 * TOKEN]
    assert state.taskOf(task_id)["status"] == Status.CANCELLED


def test_task_settled_event_with_cancelled_status(registry, requester, create_task):
    task_id = create_task()
    tx = registry.cancelTask(task_id, {"from": requester})
    ev = tx.events["TaskSettled"]
    assert [ev["taskId"], ev["status"], ev["refund"]] == [task_id, Status.CANCELLED, 10_000 * TOKEN]
    assert [int(x) for x in ev["paidByRole"]] == [0, 0, 0]
    assert [int(x) for x in tx.events["TaskStatusChanged"].values()] == [task_id, Status.CANCELLED]


def test_claimed_stakes_are_unlocked(staked, registry, stakes, requester, samplers, trainer, create_task):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    tx = registry.cancelTask(task_id, {"from": requester})
    unlocked = [(e["node"], e["role"], e["amount"]) for e in tx.events["StakeUnlocked"]]
    assert unlocked == [(samplers[0], Role.SAMPLER, 100 * TOKEN), (trainer, Role.TRAINER, 500 * TOKEN)]
    assert stakes.stakeOf(samplers[0], Role.SAMPLER)["locked"] == 0
    assert stakes.stakeOf(trainer, Role.TRAINER)["locked"] == 0
    assert stakes.availableStake(trainer, Role.TRAINER) == 5 * 500 * TOKEN


def test_drawing_task_can_be_cancelled(staked, registry, stakes, vault, requester, samplers, trainer, create_task,
                                       state):
    task_id = create_task()
    for s in samplers:
        registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    assert state.taskOf(task_id)["status"] == Status.DRAWING
    registry.cancelTask(task_id, {"from": requester})
    assert state.taskOf(task_id)["status"] == Status.CANCELLED
    assert vault.claimableOf(requester) == 10_000 * TOKEN
    assert [stakes.stakeOf(s, Role.SAMPLER)["locked"] for s in samplers] == [0, 0]


def test_refund_can_be_withdrawn(token, registry, vault, requester, create_task):
    before = token.balanceOf(requester)
    task_id = create_task()
    registry.cancelTask(task_id, {"from": requester})
    vault.withdraw(requester, 10_000 * TOKEN, {"from": requester})
    assert token.balanceOf(requester) == before
    assert token.balanceOf(vault) == 0
