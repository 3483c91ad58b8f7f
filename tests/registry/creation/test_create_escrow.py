"""createTask pulls the bounty into the RewardVault and records it as the task's escrow."""

TOKEN = 10**18


def test_bounty_moves_from_requester_to_vault(staked, token, vault, registry, requester, create_task):
    before = token.balanceOf(requester)
    create_task()
    assert token.balanceOf(requester) == before - 10_000 * TOKEN
    assert token.balanceOf(vault) == 10_000 * TOKEN
    assert token.balanceOf(registry) == 0


def test_escrow_recorded_for_task(staked, vault, create_task):
    task_id = create_task()
    assert vault.escrowOf(task_id) == 10_000 * TOKEN
    assert vault.totalEscrow() == 10_000 * TOKEN
    assert vault.claimableOf(staked.registry) == 0


def test_deposited_event_names_task_and_amount(staked, token, registry, requester, task_params):
    token.approve(registry, task_params.bounty, {"from": requester})
    tx = registry.createTask(task_params.as_tuple(), {"from": requester})
    assert [int(x) for x in tx.events["Deposited"].values()] == [1, 10_000 * TOKEN]
    transfer = tx.events["Transfer"]
    assert [transfer["from"], transfer["to"], transfer["value"]] == [requester, staked.vault, 10_000 * TOKEN]


def test_allowance_consumed_exactly(staked, token, registry, requester, task_params):
    token.approve(registry, task_params.bounty + 5, {"from": requester})
    registry.createTask(task_params.as_tuple(), {"from": requester})
    assert token.allowance(requester, registry) == 5


def test_task_ids_are_sequential_and_counted(staked, registry, vault, create_task, state):
    assert state.taskCount() == 0
    ids = [create_task() for _ in range(3)]
    assert ids == [1, 2, 3]
    assert state.taskCount() == 3
    assert [vault.escrowOf(i) for i in ids] == [10_000 * TOKEN] * 3
    assert vault.totalEscrow() == 30_000 * TOKEN
