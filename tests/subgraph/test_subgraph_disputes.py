"""A dispute upheld by jurors, through the compiled mappings (SPECIFICATION.md 13): the Dispute, its
jurors, penalties and awards; the reclaimed pay leaves the node's earnings and goes back to the
requester; the task fails; the held pay of the undisputed sampler is released."""

import pytest
from subgraph_story import (
    BOND,
    DISPUTER,
    JURORS,
    MIN_STAKE,
    REQUESTER,
    SAMPLERS,
    TOKEN,
    VALIDATORS,
    dispute_story,
)
from subgraph_support import address_id

from workers.protocol import Role


@pytest.fixture(scope="module")
def story():
    s = dispute_story()
    s.result = s.run()
    assert s.result.error is None, s.result.error
    return s


def test_dispute_is_upheld_by_two_votes_to_one(story):
    d = story.result.get("Dispute", "1")
    assert (d["status"], d["upholdVotes"], d["dismissVotes"], d["jurorCount"]) == ("Upheld", 2, 1, 3)
    assert d["submission"] == "1-0-Sampler-0" and d["submitter"] == address_id(SAMPLERS[0])
    assert (d["verdict"], d["bond"], d["disputer"]) == ("Accepted", str(BOND), address_id(DISPUTER))
    assert (d["evidence"], d["item"]) == ("Episode", "2")
    assert d["round"] == "1-0" and d["voteDeadline"] == "99999" and d["settledAt"] is not None
    assert story.result.get("Protocol", "decentrl")["disputeCount"] == 1


def test_jurors_record_votes_and_the_minority_slash(story):
    jurors = {j["node"]: j for j in story.result.all("Juror")}
    assert set(jurors) == {address_id(j) for j in JURORS}
    minority = jurors[address_id(JURORS[2])]
    assert (minority["uphold"], minority["withMajority"], minority["slashed"]) == (False, False, str(20 * TOKEN))
    assert all(jurors[address_id(j)]["withMajority"] for j in JURORS[:2])
    assert all(j["released"] and j["committed"] and j["voted"] for j in jurors.values())
    assert story.result.get("Node", address_id(JURORS[2]))["reputation"] == 55


def test_penalties_reclaim_pay_and_slash(story):
    penalties = {p["node"]: p for p in story.result.all("DisputePenalty")}
    assert set(penalties) == {address_id(n) for n in [SAMPLERS[0], *VALIDATORS]}
    sampler = penalties[address_id(SAMPLERS[0])]
    assert (sampler["role"], sampler["slashed"], sampler["payReclaimed"]) == (
        "Sampler", str(10 * TOKEN), str(story.pool_share(Role.SAMPLER)))
    node = story.result.get("Node", address_id(SAMPLERS[0]))
    assert (node["totalEarned"], node["totalSlashed"], node["reputation"]) == ("0", str(10 * TOKEN), 72 - 20)
    stake = story.result.get("Stake", f"{address_id(SAMPLERS[0])}-Sampler")
    assert stake["staked"] == str(5 * MIN_STAKE[Role.SAMPLER] - 10 * TOKEN)


def test_reclaimed_payouts_and_held_pay(story):
    sub = story.result.get("Submission", "1-0-Sampler-0")
    payout = story.result.get("Payout", sub["payout"])
    assert payout["reclaimed"] is True
    held = story.result.get("HeldPay", payout["heldPay"])
    assert (held["status"], held["reclaimedTo"], held["payout"]) == ("Reclaimed", REQUESTER, payout["id"])
    other = story.result.get("Payout", story.result.get("Submission", "1-0-Sampler-1")["payout"])
    assert other["reclaimed"] is False
    assert story.result.get("HeldPay", other["heldPay"])["status"] == "Released"
    assert story.result.get("Account", address_id(SAMPLERS[1]))["vaultClaimable"] == str(story.pool_share(Role.SAMPLER))


def test_task_fails_and_its_books_balance(story):
    task = story.result.get("Task", "1")
    assert task["status"] == "Failed"
    share = {role: story.pool_share(role) for role in Role}  # round 0 of 2
    reclaimed = share[Role.SAMPLER] + 3 * share[Role.VALIDATOR]
    earned = 2 * share[Role.SAMPLER] + share[Role.TRAINER] + 3 * share[Role.VALIDATOR]
    assert task["earned"] == str(earned - reclaimed)
    # Settlement refunded the free escrow (all but round 0's held pay); the reclaims went to the
    # requester too; sampler 1's pay was released; the trainer's is still held.
    refund = int(task["refund"])
    assert refund == 1000 * TOKEN - earned
    requester = story.result.get("Account", address_id(REQUESTER))
    assert int(requester["vaultClaimable"]) == refund + reclaimed
    assert int(task["escrow"]) == share[Role.TRAINER]


def test_awards_and_withdrawal_of_what_is_owed(story):
    awards = story.result.all("DisputeAward")
    to = {}
    for a in awards:
        to[a["account"]] = to.get(a["account"], 0) + int(a["amount"])
    assert to[address_id(JURORS[0])] == to[address_id(JURORS[1])] == story.each
    assert to[address_id(DISPUTER)] == BOND + story.pot - 2 * story.each
    assert story.result.get("Account", address_id(DISPUTER))["disputeOwed"] == "0"
    assert story.result.get("Account", address_id(JURORS[0]))["disputeOwed"] == str(story.each)
    (withdrawal,) = story.result.all("DisputeWithdrawal")
    assert withdrawal["amount"] == str(BOND + story.pot - 2 * story.each)
