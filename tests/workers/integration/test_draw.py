"""The validator draw's keeper (assignment_handlers.draw), called in this process as a validator node runs it,
on a chain that mines only when asked (no ticker): the draw is sent as soon as its seed block is
mined and lands in the very next block; before the seed block exists it is not ready (a retry,
nothing sent). With keeper turns, the pool's validators send in turn and only the first turn's
do. The local network's ticker mines the seed block as soon as the draw is armed."""
import dataclasses
import time

import pytest
from network import Network, as_node, create_task, handled, task_created

from workers.localnet.chain import Ticker
from workers.node.handlers import assignment_handlers, keeper_turns
from workers.node.handlers.keeper_turns import MAX_TURNS, turn_of
from workers.node.queues.dispatch import Deferred, RetryableError
from workers.protocol import Role, Status

TASKS_AT_MOST = 12
"""The tasks this module creates at most: one in the first and the last test, up to 10 in the second."""


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    network = Network(tmp_path_factory.mktemp("draw-network"),
                      [("sampler0", "sampler"), ("trainer0", "trainer"), ("validator0", "validator"),
                       ("validator1", "validator"), ("validator2", "validator")], tick_s=0)
    d = network.deployment
    for name, role in (("sampler0", Role.SAMPLER), ("trainer0", Role.TRAINER), ("validator0", Role.VALIDATOR),
                       ("validator1", Role.VALIDATOR), ("validator2", Role.VALIDATOR)):
        node = network.node(name)
        # each claim or draw locks the role's minimum stake until its task ends, and these tasks never end
        more = (TASKS_AT_MOST * d.stakes.functions.minStake(role).call()
                - d.stakes.functions.availableStake(node.address, role).call())
        node.sender.send(d.token.functions.approve(d.stakes.address, more))
        node.sender.send(d.stakes.functions.stake(role, more))
    yield network
    network.stop()


def filled_task(net) -> int:
    """A task whose sampler and trainer slots are taken: its draw is armed on the next block."""
    task_id = create_task(net)
    with as_node(net.node("sampler0")) as ctx:
        assignment_handlers.claim_sampler(ctx, task_created(net, task_id, "sampler"))
    with as_node(net.node("trainer0")) as ctx:
        assignment_handlers.claim_trainer(ctx, task_created(net, task_id, "trainer"))
    return task_id


def test_the_draw_lands_in_the_block_after_its_seed_block(net, monkeypatch):
    monkeypatch.setattr(keeper_turns, "WAIT_IN_PLACE_S", 0.2)
    task_id = filled_task(net)
    validator = net.node("validator0")
    with as_node(validator) as ctx:
        task = ctx.view.task(task_id)
        assert task.status == Status.DRAWING and task.seed_block == net.w3.eth.block_number + 1
        armed = handled("DrawArmed", "validator", taskId=task_id, seedBlock=task.seed_block)

        sent = net.w3.eth.get_transaction_count(validator.address)
        with pytest.raises(RetryableError, match="DrawNotReady"):  # the seed block is not mined yet
            assignment_handlers.draw(ctx, armed)
        assert net.w3.eth.get_transaction_count(validator.address) == sent

        net.w3.provider.make_request("evm_mine", [])  # the seed block: the head now
        assignment_handlers.draw(ctx, armed)
        assert ctx.view.task(task_id).status == Status.ACTIVE
        assert net.w3.eth.block_number == task.seed_block + 1  # no block waited for beyond the seed


def test_with_turns_the_pool_draws_once_in_its_first_held_turn(net, monkeypatch):
    """Three validators, turns of 2 blocks: at each block of the draw, every validator's keeper
    runs; one whose turn has not come defers and sends nothing, so the draw is sent by a validator
    of the first turn any of them holds, and by no one else."""
    monkeypatch.setattr(keeper_turns, "WAIT_IN_PLACE_S", 0.2)
    d, validators = net.deployment, [net.node(f"validator{i}") for i in range(3)]
    pool = d.stakes.functions.validatorCount().call()
    for _ in range(10):  # a draw whose validators do not all share one turn (8 in 9 do)
        task_id = filled_task(net)
        seed_block = d.state.functions.taskOf(task_id).call().seedBlock
        armed = handled("DrawArmed", "validator", taskId=task_id, seedBlock=seed_block)
        net.w3.provider.make_request("evm_mine", [])  # the seed block
        subject = b"drawValidators" + task_id.to_bytes(32, "big") + seed_block.to_bytes(32, "big")
        turns = {v.address: turn_of(subject, v.address, pool) for v in validators}
        if len(set(turns.values())) > 1:
            break
        with as_node(validators[0]) as ctx:
            assignment_handlers.draw(ctx, armed)  # no turns on this chain: drawn at once, out of the way
    nonces = {v.address: net.w3.eth.get_transaction_count(v.address) for v in validators}
    deferred = {v.address: 0 for v in validators}
    for turn in range(MAX_TURNS + 1):
        for validator in sorted(validators, key=lambda v: -turns[v.address]):
            with as_node(validator) as ctx:
                monkeypatch.setattr(ctx, "settings", dataclasses.replace(ctx.settings, keeper_turn_blocks=2))
                try:
                    assignment_handlers.draw(ctx, armed)
                except Deferred:
                    assert turns[validator.address] > turn  # only before its turn
                    deferred[validator.address] += 1
        if d.state.functions.taskOf(task_id).call().status == Status.ACTIVE:
            break
        for _ in range(2):
            net.w3.provider.make_request("evm_mine", [])
    sent = {a: net.w3.eth.get_transaction_count(a) - n for a, n in nonces.items()}
    print(f"\nturns {sorted(turns.values())}, drawn in turn {turn}, sent {sorted(sent.values())}")
    assert d.state.functions.taskOf(task_id).call().status == Status.ACTIVE
    assert turn == min(turns.values()) and sorted(sent.values()) == [0, 0, 1]
    [sender] = [a for a, n in sent.items() if n == 1]
    assert turns[sender] == turn
    # each deferred at every block of the draw before its turn (the latest turns run first)
    assert deferred == {a: min(t, turn + 1) for a, t in turns.items()}


def test_the_ticker_mines_the_seed_block_as_soon_as_a_draw_is_armed(net):
    ticker = Ticker(net.w3, 3600.0, ws_url=net.anvil.ws_url)  # no tick in this test: only the draw's block
    try:
        task_id = filled_task(net)
        seed_block = net.deployment.state.functions.taskOf(task_id).call().seedBlock
        deadline = time.monotonic() + 5
        while net.w3.eth.block_number < seed_block and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # no second block follows
        assert net.w3.eth.block_number == seed_block
    finally:
        ticker.stop()
