"""The harness itself: the stories exercise every handler of every data source of the manifest, and
the harness fails a run the way a graph node fails a subgraph (a handler's abort or critical log, an
entity the schema refuses, a second write of an immutable entity)."""

import json
import subprocess

import pytest
from subgraph_story import STORIES, Story
from subgraph_support import HARNESS, ROOT, SUBGRAPH, manifest, run_harness

from workers.protocol import Status


def test_the_stories_exercise_every_handler_of_every_data_source():
    # Per data source: a handler several contracts share (the role events) is run from each of them.
    used = {(ev["dataSource"], ev["handler"]) for build in STORIES.values() for ev in build().events}
    declared = {(ds["name"], h["handler"])
                for ds in manifest()["dataSources"] for h in ds["mapping"]["eventHandlers"]}
    assert declared - used == set()


def test_an_event_for_an_unknown_task_stops_indexing():
    s = Story()
    s.emit("TaskRegistry", "TaskStatusChanged", taskId=9, status=Status.ACTIVE)
    result = s.run()
    assert result.error["handler"] == "handleTaskStatusChanged"
    assert "task 9 not indexed" in result.error["message"]
    assert result.logs[-1]["level"] == "critical"


def test_an_enum_value_the_subgraph_does_not_know_stops_indexing():
    s = Story()
    s.create_task()
    s.emit("TaskRegistry", "TaskStatusChanged", taskId=1, status=len(Status))
    result = s.run()
    assert result.handled == 4 and f"unknown TaskStatus value {len(Status)}" in result.error["message"]


def test_an_immutable_entity_is_written_once():
    s = Story()
    s.create_task()
    s.events.append(dict(s.events[-1]))  # the same TaskStatusChanged log delivered twice
    result = s.run()
    assert "TaskStatusChange[" in result.error["message"] and "immutable" in result.error["message"]


def test_a_failing_handler_stops_the_run_and_keeps_what_came_before():
    s = Story()
    s.create_task()
    s.emit("TaskRegistry", "ResultRevealed", taskId=1, round=0, node="0x" + "b0" * 20, role=0, slot=0,
           root=b"\x01" * 32, cid="x")
    s.emit("TaskRegistry", "TaskStatusChanged", taskId=1, status=Status.CANCELLED)
    result = s.run()
    assert result.handled == 4 and "submission 1-0-Sampler-0 not indexed" in result.error["message"]
    assert result.get("Task", "1")["status"] == "Open"


@pytest.mark.parametrize("data, message", [
    ({"id": {"kind": "String", "value": "1"}}, "missing value for non-nullable field `taskId`"),
    ({"id": {"kind": "String", "value": "1"}, "nope": {"kind": "Int", "value": 1}}, "unknown field `nope`"),
    ({"id": {"kind": "String", "value": "1"}, "status": {"kind": "String", "value": "Sleeping"}},
     '"Sleeping" is not a value of enum TaskStatus'),
    ({"id": {"kind": "String", "value": "1"}, "numRounds": {"kind": "BigInt", "value": "1"}}, "expected Int, got BigInt"),
    ({"id": {"kind": "String", "value": "1"}, "rounds": {"kind": "Array", "value": []}}, "derived field `rounds`"),
])
def test_the_store_refuses_what_graph_node_refuses(data, message):
    script = (
        "const {Store}=require(process.argv[1]);const {parseSchema}=require(process.argv[2]);"
        "const s=new Store(parseSchema(require('fs').readFileSync(process.argv[3],'utf8')));"
        "try{s.set('Task','1',JSON.parse(process.argv[4]));console.log('stored')}catch(e){console.log(e.message)}"
    )
    out = subprocess.check_output(["node", "-e", script, str(HARNESS.parent / "harness.js"),
                                   str(HARNESS.parent / "schema.js"), str(SUBGRAPH / "schema.graphql"),
                                   json.dumps(data)], text=True, cwd=ROOT)
    assert message in out


def test_big_and_negative_numbers_cross_the_wasm_boundary():
    s = Story()
    s.emit("Reputation", "ReputationChanged", node="0x" + "b0" * 20, oldScore=70, newScore=0, outcome=1)
    s.emit("StakeManager", "Staked", node="0x" + "b0" * 20, role=0, amount=2**256 - 1, totalStaked=2**256 - 1)
    s.emit("StakeManager", "StakeLocked", node="0x" + "b0" * 20, role=0, amount=255)
    result = s.run()
    assert result.error is None
    assert result.all("ReputationChange")[0]["delta"] == -70
    stake = result.all("Stake")[0]
    assert (stake["staked"], stake["locked"]) == (str(2**256 - 1), "255")
    assert result.get("Protocol", "decentrl")["totalStaked"] == str(2**256 - 1)


def test_harness_rejects_a_value_that_does_not_fit_its_abi_type():
    ev = Story().emit("ProtocolConfig", "SlashBpsSet", bps=1)
    ev["params"][0]["type"] = "uint8"
    ev["params"][0]["value"] = "256"
    with pytest.raises(RuntimeError, match="does not fit uint8"):
        run_harness([ev])
