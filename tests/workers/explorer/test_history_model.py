"""The read model's assembly from events, on hand-made events (the real run is test_real_run.py):
a missed slot still gets its verdict row, rewards join their submissions, reputation changes
join a task through their transaction only, gas is grouped by function, node earnings and
slashes add up per task and role."""
from types import SimpleNamespace

from workers.chain.view import StakeInfo, TaskInfo
from workers.chain.watcher import ChainEvent
from workers.explorer import history as hist
from workers.protocol import Outcome, Phase, Role, Status, Verdict

A, B, C, V = ("0x" + c * 40 for c in "abcd")


def ev(name, tx, contract="TaskRegistry", block=10, **args):
    return ChainEvent(name, args, block, tx, 0, contract)


class FakeView:
    def task(self, task_id):
        if task_id == 1:  # in its second round
            return TaskInfo(1, C, Status.ACTIVE, Phase.ATTEST, 1, 3, 2, 1, 2, 1, True, 0, 0, 0, 0, 1234, 0, 0, 0, 0,
                            (2000, 7000, 1000), 900, b"\x01" * 32, b"", "bafyspec", "bafyck")
        if task_id == 4:  # its one round finalized without an accepted checkpoint
            return TaskInfo(4, C, Status.NO_RESULT, Phase.SAMPLE_COMMIT, 0, 1, 2, 1, 2, 1, True, 0, 1, 0, 500, 600, 0,
                            0, 0, 0, (2000, 7000, 1000), 900, b"\x01" * 32, b"\x00" * 32, "bafyspec", "")
        if task_id == 3:  # cancelled while open
            return TaskInfo(3, C, Status.CANCELLED, Phase.SAMPLE_COMMIT, 0, 3, 2, 1, 0, 0, False, 0, 0, 0, 500, 0, 0,
                            0, 0, 0, (2000, 7000, 1000), 900, b"\x01" * 32, b"", "bafyspec", "")
        raise hist.TaskNotFound(f"task {task_id} not found")

    def stake(self, address, role):
        return StakeInfo(100 if role == Role.SAMPLER else 0, 0, 0, 0, 0)

    def score(self, address):
        return 71

    def claimable(self, address):
        return 5


class FakeLog:
    def __init__(self, events):
        self.events, self.view = events, FakeView()

    def snapshot(self):
        return list(self.events)

    def transaction(self, tx_hash):
        kind = {"0x1": "commit", "0x2": "commit", "0x3": "attest"}.get(tx_hash, "other")
        return hist.TxGas(tx_hash, kind, A, "TaskRegistry", {"0x3": 500}.get(tx_hash, 100), 2, 10)


EVENTS = [
    ev("TaskCreated", "0x0", taskId=1, requester=C),
    ev("Staked", "0x9", "StakeManager", node=A, role=Role.SAMPLER, amount=100, totalStaked=100),
    ev("Staked", "0x9", "StakeManager", node=B, role=Role.SAMPLER, amount=100, totalStaked=200),
    ev("SlotAssigned", "0x0", taskId=1, node=A, role=Role.SAMPLER, slot=0, sinceRound=0),
    ev("PhaseStarted", "0x0", taskId=1, round=0, phase=Phase.SAMPLE_COMMIT, deadline=99),
    ev("ResultCommitted", "0x1", taskId=1, round=0, node=A, role=Role.SAMPLER, slot=0, commitment=b"\x02" * 32),
    ev("ResultRevealed", "0x2", taskId=1, round=0, node=A, role=Role.SAMPLER, slot=0, root=b"\x03" * 32, cid="bafyA"),
    ev("Attested", "0x3", taskId=1, round=0, validator=V, slot=0, acceptBitmap=0b01),
    ev("VerdictReached", "0x3", taskId=1, round=0, node=A, role=Role.SAMPLER, slot=0, verdict=Verdict.ACCEPTED,
       accepts=1, rejects=0),
    ev("VerdictReached", "0x3", taskId=1, round=0, node=B, role=Role.SAMPLER, slot=1, verdict=Verdict.REJECTED,
       accepts=0, rejects=1),
    ev("RewardEarned", "0x3", taskId=1, round=0, node=A, role=Role.SAMPLER, amount=40),
    ev("RewardEarned", "0x3", taskId=1, round=0, node=V, role=Role.VALIDATOR, amount=7),
    ev("ReputationChanged", "0x3", "Reputation", node=A, oldScore=70, newScore=72, outcome=Outcome.ACCEPTED),
    ev("ReputationChanged", "0x3", "Reputation", node=B, oldScore=70, newScore=65, outcome=Outcome.REJECTED),
    ev("ReputationChanged", "0x8", "Reputation", node=B, oldScore=65, newScore=66, outcome=Outcome.RECOVERED),
    ev("Slashed", "0x3", "StakeManager", node=B, role=Role.SAMPLER, amount=10, recipient=C),
    ev("RoundFinalized", "0x3", taskId=1, round=0, checkpointRoot=b"\x04" * 32, checkpointCid="bafyck"),
    ev("RewardEarned", "0x7", taskId=2, round=0, node=A, role=Role.TRAINER, amount=1000),
]


def test_rounds_submissions_and_verdicts():
    h = hist.task_history(FakeLog(EVENTS), 1)
    (r,) = h.rounds
    assert r.finalized and r.checkpoint_cid == "bafyck" and r.phases[0].phase == Phase.SAMPLE_COMMIT
    a, b = r.submissions
    assert (a.node, a.revealed, a.cid, a.verdict, a.reward_wei) == (A, True, "bafyA", Verdict.ACCEPTED, 40)
    assert (b.node, b.revealed, b.verdict, b.rejects) == (B, False, Verdict.REJECTED, 1)  # missed: no commit
    assert r.attestations == [hist.Attestation(V, 0, 0b1, 0b01)]


def test_payouts_reputation_and_gas_of_the_task_only():
    h = hist.task_history(FakeLog(EVENTS), 1)
    assert h.payouts() == {(A, Role.SAMPLER): 40, (V, Role.VALIDATOR): 7}
    assert h.paid_by_role() == {Role.SAMPLER: 40, Role.TRAINER: 0, Role.VALIDATOR: 7}
    assert [(c.node, c.new) for c in h.reputation] == [(A, 72), (B, 65)]  # not the 0x8 recovery
    assert list(h.gas_by_kind().items()) == [("attest", (1, 500)), ("commit", (2, 200)), ("other", (1, 100))]
    assert [tx.tx_hash for tx in h.gas] == ["0x0", "0x1", "0x2", "0x3"]


def test_unknown_task_raises_task_not_found():
    import pytest

    with pytest.raises(hist.TaskNotFound):
        hist.task_history(FakeLog(EVENTS), 2)


def test_node_history_and_totals():
    log = FakeLog(EVENTS)
    assert hist.node_addresses(log) == [A, B]
    a = hist.node_history(log, A)
    assert a.earned_by_task_wei == {1: 40, 2: 1000} and a.earned_by_role_wei[Role.TRAINER] == 1000
    assert a.tasks == [1] and a.stakes[0] == hist.RoleStake(Role.SAMPLER, 100, 0, 0)
    b = hist.node_history(log, B)
    assert b.slashed_wei == 10 and b.earned_wei == 0
    assert [(c.old, c.new, c.task_id) for c in b.reputation] == [(70, 65, 1), (65, 66, None)]
    assert hist.payouts_by_role(log) == {Role.SAMPLER: 40, Role.TRAINER: 1000, Role.VALIDATOR: 7}


def test_task_summaries_newest_first():
    events = EVENTS + [SimpleNamespace(name="TaskCreated", args={"taskId": 1}, block=12)]
    assert [t.created_block for t in hist.tasks(FakeLog(events))] == [12, 10]


def test_a_task_cancelled_while_open_is_listed_as_not_started():
    events = EVENTS + [ev("TaskCreated", "0x5", block=11, taskId=3, requester=C)]
    assert [(t.task_id, t.status, t.started) for t in hist.tasks(FakeLog(events))] == [
        (3, Status.CANCELLED, False), (1, Status.ACTIVE, True)]
    assert hist.task_history(FakeLog(events), 3).started is False


def test_a_task_without_a_result_reads_ended_without_a_result():
    events = EVENTS + [ev("TaskCreated", "0x6", block=13, taskId=4, requester=C),
                       ev("TaskStatusChanged", "0x6", block=14, taskId=4, status=Status.NO_RESULT)]
    log = FakeLog(events)
    summary = hist.tasks(log)[0]
    assert (summary.task_id, summary.status, summary.started) == (4, Status.NO_RESULT, True)
    assert summary.end == "ended without a result: no round's checkpoint was accepted"
    h = hist.task_history(log, 4)
    assert h.end == summary.end and h.status_changes == [(Status.NO_RESULT, 14)]
    assert hist.task_history(log, 1).end == ""  # still running
