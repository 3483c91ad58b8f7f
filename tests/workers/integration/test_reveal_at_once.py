"""A commit that completes its phase starts the reveal phase in the same transaction, and the node
that sent it reveals at once: through the handlers called in this process as the nodes of a
network whose processes are not started (1 sampler, 1 trainer, 1 validator), SampleReveal and
TrainReveal end with no PhaseStarted handler of theirs run; the reveal phase's handler, when its
event then comes, finds nothing to do and sends nothing. Likewise the validator's vote commit that
ends Attest opens its vote at once (AttestReveal ends without its handler)."""
from unittest import mock

import pytest
from network import Network, as_node, create_task, task_created
from network import handled as event

from workers.node.handlers import assignment_handlers, round_handlers, validator_handlers
from workers.protocol import Phase, Role, Status


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    roles = [("sampler0", "sampler"), ("trainer", "trainer"), ("validator0", "validator")]
    network = Network(tmp_path_factory.mktemp("reveal-network"), roles)
    yield network
    network.stop()


@pytest.fixture(scope="module")
def task_id(net):
    """An active task in round 0's SampleCommit."""
    task_id = create_task(net)
    with as_node(net.node("sampler0")) as ctx:
        assignment_handlers.claim_sampler(ctx, task_created(net, task_id, "sampler"))
    with as_node(net.node("trainer")) as ctx:
        assignment_handlers.claim_trainer(ctx, task_created(net, task_id, "trainer"))
    with as_node(net.node("validator0")) as ctx:
        assignment_handlers.draw(ctx, event("DrawArmed", "validator", taskId=task_id,
                                       seedBlock=ctx.view.task(task_id).seed_block))
        assert (ctx.view.task(task_id).round, ctx.view.task(task_id).phase) == (0, Phase.SAMPLE_COMMIT)
    return task_id


def phase_started(role: str, task_id: int, which: Phase):
    return event("PhaseStarted", role, taskId=task_id, round=0, phase=int(which))


@pytest.mark.parametrize("role, commit, reveal, next_phase", [
    ("sampler", Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL, Phase.TRAIN_COMMIT),
    ("trainer", Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL, Phase.ATTEST),
])
def test_the_commit_that_ends_its_phase_is_revealed_at_once(net, task_id, role, commit, reveal, next_phase):
    if role == "trainer":  # the round's sampling first (done already when the sampler case ran)
        with as_node(net.node("sampler0")) as ctx:
            round_handlers.sampler_phase(ctx, phase_started("sampler", task_id, Phase.SAMPLE_COMMIT))
    node = net.node({"sampler": "sampler0", "trainer": "trainer"}[role])
    handler = {"sampler": round_handlers.sampler_phase, "trainer": round_handlers.trainer_phase}[role]
    with as_node(node) as ctx:
        handler(ctx, phase_started(role, task_id, commit))
        task = ctx.view.task(task_id)
        assert (task.round, task.phase) == (0, next_phase)
        submission = next(s for s in ctx.view.submissions(task_id, 0) if s.role == Role[role.upper()])
        assert submission.revealed
        sent = ctx.sender.stats["sent"]
        handler(ctx, phase_started(role, task_id, reveal))  # the reveal phase's own event, late
        assert ctx.sender.stats["sent"] == sent


def test_the_vote_commit_that_ends_attest_is_opened_at_once(net, task_id):
    """After the trainer's case round 0 is in Attest, with one validator."""
    with as_node(net.node("validator0")) as ctx, mock.patch.object(validator_handlers, "schedule_deadline"):
        assert ctx.view.task(task_id).phase == Phase.ATTEST
        validator_handlers.validator_phase(ctx, phase_started("validator", task_id, Phase.ATTEST))
        assert ctx.secrets.vote(task_id, 0) is not None  # stored before the commit
        vote = ctx.view.read(ctx.deployment.registry, "attestationOf", task_id, 0, 0)
        assert vote.voted and vote.acceptBitmap == ctx.secrets.vote(task_id, 0).bitmap
        assert ctx.view.task(task_id).status == Status.COMPLETED  # opened, so its one round was decided
        sent = ctx.sender.stats["sent"]
        validator_handlers.validator_phase(ctx, phase_started("validator", task_id, Phase.ATTEST_REVEAL))  # late
        assert ctx.sender.stats["sent"] == sent
