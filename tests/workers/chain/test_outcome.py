"""workers.chain.outcome.describe_end: one sentence per way a task ends (SPECIFICATION.md 5.1), the
words `decentrl task status/result` and the explorer show."""

from dataclasses import replace

import pytest

from workers.chain.outcome import describe_end
from workers.chain.view import TaskInfo
from workers.protocol import Phase, Status

RAN = TaskInfo(1, "0x" + "c" * 40, Status.ACTIVE, Phase.ATTEST, 2, 5, 2, 3, 2, 3, True, 0, 0, 0, 100, 900, 0, 600,
               300, 600, (2000, 7000, 1000), 10**18, b"\x01" * 32, b"\x02" * 32, "bafyspec", "bafyck")
NEVER_RAN = replace(RAN, phase=Phase.SAMPLE_COMMIT, round=0, phase_deadline=0, checkpoint_root=b"\x00" * 32,
                    checkpoint_cid="")


@pytest.mark.parametrize("task, end", [
    (RAN, ""),
    (replace(NEVER_RAN, status=Status.OPEN), ""),
    (replace(RAN, status=Status.COMPLETED, round=4),
     "completed after 5 rounds: its last accepted checkpoint is the result"),
    (replace(RAN, status=Status.COMPLETED, num_rounds=1, round=0),
     "completed after 1 round: its last accepted checkpoint is the result"),
    (replace(RAN, status=Status.NO_RESULT, num_rounds=1, round=0, idle_rounds=1, checkpoint_cid=""),
     "ended without a result: no round's checkpoint was accepted"),
    (replace(NEVER_RAN, status=Status.CANCELLED), "cancelled by its requester before its rounds started"),
    (replace(NEVER_RAN, status=Status.FAILED),
     "failed before its first round: its slots were not all filled within the claim window"),
    (replace(RAN, status=Status.FAILED, idle_rounds=2),
     "failed in round 3 of 5: two rounds in a row ended without an accepted checkpoint"),
    (replace(RAN, status=Status.FAILED, idle_rounds=0),
     "failed in round 3 of 5: a dispute proved work of the task bad"),
])
def test_each_end_has_its_sentence(task, end):
    assert describe_end(task) == end


def test_no_result_is_final_and_not_completed():
    from workers.protocol import FINAL_STATUSES

    assert Status.NO_RESULT == 7 and Status.NO_RESULT in FINAL_STATUSES and Status.COMPLETED in FINAL_STATUSES
    assert {Status.OPEN, Status.DRAWING, Status.ACTIVE}.isdisjoint(FINAL_STATUSES)
    assert replace(RAN, status=Status.NO_RESULT).started
