"""A task created, claimed, committed, revealed, attested (per vote and by a BLS aggregate),
finalized and paid, run through the compiled mappings: the Task, Round, Submission, Attestation,
Payout and ReputationChange entities say what happened (SPECIFICATION.md 5, 6 and 11)."""

import pytest
from subgraph_story import MIN_STAKE, REQUESTER, SAMPLERS, TOKEN, TRAINER, VALIDATORS, lifecycle_story, word
from subgraph_support import address_id, event_id

from workers.protocol import Role

BOUNTY = 1000 * TOKEN


@pytest.fixture(scope="module")
def story():
    s = lifecycle_story()
    s.result = s.run()
    assert s.result.error is None, s.result.error
    return s


def test_task_walks_open_drawing_active_completed(story):
    task = story.result.get("Task", "1")
    assert task["status"] == "Completed"
    assert task["requester"] == address_id(REQUESTER)
    assert (task["specCid"], task["bounty"], task["numSamplers"], task["numValidators"], task["numRounds"]) == (
        "bafyspec", str(BOUNTY), 2, 3, 1)
    statuses = sorted(story.result.all("TaskStatusChange"), key=lambda c: int(c["blockNumber"]))
    assert [c["status"] for c in statuses] == ["Open", "Drawing", "Active", "Completed"]
    assert task["checkpointRoot"] == "0x" + word(0x400).hex() and task["checkpointCid"] == "bafyckpt0"
    assert task["drawSeedBlock"] is not None and task["phase"] == "AttestReveal"


def test_money_of_the_task_adds_up(story):
    task = story.result.get("Task", "1")
    trainer, sampler, validator = 700 * TOKEN, 100 * TOKEN, 100 * TOKEN // 3
    paid = [2 * sampler, trainer, 3 * validator]
    assert task["paidByRole"] == [str(p) for p in paid]
    assert task["earned"] == str(sum(paid))
    assert task["refund"] == str(BOUNTY - sum(paid)) == "1"  # the validators' thirds round down
    assert task["escrow"] == "0"
    assert story.result.get("Protocol", "decentrl")["totalEscrow"] == "0"
    assert story.result.get("Account", address_id(REQUESTER))["vaultClaimable"] == "1"


def test_round_counts_commits_reveals_and_votes(story):
    rnd = story.result.get("Round", "1-0")
    assert (rnd["commits"], rnd["reveals"], rnd["votes"], rnd["finalized"]) == (3, 3, 3, True)
    assert rnd["phase"] == "AttestReveal" and rnd["checkpointCid"] == "bafyckpt0"


def test_each_sealed_vote_is_a_vote_commitment(story):
    sealed = {c["slot"]: c for c in story.result.all("VoteCommitment")}
    assert sorted(sealed) == [0, 1, 2]
    for slot, node in enumerate(VALIDATORS):
        assert sealed[slot]["validator"] == address_id(node) and sealed[slot]["round"] == "1-0"
        assert sealed[slot]["commitment"] == "0x" + word(0x500 + slot).hex()


def test_submissions_carry_commitment_reveal_verdict_and_pay(story):
    for i, sampler in enumerate(SAMPLERS):
        sub = story.result.get("Submission", f"1-0-Sampler-{i}")
        assert sub["node"] == address_id(sampler)
        assert sub["commitment"] == "0x" + word(0x100 + i).hex()
        assert sub["root"] == "0x" + word(0x200 + i).hex() and sub["cid"] == f"bafysample0{i}"
        assert (sub["revealed"], sub["verdict"], sub["accepts"], sub["rejects"]) == (True, "Accepted", 3, 0)
        payout = story.result.get("Payout", sub["payout"])
        assert payout["node"] == address_id(sampler) and payout["amount"] == str(100 * TOKEN)
        assert payout["submission"] == sub["id"] and "heldPay" not in payout
    trainer = story.result.get("Submission", "1-0-Trainer-0")
    assert story.result.get("Payout", trainer["payout"])["amount"] == str(700 * TOKEN)


def test_one_payout_per_reward_earned_event(story):
    earned = [ev for ev in story.events if ev["handler"] == "handleRewardEarned"]
    assert story.result.ids("Payout") == {event_id(ev) for ev in earned}
    by_role = {}
    for p in story.result.all("Payout"):
        by_role.setdefault(p["role"], []).append(p)
    assert len(by_role["Validator"]) == 3 and all("submission" not in p for p in by_role["Validator"])


def test_aggregate_attestation_becomes_one_vote_per_signer(story):
    aggregate_ev = next(ev for ev in story.events if ev["handler"] == "handleAggregateAttested")
    agg = story.result.get("AggregateAttestation", event_id(aggregate_ev))
    assert (agg["signerBitmap"], agg["signerCount"], agg["submitter"]) == (str(0b110), 2, "0x" + "0f" * 20)
    votes = {a["slot"]: a for a in story.result.all("Attestation")}
    assert sorted(votes) == [0, 1, 2]
    # Slots 1 and 2 signed the aggregate: their votes name the validators holding those slots.
    for slot in (1, 2):
        assert votes[slot]["validator"] == address_id(VALIDATORS[slot])
        assert votes[slot]["aggregate"] == agg["id"]
        assert votes[slot]["id"] == f"{agg['id']}-{slot}"
    assert "aggregate" not in votes[0] and votes[0]["acceptBitmap"] == "7"


def test_every_accepted_node_gains_reputation(story):
    changes = story.result.all("ReputationChange")
    assert len(changes) == 6
    assert {(c["oldScore"], c["newScore"], c["delta"], c["outcome"]) for c in changes} == {(70, 72, 2, "Accepted")}
    for node in [*SAMPLERS, TRAINER, *VALIDATORS]:
        assert story.result.get("Node", address_id(node))["reputation"] == 72


def test_settlement_releases_slots_and_stakes(story):
    for node in [*SAMPLERS, TRAINER, *VALIDATORS]:
        assert story.result.get("Node", address_id(node))["activeSlots"] == 0
    for a in story.result.all("Assignment"):
        assert a["active"] is False and "vacatedReason" not in a and a["endedAt"] is not None
    slot = story.result.get("Slot", "1-Validator-2")
    assert slot["node"] == address_id(VALIDATORS[2])  # as slotOf keeps it
    stake = story.result.get("Stake", f"{address_id(TRAINER)}-Trainer")
    assert (stake["staked"], stake["locked"]) == (str(5 * MIN_STAKE[Role.TRAINER]), "0")
    actions = [c["action"] for c in story.result.all("StakeChange") if c["stake"] == stake["id"]]
    assert sorted(actions) == ["Locked", "Staked", "Unlocked"]


def test_claimable_balances_follow_credits_and_withdrawals(story):
    accounts = {a["id"]: a for a in story.result.all("Account")}
    assert accounts[address_id(SAMPLERS[0])]["vaultClaimable"] == "0"  # withdrew
    assert accounts[address_id(SAMPLERS[1])]["vaultClaimable"] == str(100 * TOKEN)
    assert accounts[address_id(TRAINER)]["vaultClaimable"] == str(700 * TOKEN)
    withdrawn = [v for v in story.result.all("VaultEvent") if v["action"] == "Withdrawn"]
    assert len(withdrawn) == 1 and withdrawn[0]["account"] == address_id(SAMPLERS[0]) and "task" not in withdrawn[0]
    # Token balances move with Transfer events (the mint is not in this story).
    assert accounts[address_id(REQUESTER)]["tokenBalance"] == str(-BOUNTY)


def test_each_event_entity_is_keyed_by_transaction_and_log_index(story):
    created = next(ev for ev in story.events if ev["handler"] == "handleTaskStatusChanged")
    assert event_id(created) in story.result.ids("TaskStatusChange")
    transfers = [ev for ev in story.events if ev["handler"] == "handleTransfer"]
    assert story.result.ids("TokenTransfer") == {event_id(ev) for ev in transfers}
