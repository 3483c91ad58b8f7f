"""The node's plant-aware decisions (SPECIFICATION.md 5.5.3, "Disputes"): a validator's verdict
note keeps whether a judgement was planted, the detector never disputes a planted judgement (a
plant vote is not a rejection), and a juror reads from the chain whether the disputed submission
was forced."""
from types import SimpleNamespace

import pytest

from workers.node.handlers.detector_handlers import rejections
from workers.node.handlers.dispute_handlers import forced_submission
from workers.node.handlers.validator_handlers import _noted
from workers.protocol import Evidence, Role
from workers.roles.validator import Judgement


def test_the_verdict_note_keeps_whether_a_judgement_was_planted():
    planted = Judgement(False, "planted: x", evidence=(Evidence.EPISODE, 2), planted=True)
    assert _noted(planted) == [False, "planted: x", int(Evidence.EPISODE), 2, True]
    assert _noted(Judgement(False, "bad", evidence=(Evidence.TRANSITION, 4))) == \
        [False, "bad", int(Evidence.TRANSITION), 4, False]


def test_the_detector_disputes_rejections_but_not_plants():
    note = {"samplers": {"0": [False, "planted: x", 1, 2, True],  # a plant vote: not disputed
                         "1": [False, "reward at step 3", 1, 5, False],
                         "2": [True, "checks", 0, 0, False]},
            "trainer": [False, "planted: y", 2, 3, True]}
    assert rejections(note) == [(Role.SAMPLER, 1, Evidence.EPISODE, 5, "reward at step 3")]
    old = {"samplers": {"0": [False, "bad", 1, 2]}, "trainer": [False, "bad"]}  # notes from before plants
    assert rejections(old) == [(Role.SAMPLER, 0, Evidence.EPISODE, 2, "bad"),
                               (Role.TRAINER, 0, Evidence.WHOLE, 0, "bad")]


def ctx_with(mask: int | None):
    """A node context whose StateView has forcedMask answering `mask` (None: no such view)."""
    abi = [{"type": "function", "name": "taskOf"}]
    if mask is not None:
        abi.append({"type": "function", "name": "forcedMask"})
    calls = []

    def read(contract, name, *args):
        calls.append((name, args))
        return mask
    return SimpleNamespace(deployment=SimpleNamespace(state=SimpleNamespace(abi=abi)),
                           view=SimpleNamespace(read=read)), calls


TASK = SimpleNamespace(task_id=9, num_samplers=3)


@pytest.mark.parametrize("role, slot, forced", [
    (Role.SAMPLER, 0, True), (Role.SAMPLER, 1, False), (Role.SAMPLER, 2, True),
    (Role.TRAINER, 0, True),  # the trainer's bit is numSamplers (3), not its slot
])
def test_a_juror_reads_the_forced_bit_of_the_disputed_submission(role, slot, forced):
    ctx, calls = ctx_with(0b1101)
    assert forced_submission(ctx, TASK, 4, role, slot) is forced
    assert calls == [("forcedMask", (9, 4))]
    ctx, _ = ctx_with(0b0001)
    assert forced_submission(ctx, TASK, 4, Role.TRAINER, 0) is False


def test_without_forced_errors_on_chain_nothing_is_forced():
    ctx, calls = ctx_with(None)
    assert forced_submission(ctx, TASK, 4, Role.SAMPLER, 0) is False and calls == []
