"""A validator judges a round's shards in its TrainCommit job, ahead of its vote
(workers.node.handlers.validator_handlers._check_samplers_early). That job may reach the worker after the
trainer committed (queued behind other jobs, or a trainer faster than the validator): the shards
are then still judged by it, and the Attest job queued behind it uses that; once the node has
voted, the job judges nothing; a redelivered job does not judge twice."""
from unittest import mock

import fraud_world
import pytest
from fraud_world import act, as_node, network, play_round, start_task

from workers.node.handlers import common, validator_handlers
from workers.protocol import Phase, Status
from workers.roles import validator as validator_role


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    nodes = {"sampler0": "sampler", "sampler1": "sampler", "trainer": "trainer",
             "validator0": "validator", "validator1": "validator", "validator2": "validator"}
    with network(tmp_path_factory.mktemp("early-checks"), nodes) as fraud_net:
        yield fraud_net


def nodes_of(net) -> dict:
    return {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
            "validator": [net.node(f"validator{i}") for i in range(3)]}


def verdict_notes(validator, task_id: int) -> list[dict]:
    with as_node(validator) as ctx:
        return [n["data"] for n in ctx.secrets.notes(task_id) if n["kind"] == "verdict"]


def judge_count():
    """verify_samplers, counting its calls (the real function runs)."""
    return mock.patch.object(validator_role, "verify_samplers", side_effect=validator_role.verify_samplers)


def test_train_commit_jobs_after_the_trainers_commit_still_judge_the_shards(net, monkeypatch):
    monkeypatch.setitem(fraud_world.WORKERS, Phase.TRAIN_COMMIT, ("trainer", "validator"))
    nodes = nodes_of(net)
    task_id = net.create_task()
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    with judge_count() as judged:
        play_round(net, task_id, nodes)
    assert net.task(task_id).status == Status.COMPLETED
    assert judged.call_count == 3  # once per validator, in its TrainCommit job
    for validator in nodes["validator"]:
        [note] = verdict_notes(validator, task_id)
        vote = fraud_world.honest_vote(net, task_id, 0, [*nodes["sampler"], *nodes["trainer"]])
        assert note["samplers_judged_early"] == [0, 1] and note["bitmap"] == vote, (validator.name, note)


def test_a_train_commit_job_after_the_vote_or_redelivered_judges_nothing(net):
    nodes = nodes_of(net)
    task_id = net.create_task()
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    for phase in (Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL):
        for sampler in nodes["sampler"]:
            act(net, sampler, task_id, 0, phase)
    act(net, nodes["trainer"][0], task_id, 0, Phase.TRAIN_COMMIT)
    assert net.task(task_id).phase == Phase.ATTEST
    early, late, _ = nodes["validator"]
    with judge_count() as judged:
        act(net, early, task_id, 0, Phase.TRAIN_COMMIT)
        act(net, early, task_id, 0, Phase.TRAIN_COMMIT)  # redelivered
        assert judged.call_count == 1
        act(net, late, task_id, 0, Phase.ATTEST)  # votes first: the round stays in Attest
        act(net, late, task_id, 0, Phase.TRAIN_COMMIT)
        assert judged.call_count == 1
        with as_node(late) as ctx:
            assert validator_handlers._SAMPLER_CHECKS.get(common.held_key(ctx, task_id, 0)) is None
    task = net.task(task_id)
    assert (task.status, task.phase) == (Status.ACTIVE, Phase.ATTEST)
    [note] = verdict_notes(late, task_id)
    vote = fraud_world.honest_vote(net, task_id, 0, [*nodes["sampler"], *nodes["trainer"]])
    assert note["samplers_judged_early"] == [] and note["bitmap"] == vote
