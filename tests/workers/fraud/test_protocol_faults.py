"""The fraud matrix, the protocol's own defences: a replayed signed task, a stake withdrawal to
dodge a slash, and a copied commitment. The cheats are sent as a dishonest party would send them
(its own transactions, with the real client code); the honest nodes run their handlers."""
import fraud_faults as faults
import pytest
from fraud_world import BOUNTY, SPEC, Cheat, FraudNet, as_node, outcome, play_round, start_task

from workers.chain.errors import TxReverted
from workers.protocol import NO_PERMIT, Outcome, Phase, Role, TaskParams, Verdict, sign_create_task


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    network = FraudNet(tmp_path_factory.mktemp("fraud-protocol"))
    try:
        for name, role in [("sampler0", "sampler"), ("trainer", "trainer"), ("validator0", "validator"),
                           ("validator1", "validator"), ("validator2", "validator")]:
            network.add_node(name, role)
        yield network
    finally:
        network.stop()


def nodes_with(net, cheater):
    return {"sampler": [net.node("sampler0"), cheater], "trainer": [net.node("trainer")],
            "validator": [net.node(f"validator{i}") for i in range(3)]}


def test_a_replayed_signed_task_is_refused_and_charges_nothing(net):
    d = net.deployment
    requester = net.account("requester", drl=2 * BOUNTY // 10**18)
    relayer = net.account("relayer", drl=0)
    requester.sender.send(d.token.functions.approve(d.registry.address, 2 * BOUNTY))
    params = TaskParams(net.spec_cid, SPEC.digest(), BOUNTY, num_samplers=2, num_validators=3, num_rounds=1,
                        claim_window=600, commit_window=600, reveal_window=600, attest_window=600)
    deadline = net.w3.eth.get_block("latest")["timestamp"] + 3600
    nonce = d.front.functions.nonces(requester.address).call()
    signature = sign_create_task(requester.account.key, params, requester.address, nonce, deadline, net.w3.eth.chain_id,
                                 d.front.address)
    call = d.front.functions.createTaskWithSig(params.as_tuple(), requester.address, deadline, signature, NO_PERMIT)
    relayer.sender.send(call)
    balance, count = d.token.functions.balanceOf(requester.address).call(), d.state.functions.taskCount().call()
    with pytest.raises(TxReverted) as replay:
        relayer.sender.send(call)
    assert replay.value.error.name == "InvalidSignature"
    assert d.token.functions.balanceOf(requester.address).call() == balance
    assert d.state.functions.taskCount().call() == count


def test_withdrawing_stake_does_not_dodge_the_slash(net):
    """The cheater holds twice the minimum stake; with its slot holding half, it tries to pull all
    of it out before its fabricated shard is judged: only the unlocked half can leave, and the slash
    takes its full share of the locked stake."""
    d = net.deployment
    minimum = d.stakes.functions.minStake(Role.SAMPLER).call()
    cheater = net.add_node("dodger", "sampler", stake=2 * minimum)
    nodes = nodes_with(net, cheater)
    task_id = net.create_task()
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    locked = d.state.functions.slotOf(task_id, Role.SAMPLER, 1).call().lockedStake
    with pytest.raises(TxReverted) as dodge:
        cheater.sender.send(d.stakes.functions.requestUnstake(Role.SAMPLER, 2 * minimum))
    assert dodge.value.error.name == "InsufficientUnlockedStake"
    cheater.sender.send(d.stakes.functions.requestUnstake(Role.SAMPLER, 2 * minimum - locked))
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes,
               Cheat("dodger", faults.SHARD, faults.fabricated_rewards, phases=(Phase.SAMPLE_COMMIT,)))
    seen = outcome(net, task_id, block)
    assert seen.vacated == {cheater.address: Outcome.REJECTED}
    assert seen.slashed == {cheater.address: locked * d.config.functions.slashBps().call() // 10_000}
    assert seen.earned[net.node("sampler0").address] > 0


def test_a_copied_commitment_cannot_be_revealed(net):
    """The copier commits the honest sampler's commitment and, at the reveal, replays the honest
    sampler's (root, cid, salt): the commitment binds the committer's address, so the reveal
    reverts; the copier has withheld its reveal, is slashed and earns nothing; the honest sampler
    is paid."""
    d = net.deployment
    copier = net.add_node("copier", "sampler")
    honest = net.node("sampler0")
    nodes = nodes_with(net, copier)
    task_id = net.create_task()
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    refused = []

    def copy_commitment(ctx, ev, role, phase):
        theirs = d.state.functions.submissionOf(task_id, 0, Role.SAMPLER, 0).call()
        copier.sender.send(d.registry.functions.commit(task_id, theirs.commitment))

    def replay_reveal(ctx, ev, role, phase):
        with as_node(honest) as ctx:
            secret = ctx.secrets.commitment(task_id, 0, Role.SAMPLER)
        with pytest.raises(TxReverted) as mismatch:
            copier.sender.send(d.registry.functions.reveal(task_id, secret.root, secret.cid, secret.salt))
        refused.append(mismatch.value.error.name)

    score = d.reputation.functions.scoreOf(copier.address).call()
    locked = d.state.functions.slotOf(task_id, Role.SAMPLER, 1).call().lockedStake
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes,
               Cheat("copier", "workers.node.handlers.round_handlers.commit_work", copy_commitment,
                     phases=(Phase.SAMPLE_COMMIT,)),
               Cheat("copier", "workers.node.handlers.round_handlers._reveal", replay_reveal,
                     phases=(Phase.SAMPLE_REVEAL,)))
    seen = outcome(net, task_id, block)
    assert refused == ["CommitmentMismatch"]
    assert seen.vacated == {copier.address: Outcome.WITHHELD}
    assert seen.slashed == {copier.address: locked * d.config.functions.slashBps().call() // 10_000}
    assert d.reputation.functions.scoreOf(copier.address).call() == score - 20
    assert copier.address not in seen.earned
    assert (copier.address, Role.SAMPLER) not in seen.verdicts
    assert seen.verdicts[(honest.address, Role.SAMPLER)] == Verdict.ACCEPTED
    assert seen.earned[honest.address] == BOUNTY * d.config.functions.roleShares().call()[Role.SAMPLER] // 10_000 // 2


@pytest.mark.parametrize("role", ["sampler", "trainer"])
def test_a_withheld_reveal_is_slashed(net, role):
    """The cheater commits honestly and never reveals (e.g. it did not like its result): at the
    reveal deadline it is vacated as Withheld, slashed slashBps of its locked stake and loses 20
    reputation. A withheld sample leaves the round to the other sampler; a withheld checkpoint
    leaves the round without one (the samplers are still judged and paid)."""
    reveal = Phase.SAMPLE_REVEAL if role == "sampler" else Phase.TRAIN_REVEAL
    withheld_round(net, role, f"withholding-{role}", f"sampler-for-{role}", reveal)


@pytest.mark.parametrize("role", ["sampler", "trainer"])
def test_a_withheld_draw_is_slashed(net, role):
    """The cheater works and reveals honestly but never opens its forced-error draw (it would rather
    not show whether it was forced, SPECIFICATION.md 5.5.3): at the AttestReveal deadline it is
    vacated as Withheld, slashed slashBps of its locked stake, loses 20 reputation and is not paid
    for the round; the other workers are judged and paid as usual."""
    withheld_round(net, role, f"draw-withholding-{role}", f"sampler-beside-{role}", Phase.ATTEST_REVEAL,
                   committed_draw=True)


def withheld_round(net, role: str, name: str, other_sampler: str, phase: Phase, committed_draw: bool = False):
    """One round in which a fresh `role` node `name` withholds what `phase` expects of it: it is
    vacated as Withheld, slashed slashBps of its locked stake, loses 20 reputation and earns nothing;
    every other sampler is accepted and paid its share."""
    d = net.deployment
    cheater = net.add_node(name, role)
    nodes = nodes_with(net, cheater if role == "sampler" else net.add_node(other_sampler, "sampler"))
    if role == "trainer":
        nodes["trainer"] = [cheater]
    task_id = net.create_task()
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    if committed_draw:
        assert d.state.functions.drawCommitmentOf(task_id, 0, cheater.address).call() != bytes(32), "no draw committed"
    member = d.state.functions.membershipOf(task_id, cheater.address).call()
    locked = d.state.functions.slotOf(task_id, member.role, member.slot).call().lockedStake
    score = d.reputation.functions.scoreOf(cheater.address).call()
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes, Cheat(cheater.name, withhold=(phase,)))
    seen = outcome(net, task_id, block)
    assert seen.vacated == {cheater.address: Outcome.WITHHELD}
    assert seen.slashed == {cheater.address: locked * d.config.functions.slashBps().call() // 10_000}
    assert d.reputation.functions.scoreOf(cheater.address).call() == score - 20
    assert cheater.address not in seen.earned
    share = BOUNTY * d.config.functions.roleShares().call()[Role.SAMPLER] // 10_000 // 2
    for sampler in nodes["sampler"]:
        if sampler is not cheater:
            assert seen.verdicts[(sampler.address, Role.SAMPLER)] == Verdict.ACCEPTED
            assert seen.earned[sampler.address] == share
