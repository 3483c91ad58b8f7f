"""workers.chain.waiting: what a drawing or active task waits for (a stand-in view answers the
reads; the open task and the texts on a real chain are in tests/workers/cli/test_task_waiting.py),
and workers.spec_fetch.publish_spec refusing a spec the store gives back wrong."""

from collections import namedtuple
from types import SimpleNamespace

import pytest

from workers.chain.view import SlotInfo, TaskInfo
from workers.chain.waiting import waiting_for
from workers.protocol import Phase, Role, Status
from workers.spec import DEMO_CARTPOLE
from workers.spec_fetch import SpecNotUsable, publish_spec
from workers.storage import EmbeddedStore

A, B, C = "0x" + "a" * 40, "0x" + "b" * 40, "0x" + "c" * 40
Sub = namedtuple("Sub", "commitment revealed")
Vote = namedtuple("Vote", "voted")


def task(**changes) -> TaskInfo:
    fields = dict(task_id=7, requester=C, status=Status.ACTIVE, phase=Phase.SAMPLE_COMMIT, round=2, num_rounds=5,
                  num_samplers=2, num_validators=1, filled_samplers=2, filled_validators=1, trainer_filled=True,
                  pending=0, idle_rounds=0, revealed_mask=0, claim_deadline=1000, phase_deadline=2000, seed_block=0,
                  commit_window=600, reveal_window=300, attest_window=600, shares_bps=(0, 0, 0), bounty=1,
                  spec_digest=b"", checkpoint_root=b"", spec_cid="", checkpoint_cid="")
    return TaskInfo(**{**fields, **changes})


class View:
    """Answers slots and the per-slot reads waiting_for makes, from plain dicts."""

    def __init__(self, nodes, submissions=None, attest_commits=None, votes=None):
        self.nodes, self.subs = nodes, submissions or {}
        self.commits, self.votes = attest_commits or {}, votes or {}
        self.deployment = SimpleNamespace(state="state", registry="registry")

    def slots(self, task_id, role=None):
        return [SlotInfo(r, i, node, 0, 0) for (r, i), node in self.nodes.items() if role in (None, r)]

    def read(self, contract, name, task_id, round_, *key):
        if name == "submissionOf":
            return self.subs.get(tuple(key), Sub(b"\0" * 32, False))
        if name == "attestCommitmentOf":
            return self.commits.get(key[0], b"\0" * 32)
        assert name == "attestationOf"
        return Vote(self.votes.get(key[0], False))


def test_a_drawing_task_waits_for_a_block_after_its_seed_block():
    w = waiting_for(View({}), task(status=Status.DRAWING, seed_block=40), now=900, block_number=40)
    assert w.waiting_for == "the validator draw" and (w.seed_block, w.current_block) == (40, 40)
    assert w.lines()[:2] == ["waiting for the validator draw (seed block 40, current block 40)",
                             "  it needs block 41: a chain that mines only on transactions mines it with the next "
                             "transaction (nodes send one; so does `decentrl task advance 7`)"]
    assert w.lines()[-1] == "until the claim deadline, in 100 s"
    later = waiting_for(View({}), task(status=Status.DRAWING, seed_block=40), now=900, block_number=41)
    assert later.lines()[1] == ("  the draw can be made now: a node draws, or `decentrl task advance 7` (anyone "
                                "may send it)")


def test_sample_commit_names_the_samplers_that_have_not_committed():
    view = View({(Role.SAMPLER, 0): A, (Role.SAMPLER, 1): B}, submissions={(Role.SAMPLER, 0): Sub(b"\1" * 32, False)})
    w = waiting_for(view, task(), now=1500, block_number=9)
    assert [(p.role, p.slot, p.node) for p in w.pending] == [(Role.SAMPLER, 1, B)]
    assert w.lines() == ["waiting for sample commit of round 3: 1 node to act",
                         f"  sampler   1  {B} has yet to commit its shard",
                         "until the phase deadline, in 500 s"]


def test_a_vacant_slot_in_a_work_phase_waits_for_a_claim_and_an_overdue_phase_names_advance():
    view = View({(Role.TRAINER, 0): None})
    w = waiting_for(view, task(phase=Phase.TRAIN_REVEAL), now=2010, block_number=9)
    assert w.overdue and w.lines() == [
        "waiting for train reveal of round 3: 1 node to act",
        "  trainer   0  vacant: waiting for a node to claim it",
        "the phase deadline passed 10 s ago: `decentrl task advance 7` (anyone may send it) closes the phase: the "
        "nodes that did not act are vacated and the task moves on"]


@pytest.mark.parametrize("phase, state, pending", [
    (Phase.ATTEST, {"attest_commits": {0: b"\1" * 32}}, [1]),
    (Phase.ATTEST_REVEAL, {"votes": {1: True}}, [0]),
    (Phase.SAMPLE_REVEAL, {}, []),
])
def test_validators_and_reveals(phase, state, pending):
    nodes = {(Role.VALIDATOR, 0): A, (Role.VALIDATOR, 1): B}
    if phase == Phase.SAMPLE_REVEAL:  # both samplers revealed: the phase closes with its next transaction
        nodes = {(Role.SAMPLER, 0): A, (Role.SAMPLER, 1): B}
        state = {"submissions": {(Role.SAMPLER, i): Sub(b"\1" * 32, True) for i in (0, 1)}}
    w = waiting_for(View(nodes, **state), task(phase=phase, num_validators=2), now=0, block_number=1)
    assert [p.slot for p in w.pending] == pending
    if not pending:
        assert w.waiting_for.endswith("every node has acted; the phase closes with its next transaction")


@pytest.mark.parametrize("status", [Status.COMPLETED, Status.CANCELLED, Status.FAILED, Status.NO_RESULT])
def test_an_ended_task_waits_for_nothing(status):
    assert waiting_for(View({}), task(status=status), now=0, block_number=1) is None


class CorruptingStore(EmbeddedStore):
    """Gives back other bytes than it stored (a faulty disk or gateway)."""

    def _get(self, cid, timeout):
        return super()._get(cid, timeout)[:-1] + b" "


def test_publish_spec_refuses_what_the_store_cannot_give_back(tmp_path):
    assert publish_spec(EmbeddedStore(tmp_path / "good"), DEMO_CARTPOLE).startswith("bafk")
    with pytest.raises(SpecNotUsable, match="nodes cannot use this task's spec: content does not match its CID"):
        publish_spec(CorruptingStore(tmp_path / "bad"), DEMO_CARTPOLE)
