"""Disputes on a real network (SPECIFICATION.md 12, 13): anvil with the DisputeManager active (pay
held for a 1 h dispute window, a 10 min vote window), a real Redis, and nodes as Celery worker
processes under their Supervisors.

The disputed round is played in-process with the fraud matrix's nodes (tests/workers/fraud):
sampler1 fabricates its rewards and the task's only validator accepts everything, so both
shards are Accepted — sampler0's rightly, sampler1's wrongly. Then the honest task nodes and three
juror validators (staked after the task's draw, so the draw took the liar) run as real processes,
and the test, an outsider, disputes both verdicts. The juror nodes draw themselves (keeper),
re-verify the round, commit their votes, reveal them, settle; after the window (anvil's clock
moved) every honest node's held pay is released by its own node and `decentrl wallet claim`
withdraws it."""
import time

import fraud_faults as faults
import pytest
from click.testing import CliRunner
from dispute_world import BOND, disputes_net, start_nodes, wait_for
from fraud_world import Cheat, outcome, play_round, start_task

from workers.chain.keystore import PASSWORD_ENV
from workers.cli import cli
from workers.protocol import DisputeStatus, Evidence, Phase, Role, Status, Verdict, vote_commitment


@pytest.fixture
def net(tmp_path):
    net = disputes_net(tmp_path)
    yield net
    net.stop()


def disputed_round(net):
    """Round 0 of a one-validator task played in-process: sampler1 fabricated its rewards and the
    liar accepted everything. Three juror validators join the pool after the task's draw, each
    able to sit on two disputes. Returns (task_id, jurors, seen, block)."""
    d = net.deployment
    for name, role in [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
                       ("liar", "validator")]:
        net.add_node(name, role)
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
             "validator": [net.node("liar")]}
    task_id = net.create_task(num_validators=1)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    # Jurors join the pool after the task's draw; each can sit on two disputes (2 x minStake).
    stake = 2 * d.stakes.functions.minStake(Role.VALIDATOR).call()
    jurors = [net.add_node(f"juror{i}", "validator", stake=stake) for i in range(3)]
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes,
               Cheat("sampler1", faults.SHARD, faults.fabricated_rewards, phases=(Phase.SAMPLE_COMMIT,)),
               Cheat("liar", faults.VERIFY, faults.accept_everything, phases=(Phase.ATTEST,)))
    return task_id, jurors, outcome(net, task_id, block), block


def open_dispute(net, disputer, task_id: int, node) -> int:
    """The disputer disputes `node`'s sampler verdict of round 0, posting BOND; the dispute's id."""
    d = net.deployment
    disputer.sender.send(d.token.functions.approve(d.disputes.address, BOND))
    slot = d.state.functions.membershipOf(task_id, node.address).call().slot
    disputer.sender.send(d.disputes.functions.openDispute(task_id, 0, Role.SAMPLER, slot, BOND, Evidence.WHOLE, 0))
    return d.state.functions.disputeCount().call()


def test_jurors_judge_both_disputes_and_held_pay_reaches_the_honest(net, request):
    d = net.deployment
    task_id, jurors, seen, block = disputed_round(net)
    honest, cheat, trainer = net.node("sampler0"), net.node("sampler1"), net.node("trainer")
    assert seen.task.status == Status.COMPLETED
    assert seen.verdicts[(honest.address, Role.SAMPLER)] == Verdict.ACCEPTED
    assert seen.verdicts[(cheat.address, Role.SAMPLER)] == Verdict.ACCEPTED  # the liar's doing
    vault = d.vault.functions
    for node in (honest, trainer):
        assert vault.heldOf(task_id, 0, node.address).call() == seen.earned[node.address] > 0
        assert vault.claimableOf(node.address).call() == 0

    start_nodes(net, request, ["sampler0", "trainer", *(j.name for j in jurors)])
    disputer = net.account("disputer", drl=1000)
    registry, state = d.registry.functions, d.state.functions
    ids = {node.name: open_dispute(net, disputer, task_id, node) for node in (honest, cheat)}

    decided = (DisputeStatus.UPHELD, DisputeStatus.DISMISSED)
    settled = lambda: all(state.disputeOf(i).call().status in decided for i in ids.values())  # noqa: E731
    wait_for("both disputes settled by the jurors' votes", settled)
    assert state.disputeOf(ids["sampler0"]).call().status == DisputeStatus.DISMISSED
    assert state.disputeOf(ids["sampler1"]).call().status == DisputeStatus.UPHELD
    votes = {(e.args.disputeId, e.args.juror): e.args.uphold
             for e in d.disputes.events.JurorVoted().get_logs(from_block=block)}
    assert votes == {**{(ids["sampler0"], j.address): False for j in jurors},
                     **{(ids["sampler1"], j.address): True for j in jurors}}
    # each vote was committed hidden first: no reveal before the dispute's last commitment
    commits = d.disputes.events.JurorCommitted().get_logs(from_block=block)
    assert {(e.args.disputeId, e.args.juror) for e in commits} == set(votes)
    for dispute_id in ids.values():
        last_commit = max(e.blockNumber for e in commits if e.args.disputeId == dispute_id)
        reveals = [e.blockNumber for e in d.disputes.events.JurorVoted().get_logs(from_block=block)
                   if e.args.disputeId == dispute_id]
        assert min(reveals) > last_commit
    assert vault.heldOf(task_id, 0, cheat.address).call() == 0  # reclaimed to the requester
    assert vault.claimableOf(cheat.address).call() == 0
    for node in (honest, trainer):  # still held: the window has not passed
        assert vault.heldOf(task_id, 0, node.address).call() == seen.earned[node.address]

    window_end = state.windowEndOf(task_id, 0).call()
    net.w3.provider.make_request("evm_increaseTime", [window_end - registry.protocolTime().call() + 1])
    net.mine()
    released = lambda: all(vault.heldOf(task_id, 0, n.address).call() == 0 for n in (honest, trainer))  # noqa: E731
    wait_for("the honest nodes' held pay released by their own nodes", released, timeout=60)
    for node in (honest, trainer):
        assert vault.claimableOf(node.address).call() == seen.earned[node.address]
    releases = d.vault.events.Released().get_logs(from_block=block)
    assert {(e.args.account, e.args.amount) for e in releases} == {
        (n.address, seen.earned[n.address]) for n in (honest, trainer)}

    before = d.token.functions.balanceOf(honest.address).call()
    claim = CliRunner().invoke(cli, ["--rpc", net.anvil.http_url, "--deployment", str(net.deployment_path),
                                     "--node-dir", str(honest.node_dir), "wallet", "claim"],
                               env={PASSWORD_ENV: net.password})
    assert claim.exit_code == 0, claim.output
    assert d.token.functions.balanceOf(honest.address).call() - before == seen.earned[honest.address]
    assert vault.claimableOf(honest.address).call() == 0


def test_a_juror_that_never_commits_leaves_the_others_to_reveal_at_the_commit_deadline(net, request):
    """juror2's node never runs: the two others commit, reveal once the commit deadline passed
    (RevealDue, anvil's clock moved), and settle then without waiting for the reveal deadline;
    juror2 counts as missed."""
    d = net.deployment
    task_id, jurors, _, _ = disputed_round(net)
    cheat, absent = net.node("sampler1"), jurors[2]
    start_nodes(net, request, [j.name for j in jurors[:2]])
    registry, state = d.registry.functions, d.state.functions
    dispute_id = open_dispute(net, net.account("disputer", drl=1000), task_id, cheat)
    wait_for("two commitments", lambda: state.disputeOf(dispute_id).call().commits == 2)
    dispute = state.disputeOf(dispute_id).call()
    assert dispute.status == DisputeStatus.VOTING and dispute.upholdVotes + dispute.dismissVotes == 0
    assert absent.address in {state.jurorOf(dispute_id, s).call().node for s in range(3)}
    time.sleep(3)
    assert state.disputeOf(dispute_id).call().upholdVotes == 0  # still hidden before the deadline

    before = d.reputation.functions.scoreOf(absent.address).call()
    net.w3.provider.make_request("evm_increaseTime", [dispute.voteDeadline - registry.protocolTime().call() + 1])
    net.mine()
    settled = lambda: state.disputeOf(dispute_id).call().status == DisputeStatus.UPHELD  # noqa: E731
    wait_for("the two reveals and the settlement after the commit deadline", settled, timeout=60)
    dispute = state.disputeOf(dispute_id).call()
    assert (dispute.upholdVotes, dispute.dismissVotes) == (2, 0)
    assert registry.protocolTime().call() <= dispute.revealDeadline  # settled before the reveals closed
    assert d.reputation.functions.scoreOf(absent.address).call() == before - 10  # missed, not slashed


def test_a_juror_killed_between_its_commit_and_the_reveals_still_reveals(net, request):
    """juror0's processes are SIGKILLed after it committed and before the reveals open; the
    supervisor restarts them, the watcher takes up the last JurorCommitted from its cursor, and
    the worker reveals the vote and salt kept in the node's secrets DB (stored before the commit)."""
    d = net.deployment
    task_id, jurors, _, _ = disputed_round(net)
    cheat, killed, outsider = net.node("sampler1"), jurors[0], jurors[2]
    start_nodes(net, request, [j.name for j in jurors[:2]])  # juror2 commits from this process
    disputes, state = d.disputes.functions, d.state.functions
    dispute_id = open_dispute(net, net.account("disputer", drl=1000), task_id, cheat)
    wait_for("two commitments", lambda: state.disputeOf(dispute_id).call().commits == 2)

    for child in list(killed.sup.children):
        killed.sigkill(child)
    salt = b"\x05" * 32
    outsider.sender.send(disputes.commitVote(dispute_id, vote_commitment(dispute_id, outsider.address, True, salt)))
    outsider.sender.send(disputes.revealVote(dispute_id, True, salt))
    settled = lambda: state.disputeOf(dispute_id).call().status == DisputeStatus.UPHELD  # noqa: E731
    wait_for("every juror revealed and the dispute settled", settled, timeout=90)
    assert killed.restarts, "the supervisor restarted the killed processes"
    votes = {e.args.juror: e.args.uphold for e in d.disputes.events.JurorVoted().get_logs(from_block=0)
             if e.args.disputeId == dispute_id}
    assert votes == {j.address: True for j in jurors}
