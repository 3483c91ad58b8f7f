"""Votes are sealed: nothing is opened in the Attest (commit) phase, and an opening must match the
caller's own commitment: a wrong salt or bitmap reverts CommitmentMismatch, and a commitment copied
from another validator cannot be opened by the copier (it binds the committer's address)."""

import brownie

from workers.protocol import Phase


def _mismatch(task_id, node):
    return brownie.reverts(f"CommitmentMismatch: {task_id}, {node.address.lower()}")


def test_opening_in_commit_phase_reverts(registry, round_driver):
    round_driver.work()
    v = round_driver.validators()[0]
    round_driver.seal_votes(validators=[v])
    with brownie.reverts(f"WrongPhase: {round_driver.task_id}, {Phase.ATTEST}"):
        round_driver.open_votes(validators=[v])


def test_wrong_salt_reverts(registry, round_driver):
    round_driver.work()
    round_driver.seal_votes(0b111)
    v = round_driver.validators()[0]
    with _mismatch(round_driver.task_id, v):
        registry.attest(round_driver.task_id, 0, 0b111, b"\x07" * 32, {"from": v})


def test_other_bitmap_reverts(registry, round_driver):
    round_driver.work()
    round_driver.seal_votes(0b111)
    v = round_driver.validators()[0]
    with _mismatch(round_driver.task_id, v):
        registry.attest(round_driver.task_id, 0, 0b011, round_driver.vote_salt(v), {"from": v})


def test_copied_commitment_cannot_be_opened_by_copier(registry, round_driver):
    round_driver.work()
    honest, second, copier = round_driver.validators()
    tx = round_driver.seal_votes(0b011, validators=[honest])[0]
    copied = tx.events["AttestationCommitted"]["commitment"]
    round_driver.seal_votes(0b011, validators=[second])
    registry.commitAttestation(round_driver.task_id, 0, copied, {"from": copier})
    round_driver.open_votes(0b011, validators=[honest])  # the honest vote and salt are now public
    with _mismatch(round_driver.task_id, copier):
        registry.attest(round_driver.task_id, 0, 0b011, round_driver.vote_salt(honest), {"from": copier})
