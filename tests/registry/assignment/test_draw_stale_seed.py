"""A seed block older than 256 blocks has no hash: the draw re-arms instead of drawing from zero."""

from brownie import web3

from workers.protocol import Status


def mine(blocks: int) -> None:
    """`blocks` empty blocks in one request (brownie's chain.mine sends one evm_mine per block, and
    records each: ~50 ms a block)."""
    web3.provider.make_request("anvil_mine", [hex(blocks)])


def test_stale_seed_rearms_without_drawing(registry, outsider, drawing_task, state):
    task_id = drawing_task()
    old_seed = state.taskOf(task_id)["seedBlock"]
    mine(260)
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert "SlotAssigned" not in tx.events
    assert [int(x) for x in tx.events["DrawArmed"].values()] == [task_id, tx.block_number + 1]
    task = state.taskOf(task_id)
    assert [task["status"], task["filledValidators"]] == [Status.DRAWING, 0]
    assert task["seedBlock"] == tx.block_number + 1 > old_seed


def test_fresh_seed_after_rearm_draws(registry, outsider, drawing_task, state):
    task_id = drawing_task()
    mine(260)
    registry.drawValidators(task_id, {"from": outsider})
    mine(2)
    registry.drawValidators(task_id, {"from": outsider})
    task = state.taskOf(task_id)
    assert [task["status"], task["filledValidators"]] == [Status.ACTIVE, 3]


def test_seed_exactly_256_blocks_old_still_draws(registry, outsider, drawing_task, state):
    task_id = drawing_task()  # mined 2 blocks after arming: the seed block is 1 block old
    seed_block = state.taskOf(task_id)["seedBlock"]
    mine(seed_block + 255 - web3.eth.block_number)
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert tx.block_number - seed_block == 256
    assert state.taskOf(task_id)["filledValidators"] == 3
