"""Work done ahead of its phase (workers.node.ahead) and the reveal right after the phase's last
commit, through the handlers called in this process as the nodes of a network whose processes are
not started: a 2-round task with 1 sampler, 1 trainer and 1 validator.

- A phase's last commit reveals at once: SampleReveal and TrainReveal end with no PhaseStarted
  handler of theirs run.
- The validator judges the revealed shard during TrainCommit, and at Attest verifies only the
  trainer, voting what it would have voted.
- During round 0's Attest the sampler rolls out its round-1 shard under the checkpoint the trainer
  revealed, and round 1's SampleCommit commits exactly that shard once the checkpoint is accepted."""
from types import SimpleNamespace

import pytest

from network import Network, as_node, create_task
from network import handled as event
from workers.node import ahead, handlers
from workers.protocol import Phase, Role, Status
from workers.storage.store import EmbeddedStore


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    roles = [("sampler0", "sampler"), ("trainer", "trainer"), ("validator0", "validator")]
    network = Network(tmp_path_factory.mktemp("ahead-network"), roles)
    yield network
    network.stop()


def phase(role: str, task_id: int, round_: int, which: Phase):
    return event("PhaseStarted", role, taskId=task_id, round=round_, phase=int(which))


@pytest.fixture(scope="module")
def flow(net):
    """Round 0 and round 1's SampleCommit, each node's handler called once, in protocol order."""
    task_id = create_task(net, num_rounds=2)
    sampler, trainer, validator = net.node("sampler0"), net.node("trainer"), net.node("validator0")
    with as_node(sampler):
        handlers.claim_sampler(event("TaskCreated", "sampler", taskId=task_id))
    with as_node(trainer):
        handlers.claim_trainer(event("TaskCreated", "trainer", taskId=task_id))
    with as_node(validator) as ctx:
        handlers.draw(event("DrawArmed", "validator", taskId=task_id, seedBlock=ctx.view.task(task_id).seed_block))
    out = SimpleNamespace(task_id=task_id)
    with pytest.MonkeyPatch.context() as patch:
        # the keeper's deadline checks are Celery messages, and no worker runs here
        patch.setattr(handlers, "_schedule_deadline", lambda *args, **kwargs: None)
        run_rounds(out, task_id, sampler, trainer, validator)
    return out


def run_rounds(out, task_id, sampler, trainer, validator):
    with as_node(sampler) as ctx:
        handlers.sampler_phase(phase("sampler", task_id, 0, Phase.SAMPLE_COMMIT))
        out.after_sampling = ctx.view.task(task_id)
    with as_node(validator) as ctx:
        handlers.validator_phase(phase("validator", task_id, 0, Phase.TRAIN_COMMIT))
        out.judged = ctx.secrets.noted(task_id, 0, Role.VALIDATOR, ahead.VERDICTS_AHEAD)
    with as_node(trainer) as ctx:
        handlers.trainer_phase(phase("trainer", task_id, 0, Phase.TRAIN_COMMIT))
        out.after_training = ctx.view.task(task_id)
        out.trainer_sub = next(s for s in ctx.view.submissions(task_id, 0) if s.role == Role.TRAINER)
    with as_node(sampler) as ctx:
        handlers.sampler_phase(phase("sampler", task_id, 0, Phase.ATTEST))
        out.shard_ahead = ctx.secrets.noted(task_id, 1, Role.SAMPLER, ahead.SHARD_AHEAD)
    with as_node(validator) as ctx:
        handlers.validator_phase(phase("validator", task_id, 0, Phase.ATTEST))
        out.verdict = ctx.secrets.noted(task_id, 0, Role.VALIDATOR, "verdict")
        out.after_attest = ctx.view.task(task_id)
    with as_node(sampler) as ctx:
        handlers.sampler_phase(phase("sampler", task_id, 1, Phase.SAMPLE_COMMIT))
        out.round1_work = ctx.secrets.noted(task_id, 1, Role.SAMPLER, "work")
        out.round1_sub = next(s for s in ctx.view.submissions(task_id, 1) if s.role == Role.SAMPLER)
        out.after_round1_sampling = ctx.view.task(task_id)


def test_the_last_commit_of_a_phase_reveals_at_once(flow):
    assert (flow.after_sampling.round, flow.after_sampling.phase) == (0, Phase.TRAIN_COMMIT)
    assert (flow.after_training.round, flow.after_training.phase) == (0, Phase.ATTEST)
    assert flow.trainer_sub.revealed
    assert (flow.after_round1_sampling.round, flow.after_round1_sampling.phase) == (1, Phase.TRAIN_COMMIT)


def test_the_validator_judges_the_samplers_before_the_trainer_reveals(flow):
    assert flow.judged["samplers"]["0"][1:2] == [True]
    assert flow.verdict["judged_ahead"] == [0]
    assert flow.verdict["bitmap"] == 0b11  # the sampler and the trainer accepted
    assert (flow.after_attest.status, flow.after_attest.round) == (Status.ACTIVE, 1)


def test_the_next_rounds_shard_is_sampled_during_attest_and_committed_as_is(flow, net):
    noted = flow.shard_ahead
    assert noted["policy_root"] == bytes(flow.trainer_sub.root).hex()
    assert bytes(flow.after_attest.checkpoint_root) == bytes(flow.trainer_sub.root)  # accepted
    assert flow.round1_work["ahead"] is True
    assert (bytes(flow.round1_sub.root).hex(), flow.round1_sub.cid) == (noted["root"], noted["cid"])
    assert EmbeddedStore(net.store_dir).has(noted["cid"])


def test_work_ahead_is_not_repeated_or_done_out_of_its_phase(flow, net):
    task_id = flow.task_id
    with as_node(net.node("sampler0")) as ctx:
        ahead.sample_ahead(ctx, task_id, 0)  # round 1 is committed: too late
        assert ctx.secrets.noted(task_id, 1, Role.SAMPLER, ahead.SHARD_AHEAD) == flow.shard_ahead
        ahead.sample_ahead(ctx, task_id, 1)  # round 1 is the last round: nothing to sample ahead
        assert ctx.secrets.noted(task_id, 2, Role.SAMPLER, ahead.SHARD_AHEAD) is None
    with as_node(net.node("validator0")) as ctx:
        ahead.verify_samplers_ahead(ctx, task_id, 0)  # round 0 is over
        assert ctx.secrets.noted(task_id, 0, Role.VALIDATOR, ahead.VERDICTS_AHEAD) == flow.judged
