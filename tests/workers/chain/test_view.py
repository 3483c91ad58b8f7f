"""workers.chain.view on a real task driven by TxSenders of fresh local accounts: task, slots,
membership, submissions and eligibility with its reasons; its reads (workers.chain.calls.ViewCall)
against web3.py's own contract call: the same values, the same error for a revert."""

import dataclasses

import pytest
from chain_services import TOKEN, fund
from eth_account import Account
from web3.exceptions import ContractLogicError

from workers.chain.calls import ViewCall
from workers.chain.errors import TxReverted, is_retryable
from workers.chain.sender import TxSender
from workers.chain.view import ChainView, TaskNotFound
from workers.protocol import Phase, Role, Status, TaskParams, Verdict, commitment

SPEC_CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
MIN_STAKE = {Role.SAMPLER: 100 * TOKEN, Role.TRAINER: 500 * TOKEN, Role.VALIDATOR: 200 * TOKEN}


@pytest.fixture(scope="module")
def actors(w3, deployment, redis_server, admin):
    """Fresh accounts with ETH, tokens and a TxSender each: requester, 2 samplers, trainer, 2 validators."""
    client = redis_server.client()
    names = ["requester", "sampler0", "sampler1", "trainer", "validator0", "validator1"]
    out = {}
    for name in names:
        account = Account.create()
        fund(w3, account.address)
        w3.eth.wait_for_transaction_receipt(
            deployment.token.functions.transfer(account.address, 10_000 * TOKEN).transact({"from": admin}))
        out[name] = TxSender(w3, account, client)
    return out


def stake(deployment, sender, role, amount=None):
    amount = MIN_STAKE[role] if amount is None else amount
    sender.send(deployment.token.functions.approve(deployment.stakes.address, amount))
    sender.send(deployment.stakes.functions.stake(role, amount))


@pytest.fixture(scope="module")
def task(w3, deployment, actors):
    """Task with 2 samplers, 1 validator, claimed, drawn and active; sampler0 committed."""
    requester = actors["requester"]
    params = TaskParams(SPEC_CID, b"\x11" * 32, 1000 * TOKEN, num_samplers=2, num_validators=1, num_rounds=2)
    requester.send(deployment.token.functions.approve(deployment.registry.address, params.bounty))
    requester.send(deployment.registry.functions.createTask(params.as_tuple()))
    task_id = deployment.state.functions.taskCount().call()
    for name, role in (("sampler0", Role.SAMPLER), ("sampler1", Role.SAMPLER), ("trainer", Role.TRAINER),
                       ("validator0", Role.VALIDATOR), ("validator1", Role.VALIDATOR)):
        stake(deployment, actors[name], role)
    for name, role in (("sampler0", Role.SAMPLER), ("sampler1", Role.SAMPLER), ("trainer", Role.TRAINER)):
        actors[name].send(deployment.registry.functions.claimSlot(task_id, role))
    with pytest.raises(TxReverted) as too_early:
        actors["validator0"].send(deployment.registry.functions.drawValidators(task_id))
    for _ in range(2):  # past the seed block, also for eth_estimateGas (which runs on the latest block)
        w3.provider.make_request("evm_mine", [])
    actors["validator0"].send(deployment.registry.functions.drawValidators(task_id))
    sampler = actors["sampler0"]
    c = commitment(task_id, 0, sampler.address, b"\x22" * 32, SPEC_CID, b"\x33" * 32)
    sampler.send(deployment.registry.functions.commit(task_id, c))
    return {"id": task_id, "params": params, "commitment": c, "too_early": too_early.value}


@pytest.fixture(scope="module")
def view(deployment):
    return ChainView(deployment)


@pytest.fixture(scope="module")
def idle_validator(view, task, actors):
    """The staked validator the draw did not pick (its stake is still free)."""
    drawn = view.slots(task["id"], Role.VALIDATOR)[0].node
    return next(actors[n] for n in ("validator0", "validator1") if actors[n].address != drawn)


def test_task_fields_are_typed(view, task, actors):
    info = view.task(task["id"])
    assert (info.status, info.phase, info.round) == (Status.ACTIVE, Phase.SAMPLE_COMMIT, 0)
    assert info.requester == actors["requester"].address
    assert (info.bounty, info.spec_cid, info.spec_digest) == (1000 * TOKEN, SPEC_CID, b"\x11" * 32)
    assert (info.num_samplers, info.num_validators, info.num_rounds) == (2, 1, 2)
    assert info.shares_bps == (2000, 7000, 1000)


@pytest.mark.parametrize("status, phase_deadline, started", [
    (Status.OPEN, 0, False), (Status.DRAWING, 0, False), (Status.CANCELLED, 0, False),
    (Status.FAILED, 0, False),  # no claim by its claim deadline
    (Status.FAILED, 1234, True),  # two idle rounds
    (Status.ACTIVE, 1234, True), (Status.COMPLETED, 1234, True),
])
def test_started_means_its_rounds_began(view, task, status, phase_deadline, started):
    info = dataclasses.replace(view.task(task["id"]), status=status, phase_deadline=phase_deadline)
    assert info.started is started


def test_unknown_task_is_a_clear_error(view, task):
    with pytest.raises(TaskNotFound, match=rf"task 999 not found \(tasks 1..{task['id']} exist\)"):
        view.task(999)


def test_slots_and_membership(view, task, actors):
    slots = view.slots(task["id"])
    by_role = {(s.role, s.slot): s.node for s in slots}
    assert by_role[(Role.SAMPLER, 0)] == actors["sampler0"].address
    assert by_role[(Role.SAMPLER, 1)] == actors["sampler1"].address
    assert by_role[(Role.TRAINER, 0)] == actors["trainer"].address
    assert by_role[(Role.VALIDATOR, 0)] in (actors["validator0"].address, actors["validator1"].address)
    assert all(s.locked_stake == MIN_STAKE[s.role] for s in slots)
    member = view.membership(task["id"], actors["sampler1"].address)
    assert (member.assigned, member.role, member.slot) == (True, Role.SAMPLER, 1)
    assert not view.membership(task["id"], actors["requester"].address).assigned


def test_submissions_of_the_round(view, task, actors):
    subs = view.submissions(task["id"], 0)
    assert [(s.role, s.slot) for s in subs] == [(Role.SAMPLER, 0), (Role.SAMPLER, 1), (Role.TRAINER, 0)]
    first = subs[0]
    assert (first.node, first.commitment, first.revealed, first.verdict) == (
        actors["sampler0"].address, task["commitment"], False, Verdict.NONE)
    assert subs[1].node is None and subs[1].commitment == b"\x00" * 32


def test_draw_before_its_seed_block_is_a_retryable_revert(task):
    error = task["too_early"]
    assert error.error.name == "DrawNotReady" and is_retryable(error)


def test_eligible_account(view, idle_validator):
    e = view.eligibility(idle_validator.address, Role.VALIDATOR)
    assert (e.eligible, e.reason, e.score, e.threshold) == (True, None, 70, 60)


def test_not_eligible_without_enough_free_stake(view, actors):
    # sampler0's whole stake is locked in its slot
    e = view.eligibility(actors["sampler0"].address, Role.SAMPLER)
    assert not e.eligible
    assert e.reason == "stake too low: 0 DRL available for sampler, 100 DRL required"
    assert view.eligibility(actors["sampler0"].address, Role.TRAINER).reason.startswith("stake too low")


def test_not_eligible_while_paused(view, deployment, idle_validator):
    node = idle_validator
    node.send(deployment.stakes.functions.setNodePaused(True))
    try:
        e = view.eligibility(node.address, Role.VALIDATOR)
        assert (e.eligible, e.paused, e.reason) == (False, True, "node paused (StakeManager.setNodePaused)")
    finally:
        node.send(deployment.stakes.functions.setNodePaused(False))


def test_not_eligible_below_the_reputation_threshold(view, deployment, idle_validator, admin, w3):
    w3.eth.wait_for_transaction_receipt(deployment.reputation.functions.setThreshold(80).transact({"from": admin}))
    try:
        e = view.eligibility(idle_validator.address, Role.VALIDATOR)
        assert (e.eligible, e.reason) == (False, "reputation below threshold: score 70 < 80")
    finally:
        w3.eth.wait_for_transaction_receipt(deployment.reputation.functions.setThreshold(60).transact({"from": admin}))


def test_stake_and_claimable(view, actors):
    s = view.stake(actors["sampler0"].address, Role.SAMPLER)
    assert (s.staked, s.locked, s.available) == (100 * TOKEN, 100 * TOKEN, 0)
    assert view.claimable(actors["sampler0"].address) == 0


def reads(deployment, task_id, account):
    """(contract, function, args) of every read ChainView and the node's handlers make through it."""
    d = deployment
    return [(d.state, "taskCount", ()), (d.state, "taskOf", (task_id,)), (d.state, "taskOf", (999,)),
            *((d.state, "slotOf", (task_id, role, i))
              for role in Role for i in range(2 if role == Role.SAMPLER else 1)),
            (d.state, "membershipOf", (task_id, account)), (d.state, "submissionOf", (task_id, 0, Role.SAMPLER, 0)),
            (d.stakes, "stakeOf", (account, Role.SAMPLER)), (d.stakes, "availableStake", (account, Role.SAMPLER)),
            (d.stakes, "isNodePaused", (account,)), (d.stakes, "minStake", (Role.TRAINER,)),
            (d.registry, "attestationOf", (task_id, 0, 0)), (d.registry, "protocolTime", ()),
            (d.reputation, "scoreOf", (account,)), (d.reputation, "threshold", ()),
            (d.vault, "claimableOf", (account,))]


def test_view_calls_give_what_web3_gives(deployment, task, actors):
    for contract, name, args in reads(deployment, task["id"], actors["sampler0"].address):
        ours, theirs = ViewCall(contract, name)(*args), getattr(contract.functions, name)(*args).call()
        assert ours == theirs, (name, args)
        if hasattr(theirs, "_asdict"):  # a struct: the same field names, typed like the watcher's events
            assert ours._asdict() == theirs._asdict(), (name, args)
    info = ViewCall(deployment.state, "taskOf")(task["id"])
    assert info.status is Status.ACTIVE and info.requester == actors["requester"].address


def test_a_revert_raises_web3s_error(deployment, task):
    """A role number the contract's enum lacks makes its ABI decoder revert."""
    with pytest.raises(ContractLogicError) as theirs:
        deployment.state.functions.slotOf(task["id"], 7, 0).call()
    with pytest.raises(ContractLogicError) as ours:
        ViewCall(deployment.state, "slotOf")(task["id"], 7, 0)
    assert (str(ours.value), ours.value.data) == (str(theirs.value), theirs.value.data)


def test_a_function_the_abi_lacks_is_refused(deployment):
    with pytest.raises(ValueError, match="'noSuchRead': 0 functions"):
        ViewCall(deployment.registry, "noSuchRead")
