"""Which checkpoints a trainer keeps past its store's retention (workers.node.handlers.round_handlers): the
round's checkpoint whenever `ppo.checkpoint_every` env steps have passed since the last one kept,
and a completed task's final policy; every other round's result expires with the retention.
Played in the fraud world with honest nodes only (its harness calls the handlers)."""
import dataclasses

import pytest
from fraud_world import SPEC, as_node, event, network, play_round, start_task

from workers.node.handlers import round_handlers
from workers.protocol import Role, Status

ENV_STEPS_PER_ROUND = 2 * SPEC.steps_per_shard  # two samplers' shards
KEEP_EVERY = dataclasses.replace(SPEC, ppo=dataclasses.replace(SPEC.ppo, checkpoint_every=2 * ENV_STEPS_PER_ROUND))


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    nodes = {"sampler0": "sampler", "sampler1": "sampler", "trainer": "trainer", "validator0": "validator",
             "validator1": "validator", "validator2": "validator"}
    with network(tmp_path_factory.mktemp("kept-checkpoints"), nodes) as fraud_net:
        yield fraud_net


def pinned(net) -> set[str]:
    return {entry.cid for entry in net.store.list() if entry.pinned}


def checkpoint_cid(net, task_id: int, round_: int) -> str:
    return net.deployment.state.functions.submissionOf(task_id, round_, Role.TRAINER, 0).call().cid


def test_a_checkpoint_each_checkpoint_every_env_steps_and_the_final_policy_are_pinned(net):
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
             "validator": [net.node(f"validator{i}") for i in range(3)]}
    task_id = net.create_task(num_rounds=3, spec=KEEP_EVERY)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    for _ in range(3):
        play_round(net, task_id, nodes)
    task = net.task(task_id)
    assert task.status == Status.COMPLETED
    rounds = [checkpoint_cid(net, task_id, r) for r in range(3)]
    assert task.checkpointCid == rounds[2]
    # after 1, 2 and 3 rounds' env steps: only the second reaches checkpoint_every
    assert [cid in pinned(net) for cid in rounds] == [False, True, False]

    settled = event("TaskSettled", "trainer", taskId=task_id, status=int(Status.COMPLETED))
    with as_node(nodes["trainer"][0]) as ctx:
        round_handlers.pin_final_policy(ctx, settled)
        round_handlers.pin_final_policy(ctx, settled)  # a redelivery: the same
    assert [cid in pinned(net) for cid in rounds] == [False, True, True]
    assert set(rounds) <= {entry.cid for entry in net.store.list()}  # the unpinned one stays until it expires


def test_a_final_checkpoint_this_node_did_not_store_is_left_alone(net, caplog):
    """A trainer that took the slot late has not stored the checkpoint the task ended with: pinning
    it is the node's that stored it, and this handler neither fails nor stores it."""
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
             "validator": [net.node(f"validator{i}") for i in range(3)]}
    task_id = net.create_task(num_rounds=1)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    play_round(net, task_id, nodes)
    cid = net.task(task_id).checkpointCid
    net.store.delete(cid)  # as if another trainer's store held it
    caplog.set_level("INFO", logger="workers.node.handlers.round_handlers")
    with as_node(nodes["trainer"][0]) as ctx:
        settled = event("TaskSettled", "trainer", taskId=task_id, status=int(Status.COMPLETED))
        round_handlers.pin_final_policy(ctx, settled)
    assert cid not in {entry.cid for entry in net.store.list()}
    assert f"final checkpoint {cid} was not stored by this node" in caplog.text
