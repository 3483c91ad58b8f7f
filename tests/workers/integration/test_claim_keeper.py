"""The claim-window keeper, called in this process as a validator node runs it: TaskCreated
schedules a ClaimDeadlineReached check FIRST_CLAIM_CHECK_S ahead without reading the chain; a
check before the claim deadline reschedules itself to it; past the deadline a task nobody filled
is failed with advance() and its requester refunded; a second delivery sends nothing; a task no
longer open is left alone; with keeper turns, a validator whose turn is later waits for it first."""
import dataclasses

import pytest
from network import TOKEN, Network, as_node, create_task, handled

from workers.node.handlers import keeper_handlers, keeper_turns
from workers.protocol import Status

BOUNTY = 100 * TOKEN


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    network = Network(tmp_path_factory.mktemp("claim-keeper-network"),
                      [("validator0", "validator"), ("validator1", "validator")])
    yield network
    network.stop()


@pytest.fixture
def scheduled(monkeypatch):
    """The checks the handlers schedule, as (event name, key, args, countdown), instead of Celery."""
    out = []
    monkeypatch.setattr(keeper_handlers, "schedule_check",
                        lambda ctx, name, key, args, countdown=None: out.append((name, key, args, countdown)))
    return out


def open_task(net) -> int:
    return create_task(net, bounty=BOUNTY, claim_window=60)


def test_an_unfilled_task_is_failed_at_its_claim_deadline(net, scheduled):
    d = net.deployment
    task_id = open_task(net)
    validator = net.node("validator0")
    with as_node(validator) as ctx:
        keeper_handlers.keep_claim_window(ctx, handled("TaskCreated", "validator", taskId=task_id))
        [(name, key, args, countdown)] = scheduled
        assert (name, key, countdown) == ("ClaimDeadlineReached", f"claim-deadline:{task_id}:0",
                                          keeper_handlers.FIRST_CLAIM_CHECK_S)
        assert args == {"taskId": task_id, "hop": 0, "origin": args["origin"]}
        deadline = ctx.view.task(task_id).claim_deadline

        protocol_time = d.registry.functions.protocolTime().call
        before = protocol_time()
        keeper_handlers.claim_deadline_reached(ctx, handled("ClaimDeadlineReached", "validator", **args))  # early
        # the network's block ticker may mine between the handler's read and ours, and the handler
        # reads protocol time at the pending block (ChainView.protocol_time), a second past the
        # latest one once the clock has moved on
        after = protocol_time(block_identifier="pending")
        assert ctx.view.task(task_id).status == Status.OPEN
        name, key, again, countdown = scheduled[-1]
        assert (key, again["hop"]) == (f"claim-deadline:{task_id}:1", 1)
        assert deadline - after + 1 <= countdown <= deadline - before + 1 and 0 < countdown <= 62

        refund_before = d.vault.functions.claimableOf(net.admin).call()
        net.w3.provider.make_request("evm_increaseTime", [deadline - d.registry.functions.protocolTime().call() + 1])
        net.w3.provider.make_request("evm_mine", [])
        keeper_handlers.claim_deadline_reached(ctx, handled("ClaimDeadlineReached", "validator", **again))
        assert ctx.view.task(task_id).status == Status.FAILED
        assert d.vault.functions.claimableOf(net.admin).call() == refund_before + BOUNTY
        sent = ctx.sender.stats["sent"]
        redelivered = handled("ClaimDeadlineReached", "validator", **again)
        keeper_handlers.claim_deadline_reached(ctx, redelivered)  # delivered again
        assert ctx.sender.stats["sent"] == sent and len(scheduled) == 2


def test_the_creation_reads_nothing_and_a_task_no_longer_open_is_left_alone(net, scheduled, monkeypatch):
    task_id = open_task(net)
    d = net.deployment
    net.w3.eth.wait_for_transaction_receipt(d.registry.functions.cancelTask(task_id).transact({"from": net.admin}))
    with as_node(net.node("validator0")) as ctx:
        with monkeypatch.context() as no_chain:
            no_chain.setattr(ctx.view, "task", lambda *a: pytest.fail("read the task at its creation"))
            no_chain.setattr(ctx.view, "read", lambda *a: pytest.fail("read the chain at a task's creation"))
            keeper_handlers.keep_claim_window(ctx, handled("TaskCreated", "validator", taskId=task_id))
        [(_, _, args, _)] = scheduled
        keeper_handlers.claim_deadline_reached(ctx, handled("ClaimDeadlineReached", "validator", **args))
        assert len(scheduled) == 1 and ctx.sender.stats["sent"] == 0


def test_with_turns_a_validator_in_a_later_turn_fails_the_task_only_after_its_turn(net, scheduled, monkeypatch):
    d = net.deployment
    validators = [net.node("validator0"), net.node("validator1")]
    pool = d.stakes.functions.validatorCount().call()
    for _ in range(10):  # a task for which one of the two is in a later turn (3 in 4 are)
        task_id = open_task(net)
        deadline = d.state.functions.taskOf(task_id).call().claimDeadline
        subject = b"advance" + task_id.to_bytes(32, "big") + deadline.to_bytes(32, "big")
        late = max(validators, key=lambda v: keeper_turns.turn_of(subject, v.address, pool))
        turn = keeper_turns.turn_of(subject, late.address, pool)
        if turn > 0:
            break
    net.w3.provider.make_request("evm_increaseTime", [deadline - d.registry.functions.protocolTime().call() + 1])
    net.w3.provider.make_request("evm_mine", [])
    with as_node(late) as ctx:
        monkeypatch.setattr(ctx, "settings", dataclasses.replace(ctx.settings, keeper_turn_blocks=2))
        due = handled("ClaimDeadlineReached", "validator", taskId=task_id, hop=3, origin="o")
        keeper_handlers.claim_deadline_reached(ctx, due)
        assert ctx.view.task(task_id).status == Status.OPEN and ctx.sender.stats["sent"] == 0
        [(name, key, args, countdown)] = scheduled
        assert (name, key, args) == ("ClaimDeadlineReached", f"claim-deadline:{task_id}:4",
                                     {"taskId": task_id, "hop": 4, "origin": "o", "turn_waited": True})
        assert countdown == pytest.approx(turn * 2 * keeper_turns.block_interval_s(ctx)) and countdown > 0
        keeper_handlers.claim_deadline_reached(ctx, handled("ClaimDeadlineReached", "validator", **args))  # its turn
        assert ctx.view.task(task_id).status == Status.FAILED and len(scheduled) == 1
