"""Forced errors (SPECIFICATION.md 5.5.3) through the compiled mappings: first draws committed,
each opened draw marks its submission forced or not, a vote's plant answers (bits 64 and up) are kept apart from its accept
bits, and a validator that missed a plant another found is recorded for the round."""
import pytest
from subgraph_story import SAMPLERS, TRAINER, VALIDATORS, forced_story
from subgraph_support import address_id


@pytest.fixture(scope="module")
def result():
    result = forced_story().run()
    assert result.error is None, result.error
    return result


def test_first_draws_are_recorded_as_committed(result):
    commitments = result.all("DrawCommitment")
    assert sorted((c["node"], c["round"]) for c in commitments) == sorted(
        (address_id(n), "1-0") for n in [*SAMPLERS, TRAINER])
    assert len({c["commitment"] for c in commitments}) == len(commitments)


def test_each_opened_draw_marks_its_submission(result):
    draws = {d["id"]: d for d in result.all("Draw")}
    assert sorted(draws) == ["1-1-Sampler-0", "1-1-Sampler-1", "1-1-Trainer-0"]
    assert draws["1-1-Sampler-0"]["forced"] is True and draws["1-1-Sampler-0"]["node"] == address_id(SAMPLERS[0])
    assert draws["1-1-Trainer-0"]["forced"] is False and draws["1-1-Trainer-0"]["node"] == address_id(TRAINER)
    assert all(d["round"] == "1-1" and d["submission"] == d["id"] for d in draws.values())
    subs = {s["id"]: s for s in result.all("Submission")}
    assert subs["1-1-Sampler-0"]["forced"] is True and subs["1-1-Sampler-1"]["forced"] is False
    assert "forced" not in subs["1-0-Sampler-0"]  # round 0: no draw


def test_votes_keep_plant_answers_apart(result):
    votes = {(a["round"], a["slot"]): a for a in result.all("Attestation")}
    assert (votes[("1-1", 0)]["acceptBitmap"], votes[("1-1", 0)]["plantBitmap"]) == ("7", "0")
    assert (votes[("1-1", 1)]["acceptBitmap"], votes[("1-1", 1)]["plantBitmap"]) == ("6", "1")
    assert (votes[("1-0", 2)]["acceptBitmap"], votes[("1-0", 2)]["plantBitmap"]) == ("7", "0")
    [aggregate] = [g for g in result.all("AggregateAttestation") if g["round"] == "1-1"]
    assert (aggregate["acceptBitmap"], aggregate["plantBitmap"]) == ("6", "1")


def test_the_missed_plant_is_recorded(result):
    [miss] = result.all("PlantMiss")
    assert (miss["id"], miss["round"], miss["validator"], miss["slot"], miss["bitsMissed"]) == (
        "1-1-0", "1-1", address_id(VALIDATORS[0]), 0, "1")
