"""A stake through every StakeManager event, the slash taking the active stake first and then the
unbonding one, as StakeManager.slash does (SPECIFICATION.md 3)."""

import pytest
from subgraph_story import SAMPLERS, TOKEN, TREASURY, VALIDATORS, stake_story
from subgraph_support import address_id


@pytest.fixture(scope="module")
def story():
    s = stake_story()
    s.result = s.run()
    assert s.result.error is None, s.result.error
    return s


def test_slash_takes_active_then_unbonding_and_clips_the_lock(story):
    stake = story.result.get("Stake", f"{address_id(SAMPLERS[0])}-Sampler")
    # 500 staked, 100 locked, 300 unstaked -> 200 active; a 250 slash takes those 200 and 50 unbonding.
    assert (stake["staked"], stake["locked"], stake["unbonding"]) == ("0", "0", "0")
    assert (stake["slashed"], stake["withdrawn"]) == (str(250 * TOKEN), str(250 * TOKEN))
    assert stake["unbondingReadyAt"] == "0"
    assert story.result.get("Protocol", "decentrl")["totalStaked"] == "0"


def test_every_stake_event_is_recorded_in_order(story):
    changes = sorted(story.result.all("StakeChange"), key=lambda c: int(c["blockNumber"]))
    assert [c["action"] for c in changes] == ["Staked", "Locked", "UnstakeRequested", "Slashed", "UnbondedWithdrawn"]
    assert changes[2]["readyAt"] == "5000" and changes[3]["recipient"] == TREASURY
    assert "recipient" not in changes[0] and "readyAt" not in changes[0]


def test_node_pause_slash_total_and_bls_key(story):
    node = story.result.get("Node", address_id(SAMPLERS[0]))
    assert (node["paused"], node["totalSlashed"], node["reputation"]) == (True, str(250 * TOKEN), 70)
    validator = story.result.get("Node", address_id(VALIDATORS[0]))
    assert validator["blsKeyHash"] == "0x" + (0xB15).to_bytes(32, "big").hex()
    assert validator["blsPubkey"] == [str(x) for x in story.pubkey]  # a full uint256 survives
