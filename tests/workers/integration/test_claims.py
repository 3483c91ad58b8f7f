"""The claim handler against a real chain, called in this process as the nodes would run it: a
claim takes a slot; a second delivery, a full task, the requester's own task, a task whose spec
does not match its digest and an ineligible node send nothing (the chain's checks decide, at the
gas estimate), and an ineligible node says why in its log."""
import logging

import pytest
from network import SPEC, TASK, TOKEN, Network, as_node, create_task, task_created

from workers.node.handlers import assignment_handlers
from workers.protocol import Role, Status, TaskParams
from workers.spec import SpecError
from workers.storage.store import EmbeddedStore

ROLES = [("sampler0", "sampler"), ("sampler1", "sampler"), ("sampler2", "sampler")]


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    network = Network(tmp_path_factory.mktemp("claims-network"), ROLES)
    s0, d = network.node("sampler0"), network.deployment
    s0.sender.send(d.token.functions.approve(d.stakes.address, 1000 * TOKEN))  # a slot in every task here
    s0.sender.send(d.stakes.functions.stake(Role.SAMPLER, 1000 * TOKEN))
    yield network
    network.stop()


def create(net, requester=None, num_samplers=1) -> int:
    return create_task(net, requester, num_samplers=num_samplers)


def sent(node) -> int:
    return node.sender.w3.eth.get_transaction_count(node.address)


def claim(net, node, task_id):
    created = task_created(net, task_id, "sampler")
    with as_node(node) as ctx:
        assignment_handlers.claim_sampler(ctx, created)


def test_claim_takes_a_slot_once(net):
    task_id = create(net)
    s0 = net.node("sampler0")
    claim(net, s0, task_id)
    m = net.deployment.state.functions.membershipOf(task_id, s0.address).call()
    assert m.assigned and Role(m.role) == Role.SAMPLER
    before = sent(s0)
    claim(net, s0, task_id)  # a second delivery: AlreadyAssigned at the estimate
    assert sent(s0) == before


def test_a_full_task_is_not_claimed(net):
    task_id = create(net)
    claim(net, net.node("sampler0"), task_id)
    s1 = net.node("sampler1")
    before = sent(s1)
    claim(net, s1, task_id)  # NoVacantSlot: a lost race, not an error
    assert sent(s1) == before
    assert not net.deployment.state.functions.membershipOf(task_id, s1.address).call().assigned


def test_the_requester_does_not_claim_its_own_task(net):
    s1 = net.node("sampler1")
    d = net.deployment
    net.w3.eth.wait_for_transaction_receipt(  # sampler1 funds a bounty from its own DRL
        d.token.functions.transfer(s1.address, 100 * TOKEN).transact({"from": net.admin}))
    s1.sender.send(d.token.functions.approve(d.registry.address, 100 * TOKEN))
    params = TaskParams(EmbeddedStore(net.store_dir).put(SPEC.to_bytes()), SPEC.digest(), 100 * TOKEN, **TASK)
    s1.sender.send(d.registry.functions.createTask(params.as_tuple()))
    task_id = d.state.functions.taskCount().call()
    before = sent(s1)
    claim(net, s1, task_id)
    assert sent(s1) == before


def test_a_task_whose_spec_does_not_match_its_digest_is_not_claimed(net):
    d, s0 = net.deployment, net.node("sampler0")
    wrong = bytes(31) + b"\x01"
    params = TaskParams(EmbeddedStore(net.store_dir).put(SPEC.to_bytes()), wrong, 100 * TOKEN, **TASK)
    net.w3.eth.wait_for_transaction_receipt(
        d.token.functions.approve(d.registry.address, params.bounty).transact({"from": net.admin}))
    net.w3.eth.wait_for_transaction_receipt(
        d.registry.functions.createTask(params.as_tuple()).transact({"from": net.admin}))
    task_id = d.state.functions.taskCount().call()
    before = sent(s0)
    with pytest.raises(SpecError, match="specDigest"):
        claim(net, s0, task_id)
    assert sent(s0) == before


def test_an_ineligible_node_says_why_and_sends_nothing(net, caplog):
    s2 = net.node("sampler2")
    d = net.deployment
    staked = d.stakes.functions.stakeOf(s2.address, Role.SAMPLER).call().staked
    s2.sender.send(d.stakes.functions.requestUnstake(Role.SAMPLER, staked))
    task_id = create(net)
    before = sent(s2)
    with caplog.at_level(logging.WARNING, logger="workers.node.handlers.assignment_handlers"):
        claim(net, s2, task_id)
    assert sent(s2) == before
    assert not d.state.functions.membershipOf(task_id, s2.address).call().assigned
    assert f"task {task_id}: not claiming the sampler slot: stake too low" in caplog.text


# -- the node's market policy (workers.node.market): what it is paid and what it can finish --------

def claim_priced(net, node, task_id, **settings):
    """The claim as `node` runs it with these NodeSettings (its prices, its margin) instead."""
    import dataclasses

    created = task_created(net, task_id, "sampler")
    with as_node(node) as ctx:
        ctx.settings = dataclasses.replace(ctx.settings, **settings)
        assignment_handlers.claim_sampler(ctx, created)


def passed_over(node):
    from workers.node.market.book import MarketBook

    return {(p.task_id, p.code): p.text for p in MarketBook(node.node_dir).passed_over()}


def test_a_bounty_under_the_nodes_price_is_not_claimed(net):
    s1 = net.node("sampler1")
    task_id = create(net)  # 100 DRL, 1 round, 1 sampler: the sampler slot pays 20 DRL for 256 steps
    before = sent(s1)
    claim_priced(net, s1, task_id, price_sampler=100 * TOKEN)  # asks 25.6 DRL
    assert sent(s1) == before
    assert not net.deployment.state.functions.membershipOf(task_id, s1.address).call().assigned
    assert passed_over(s1)[(task_id, "priced-out")] == ("bounty share 20 DRL/round < price 25.6 DRL for 256 steps "
                                                        "(100 DRL per 1k)")
    claim_priced(net, s1, task_id, price_sampler=50 * TOKEN)  # 12.8 DRL: covered
    assert net.deployment.state.functions.membershipOf(task_id, s1.address).call().assigned


def test_shards_it_cannot_roll_out_in_the_commit_window_are_not_claimed_and_cost_it_nothing(net):
    """The issue's case: a spec within the spec's limits whose shards no sampler here rolls out in
    its commit window. The honest sampler does not claim it; the task fails at its claim deadline,
    the requester gets the bounty back, and the sampler keeps its reputation and its stake."""
    import dataclasses

    d, s0 = net.deployment, net.node("sampler0")
    huge = dataclasses.replace(SPEC, steps_per_shard=10_000_000)
    params = TaskParams(EmbeddedStore(net.store_dir).put(huge.to_bytes()), huge.digest(), 100 * TOKEN,
                        **{**TASK, "commit_window": 120})
    net.w3.eth.wait_for_transaction_receipt(
        d.token.functions.approve(d.registry.address, params.bounty).transact({"from": net.admin}))
    net.w3.eth.wait_for_transaction_receipt(
        d.registry.functions.createTask(params.as_tuple()).transact({"from": net.admin}))
    task_id = d.state.functions.taskCount().call()
    score = d.reputation.functions.scoreOf(s0.address).call()
    stake = d.stakes.functions.stakeOf(s0.address, Role.SAMPLER).call()
    before = sent(s0)
    claim(net, s0, task_id)
    assert sent(s0) == before
    assert not d.state.functions.membershipOf(task_id, s0.address).call().assigned
    why = passed_over(s0)[(task_id, "infeasible")]
    assert why.startswith("shards of 10M steps need ~") and why.endswith(
        "commit window 120 s (at most 0.5 of it is used)")
    # nobody else claims it either: it fails at its claim deadline and the requester is refunded
    refund_to = d.vault.functions.claimableOf(net.admin).call()
    deadline = d.state.functions.taskOf(task_id).call().claimDeadline
    net.w3.provider.make_request("evm_increaseTime", [deadline - d.registry.functions.protocolTime().call() + 1])
    net.w3.provider.make_request("evm_mine", [])
    net.w3.eth.wait_for_transaction_receipt(d.registry.functions.advance(task_id).transact({"from": net.admin}))
    assert d.state.functions.taskOf(task_id).call().status == Status.FAILED
    assert d.vault.functions.claimableOf(net.admin).call() - refund_to == params.bounty
    assert d.reputation.functions.scoreOf(s0.address).call() == score
    assert d.stakes.functions.stakeOf(s0.address, Role.SAMPLER).call() == stake
