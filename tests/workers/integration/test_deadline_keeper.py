"""The handlers as plain functions, called in this process as the nodes of a network whose
processes are not started (no Celery, no watcher): claims, the draw, and a missed SampleCommit
deadline that DeadlineReached turns into advance(), vacating the sampler (Missed, -10); with no
sample revealed there is nothing to train on or attest, so the same advance() ends round 0 as an
idle round without expecting (or penalising) the trainer or the validator; a second delivery of
the same event does nothing. Then another sampler claims the vacated slot (SlotVacated) and,
holding it during round 1's SampleCommit, does the round's work (SlotAssigned).
The chain mines only on transactions and the test mines nothing itself: the deadline passes on the
chain's clock alone, with no block after it, as on a quiet dev chain (workers.chain.stalls)."""
import pytest
from network import Network, as_node, create_task, registry_events, task_created
from network import handled as event

from workers.node.handlers import assignment_handlers, keeper_handlers
from workers.protocol import Outcome, Phase, Role, Status


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    roles = [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
             ("validator0", "validator"), ("validator1", "validator")]
    network = Network(tmp_path_factory.mktemp("keeper-network"), roles)
    yield network
    network.stop()


@pytest.fixture(scope="module")
def idle_task(net):
    """A 1-sampler, 1-validator, 2-round task, claimed, drawn, active, and left idle past its
    SampleCommit deadline."""
    task_id = create_task(net, num_rounds=2, claim_window=60)
    with as_node(net.node("sampler0")) as ctx:
        assignment_handlers.claim_sampler(ctx, task_created(net, task_id, "sampler"))
    with as_node(net.node("trainer")) as ctx:
        assignment_handlers.claim_trainer(ctx, task_created(net, task_id, "trainer"))
    with as_node(net.node("validator0")) as ctx:
        seed_block = ctx.view.task(task_id).seed_block  # DrawArmed's own argument
        assignment_handlers.draw(ctx, event("DrawArmed", "validator", taskId=task_id, seedBlock=seed_block))
        task = ctx.view.task(task_id)
    assert (task.status, task.phase, task.round) == (Status.ACTIVE, Phase.SAMPLE_COMMIT, 0)
    past_deadline(net, task.phase_deadline)
    return task_id, task.phase_deadline


def past_deadline(net, deadline):
    """The chain's clock moves past `deadline`; no block is mined (the head keeps its timestamp)."""
    now = net.deployment.registry.functions.protocolTime().call(block_identifier="pending")
    net.w3.provider.make_request("evm_increaseTime", [deadline - now + 1])
    assert net.deployment.registry.functions.protocolTime().call() <= deadline  # at "latest": not yet


def test_missed_deadline_is_advanced_once(net, idle_task):
    task_id, deadline = idle_task
    reputation = net.deployment.reputation.functions
    sampler, trainer = net.node("sampler0").address, net.node("trainer").address
    score, trainer_score = reputation.scoreOf(sampler).call(), reputation.scoreOf(trainer).call()
    reached = event("DeadlineReached", "validator", taskId=task_id, round=0, phase=int(Phase.SAMPLE_COMMIT),
                    deadline=deadline, hop=0, origin="test")
    with as_node(net.node("validator1")) as ctx:
        keeper_handlers.deadline_reached(ctx, reached)
        after = ctx.view.task(task_id)
        keeper_handlers.deadline_reached(ctx, reached)  # delivered again: the phase is over, nothing is sent
        assert ctx.view.task(task_id) == after
    # nothing was revealed: nobody is expected in TrainCommit or Attest, round 0 ends idle
    assert (after.status, after.round, after.phase, after.idle_rounds) == (Status.ACTIVE, 1, Phase.SAMPLE_COMMIT, 1)
    events = [e for e in registry_events(net) if e.args.get("taskId") == task_id]
    vacated = [e for e in events if e.name == "SlotVacated"]
    assert [(e.args["node"], Role(e.args["role"]), Outcome(e.args["reason"])) for e in vacated] == [
        (sampler, Role.SAMPLER, Outcome.MISSED)]
    assert [(e.args["round"], bytes(e.args["checkpointRoot"])) for e in events if e.name == "RoundFinalized"] == [
        (0, b"\x00" * 32)]
    assert reputation.scoreOf(sampler).call() == score - 10
    assert reputation.scoreOf(trainer).call() == trainer_score
    assert net.deployment.state.functions.slotOf(task_id, Role.TRAINER, 0).call().node == trainer


def test_a_vacated_slot_is_claimed_and_worked_in_the_same_round(net, idle_task):
    task_id, _ = idle_task
    state = net.deployment.state
    gone, sampler1 = net.node("sampler0").address, net.node("sampler1")
    with as_node(sampler1) as ctx:
        task = ctx.view.task(task_id)
        assert (task.status, task.round, task.phase) == (Status.ACTIVE, 1, Phase.SAMPLE_COMMIT)  # round 0 idle
        assignment_handlers.reclaim_sampler(ctx, event("SlotVacated", "sampler", taskId=task_id, node=gone, role=0,
                                                       slot=0, reason=2))
        member = ctx.view.membership(task_id, sampler1.address)
        assert (member.assigned, member.role, member.slot) == (True, Role.SAMPLER, 0)
        joined = event("SlotAssigned", "sampler", taskId=task_id, node=sampler1.address, role=0, slot=0, sinceRound=1)
        assignment_handlers.sampler_joined(ctx, joined)
        sub = state.functions.submissionOf(task_id, 1, Role.SAMPLER, 0).call()
        secret = ctx.secrets.commitment(task_id, 1, Role.SAMPLER)
        assert sub.node == sampler1.address
        assert sub.commitment == state.functions.commitmentFor(
            task_id, 1, sampler1.address, secret.root, secret.cid, secret.salt).call()
        assignment_handlers.sampler_joined(ctx, joined)  # again: committed already, nothing is sent
        assert ctx.secrets.commitment(task_id, 1, Role.SAMPLER) == secret
        assert sub.revealed  # its commit was the phase's last: revealed at once
    assert ctx.sender.stats["sent"] == 3  # the claim, the commit and the reveal
