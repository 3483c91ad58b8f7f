"""A dissent (SPECIFICATION.md 5.5) through the compiled mappings: the validator that rejected work
the quorum accepted is recorded per round, neither vacated nor marked down."""
import pytest
from subgraph_story import VALIDATORS, dissent_story
from subgraph_support import address_id


@pytest.fixture(scope="module")
def result():
    result = dissent_story().run()
    assert result.error is None, result.error
    return result


def test_the_dissent_is_indexed_with_the_work_it_rejected(result):
    [dissent] = result.all("Dissent")
    assert dissent["id"] == "1-0-2" and dissent["round"] == "1-0" and dissent["task"] == "1"
    assert (dissent["validator"], dissent["slot"], dissent["dissentBitmap"]) == (address_id(VALIDATORS[2]), 2, "1")


def test_the_round_lists_its_dissents_and_nobody_is_vacated(result):
    assert [a for a in result.all("Assignment") if a.get("vacatedReason")] == []
    assert {c["outcome"] for c in result.all("ReputationChange") if c["node"] == address_id(VALIDATORS[2])} \
        <= {"Accepted"}
