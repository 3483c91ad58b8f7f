"""attest opens a sealed vote in AttestReveal and records one bitmap per validator and round
(Attested, attestationOf); bits of submissions that were not revealed are masked out; a second
opening reverts."""

import brownie

from workers.protocol import Role


def _sealed(round_driver, bitmap):
    round_driver.work()
    round_driver.seal_votes(bitmap)


def test_attestation_is_recorded_and_emitted(registry, round_driver, state):
    _sealed(round_driver, 0b101)
    v = round_driver.validators()[1]
    slot = state.membershipOf(round_driver.task_id, v)["slot"]
    tx = round_driver.open_votes(0b101, validators=[v])[0]
    assert dict(tx.events["Attested"]) == {
        "taskId": round_driver.task_id, "round": 0, "validator": v.address, "slot": slot,
        "acceptBitmap": 0b101,
    }
    assert tuple(registry.attestationOf(round_driver.task_id, 0, slot)) == (True, 0b101, 0)
    assert state.taskOf(round_driver.task_id)["pending"] == 2
    assert state.attestCommitmentOf(round_driver.task_id, 0, slot) == "0x" + "00" * 32  # opened


def test_second_attestation_reverts(registry, round_driver):
    _sealed(round_driver, 0b111)
    v = round_driver.validators()[0]
    round_driver.open_votes(0b111, validators=[v])
    with brownie.reverts(f"AlreadyAttested: {round_driver.task_id}, {v.address.lower()}"):
        round_driver.open_votes(0b111, validators=[v])


def test_bits_beyond_submissions_are_ignored(registry, round_driver, state):
    _sealed(round_driver, 2**256 - 1)
    v = round_driver.validators()[0]
    slot = state.membershipOf(round_driver.task_id, v)["slot"]
    tx = round_driver.open_votes(2**256 - 1, validators=[v])[0]
    assert tx.events["Attested"]["acceptBitmap"] == 0b111
    assert registry.attestationOf(round_driver.task_id, 0, slot)["acceptBitmap"] == 0b111


def test_bits_of_unrevealed_submissions_are_masked(registry, round_driver, samplers, state):
    round_driver.commit_samples()
    round_driver.reveal(samplers[0])
    round_driver.expire()  # samplers[1] committed but did not reveal
    round_driver.commit_checkpoint()
    round_driver.reveal_checkpoint()
    assert state.taskOf(round_driver.task_id)["revealedMask"] == 0b101
    round_driver.seal_votes(0b111)
    v = round_driver.validators()[0]
    slot = state.membershipOf(round_driver.task_id, v)["slot"]
    tx = round_driver.open_votes(0b111, validators=[v])[0]
    assert tx.events["Attested"]["acceptBitmap"] == 0b101
    assert tuple(registry.attestationOf(round_driver.task_id, 0, slot)) == (True, 0b101, 0)
    assert state.submissionOf(round_driver.task_id, 0, Role.SAMPLER, 1)["revealed"] is False
