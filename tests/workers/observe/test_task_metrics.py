"""A real one-round task run by the demo's network (reduced spec; anvil on 8826-8829):
afterwards each node's own metrics hold what it did, recorded by the handlers, watcher, sender
and store in its worker processes: samplers' env steps and episode returns, the trainer's
training samples, every node's transactions and gas, store traffic, dispatch and sync latency.
And each node's worker log has JSON lines of that task, with its round and the node's role."""
import dataclasses
import json

import pytest
from observe_support import DEMO_ANVIL_PORTS

from workers.demo import run as demo_run
from workers.node.observe.metrics import snapshot
from workers.protocol import Status
from workers.spec import DEMO_CARTPOLE

SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=384, challenges_per_sampler=2,
                           ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, batch_size=64, update_epochs=4))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    patch = pytest.MonkeyPatch()
    patch.setattr(demo_run, "ANVIL_PORTS", DEMO_ANVIL_PORTS)
    patch.setattr(demo_run, "TIMEOUT_S", 240.0)
    d = demo_run.Demo(tmp_path_factory.mktemp("task-metrics"), keep=False, spec=SPEC,
                      task=dict(num_rounds=1, commit_window=60, reveal_window=60, attest_window=60), live_eval=False)
    try:
        d.start_network()
        d.start_nodes()
        d.submit()
        d.curve = d.follow(__import__("time").time())
        # the vote that completed the task may still be waiting for its receipt in its validator
        d.net.wait_caught_up()
        yield d
    finally:
        d.stop()
        patch.undo()


def test_each_node_records_its_work(finished):
    d = finished
    assert Status(d.dep.state.functions.taskOf(d.task_id).call().status) == Status.COMPLETED
    by_role = {}
    for node in d.nodes:
        m = snapshot(node.node_dir)
        by_role.setdefault(node.role, []).append(m)
        assert m["decentrl_tx_sent_total"] >= 1, (node.name, m)
        assert m["decentrl_tx_gas_used_total"] > 21_000
        assert m["decentrl_tasks_total{state=done}"] >= 1
        assert m["decentrl_dispatch_latency_seconds_count"] >= 1
        assert m["decentrl_sync_latency_seconds_count"] >= 1  # the watcher's
        assert m["decentrl_events_total"] >= 1
        assert m.get("decentrl_tasks_total{state=failed}", 0) == 0
    for m in by_role["sampler"]:
        assert m["decentrl_env_steps_total{role=sampler}"] == SPEC.steps_per_shard
        assert m["decentrl_env_seconds_total"] > 0 and m["decentrl_episode_return_count"] >= 1
        assert m["decentrl_tx_sent_total{fn=commit}"] == 1 and m["decentrl_tx_sent_total{fn=reveal}"] == 1
        assert m["decentrl_store_bytes_total{op=put}"] > 0
    (trainer,) = by_role["trainer"]
    assert trainer["decentrl_train_samples_total{role=trainer}"] == 2 * SPEC.steps_per_shard
    assert trainer["decentrl_train_seconds_total"] > 0 and trainer["decentrl_store_bytes_total{op=get}"] > 0
    for m in by_role["validator"]:
        assert m["decentrl_store_bytes_total{op=get}"] > 0
    # Three validators are fewer than an aggregate pays for: each sent its own vote (SPECIFICATION.md 5.5.2).
    validators = by_role["validator"]
    assert [m.get("decentrl_tx_sent_total{fn=attest}", 0) for m in validators] == [1, 1, 1]
    assert sum(m.get("decentrl_tx_sent_total{fn=attestAggregate}", 0) for m in validators) == 0


def test_worker_logs_carry_the_task_round_and_role(finished):
    d = finished
    votes = []  # the vote transactions validators sent for the task: one each (5.5.2)
    for node in d.nodes:
        lines = [json.loads(x) for x in (node.node_dir / "logs" / f"{node.role}.log").read_text().splitlines()
                 if x.startswith("{")]
        ours = [x for x in lines if x["task_id"] == d.task_id]
        assert ours, node.name
        assert all(x["role"] == node.role and x["process"] == node.role for x in ours)
        assert {x["round"] for x in ours} <= {None, 0, 1}
        # the sender's lines too: each transaction the node sent for the task, with its context
        mined = [x for x in ours if x["logger"] == "workers.chain.sender" and " mined in block " in x["msg"]]
        if node.role == "validator":
            # Each validator chose to vote alone, with its context (5.5.2: three are too few to aggregate).
            alone = [x for x in ours if "attesting alone, which costs less gas" in x["msg"]]
            assert alone and all(x["event"] == "PhaseStarted" and x["round"] == 0 for x in alone), node.name
            votes += [(node.name, x["msg"].split()[0]) for x in mined if x["msg"].startswith("attest")]
        assert mined and all(x["event"] for x in mined), node.name
        # and the watcher's: each event of the task it queued, with the task id (its role: none)
        watcher = [json.loads(x) for x in (node.node_dir / "logs" / "watcher.log").read_text().splitlines()
                   if x.startswith("{")]
        queued = [x for x in watcher if x["task_id"] == d.task_id and " queued for " in x["msg"]]
        assert any(x["event"] == "TaskCreated" for x in queued) and all(x["role"] is None for x in queued)
    assert [fn for _, fn in votes] == ["attest"] * 3, votes


def test_without_live_eval_the_follower_evaluates_no_round(finished):
    # what bench/overhead.py runs: the follower sees the round end and computes nothing for it
    assert [name for _, name, _ in finished.timeline].count("RoundFinalized") == 1
    assert finished.curve.rounds == [] and finished.curve.eval_return == []
