"""The validator draw's keeper (assignment_handlers.draw), called in this process as a validator node runs it,
on a chain that mines only when asked (no ticker): the draw is sent as soon as its seed block is
mined and lands in the very next block; before the seed block exists it is not ready (a retry,
nothing sent). The local network's ticker mines the seed block as soon as the draw is armed."""
import time

import pytest

from network import TOKEN, Network, as_node, create_task, handled, task_created
from workers.localnet.chain import Ticker
from workers.node import assignment_handlers
from workers.node.dispatch import RetryableError
from workers.protocol import Role, Status


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    network = Network(tmp_path_factory.mktemp("draw-network"),
                      [("sampler0", "sampler"), ("trainer0", "trainer"), ("validator0", "validator")], tick_s=0)
    d = network.deployment
    for name, role in (("sampler0", Role.SAMPLER), ("trainer0", Role.TRAINER)):  # a slot in each test's task
        node = network.node(name)
        node.sender.send(d.token.functions.approve(d.stakes.address, 1000 * TOKEN))
        node.sender.send(d.stakes.functions.stake(role, 1000 * TOKEN))
    yield network
    network.stop()


def filled_task(net) -> int:
    """A task whose sampler and trainer slots are taken: its draw is armed on the next block."""
    task_id = create_task(net)
    with as_node(net.node("sampler0")):
        assignment_handlers.claim_sampler(task_created(net, task_id, "sampler"))
    with as_node(net.node("trainer0")):
        assignment_handlers.claim_trainer(task_created(net, task_id, "trainer"))
    return task_id


def test_the_draw_lands_in_the_block_after_its_seed_block(net, monkeypatch):
    monkeypatch.setattr(assignment_handlers, "DRAW_WAIT_S", 0.2)
    task_id = filled_task(net)
    validator = net.node("validator0")
    with as_node(validator) as ctx:
        task = ctx.view.task(task_id)
        assert task.status == Status.DRAWING and task.seed_block == net.w3.eth.block_number + 1
        armed = handled("DrawArmed", "validator", taskId=task_id, seedBlock=task.seed_block)

        sent = net.w3.eth.get_transaction_count(validator.address)
        with pytest.raises(RetryableError, match="DrawNotReady"):  # the seed block is not mined yet
            assignment_handlers.draw(armed)
        assert net.w3.eth.get_transaction_count(validator.address) == sent

        net.w3.provider.make_request("evm_mine", [])  # the seed block: the head now
        assignment_handlers.draw(armed)
        assert ctx.view.task(task_id).status == Status.ACTIVE
        assert net.w3.eth.block_number == task.seed_block + 1  # no block waited for beyond the seed


def test_the_ticker_mines_the_seed_block_as_soon_as_a_draw_is_armed(net):
    ticker = Ticker(net.w3, 3600.0, ws_url=net.anvil.ws_url)  # no tick in this test: only the draw's block
    try:
        task_id = filled_task(net)
        seed_block = net.deployment.registry.functions.taskOf(task_id).call().seedBlock
        deadline = time.monotonic() + 5
        while net.w3.eth.block_number < seed_block and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # no second block follows
        assert net.w3.eth.block_number == seed_block
    finally:
        ticker.stop()
