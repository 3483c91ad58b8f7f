"""commitAttestation seals a validator's vote in the Attest phase: the commitment is stored and
emitted (AttestationCommitted), the vote stays unknown, and the phase ends once every expected
validator committed. The node computes the commitment itself (workers.protocol.attest_commitment,
the twin of StateView.attestCommitmentFor)."""

import brownie

from workers.protocol import Phase, attest_commitment


def test_commitment_is_stored_and_emitted(registry, round_driver, state):
    round_driver.work()
    v = round_driver.validators()[0]
    slot = state.membershipOf(round_driver.task_id, v)["slot"]
    tx = round_driver.seal_votes(0b101, validators=[v])[0]
    sealed = round_driver.vote_commitment(v, 0b101)
    assert dict(tx.events["AttestationCommitted"]) == {
        "taskId": round_driver.task_id, "round": 0, "validator": v.address, "slot": slot,
        "commitment": "0x" + sealed.hex(),
    }
    assert state.attestCommitmentOf(round_driver.task_id, 0, slot) == "0x" + sealed.hex()
    assert tuple(registry.attestationOf(round_driver.task_id, 0, slot)) == (False, 0, 0)  # sealed: not voted
    t = state.taskOf(round_driver.task_id)
    assert (t["phase"], t["pending"]) == (Phase.ATTEST, 2)


def test_python_commitment_matches_state_view(round_driver, state):
    v = round_driver.validators()[0]
    salt = b"\x5a" * 32
    for bitmap in (0, 0b101, 2**64 - 1):
        assert state.attestCommitmentFor(round_driver.task_id, 3, v, bitmap, salt) == "0x" + attest_commitment(
            round_driver.task_id, 3, v.address, bitmap, salt).hex()


def test_second_commit_reverts(registry, round_driver):
    round_driver.work()
    v = round_driver.validators()[0]
    round_driver.seal_votes(validators=[v])
    with brownie.reverts(f"AlreadyCommitted: {round_driver.task_id}, {v.address.lower()}"):
        round_driver.seal_votes(0b001, validators=[v])


def test_empty_commitment_reverts(registry, round_driver):
    round_driver.work()
    with brownie.reverts("EmptyCommitment: "):
        registry.commitAttestation(round_driver.task_id, 0, b"\x00" * 32, {"from": round_driver.validators()[0]})


def test_commit_for_another_round_reverts(registry, round_driver):
    round_driver.work()
    v = round_driver.validators()[0]
    with brownie.reverts(f"RoundMismatch: {round_driver.task_id}, 1, 0"):
        registry.commitAttestation(round_driver.task_id, 1, round_driver.vote_commitment(v, 0b111, 1), {"from": v})
