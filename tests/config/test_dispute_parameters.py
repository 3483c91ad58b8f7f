"""The dispute window (1 h - 3 days), the vote window (10 min - 36 h) and the minimum bond
(1 - 100,000 DRL) are bounded inclusively; each change is an event; a refused one changes nothing."""

import brownie
import pytest

TOKEN = 10**18
HOUR, DAY = 3600, 24 * 3600

CASES = {
    "setDisputeWindow": ("disputeWindow", "DisputeWindowSet", "window", HOUR, 3 * DAY, "WindowOutOfBounds"),
    "setVoteWindow": ("voteWindow", "VoteWindowSet", "window", 600, 36 * HOUR, "WindowOutOfBounds"),
    "setMinBond": ("minBond", "MinBondSet", "bond", TOKEN, 100_000 * TOKEN, "BondOutOfBounds"),
}


@pytest.mark.parametrize("setter", CASES)
def test_bounds_are_inclusive(config, admin, setter):
    getter, event, field, low, high, _ = CASES[setter]
    for value in (low, high):
        tx = getattr(config, setter)(value, {"from": admin})
        assert getattr(config, getter)() == value
        assert tx.events[event][field] == value


@pytest.mark.parametrize("setter", CASES)
def test_out_of_bounds_reverts_with_the_bounds(config, admin, setter):
    getter, _, _, low, high, error = CASES[setter]
    before = getattr(config, getter)()
    for value in (low - 1, high + 1):
        with brownie.reverts(f"{error}: {value}, {low}, {high}"):
            getattr(config, setter)(value, {"from": admin})
    assert getattr(config, getter)() == before
