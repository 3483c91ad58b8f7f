"""workers.crypto.envelope: AES-256-GCM seal/open; any altered byte, AAD or key is detected."""

import pytest

from workers.crypto.envelope import (
    NONCE_SIZE,
    TAG_SIZE,
    check_key_commitment,
    key_commitment,
    new_key,
    open_sealed,
    seal,
)
from workers.crypto.errors import KeyCommitmentMismatch, TamperedCiphertext

AAD = b"task 7"
PLAINTEXT = b"the requester's private inputs" * 10


def test_round_trip():
    key = new_key()
    sealed = seal(key, PLAINTEXT, AAD)
    assert len(sealed) == NONCE_SIZE + len(PLAINTEXT) + TAG_SIZE
    assert PLAINTEXT not in sealed
    assert open_sealed(key, sealed, AAD, "x") == PLAINTEXT


def test_nonces_are_fresh_per_seal():
    key = new_key()
    assert seal(key, PLAINTEXT, AAD)[:NONCE_SIZE] != seal(key, PLAINTEXT, AAD)[:NONCE_SIZE]


@pytest.mark.parametrize("where", [0, NONCE_SIZE, NONCE_SIZE + 5, -1], ids=["nonce", "ciphertext-start",
                                                                             "ciphertext", "tag"])
def test_any_flipped_bit_is_detected(where):
    key = new_key()
    sealed = bytearray(seal(key, PLAINTEXT, AAD))
    sealed[where] ^= 0x01
    with pytest.raises(TamperedCiphertext, match="inputs X: the AES-256-GCM tag does not verify"):
        open_sealed(key, bytes(sealed), AAD, "inputs X")


def test_other_aad_is_detected():
    key = new_key()
    with pytest.raises(TamperedCiphertext):
        open_sealed(key, seal(key, PLAINTEXT, AAD), b"task 8", "x")


def test_other_key_is_detected():
    with pytest.raises(TamperedCiphertext):
        open_sealed(new_key(), seal(new_key(), PLAINTEXT, AAD), AAD, "x")


def test_truncated_is_detected():
    key = new_key()
    with pytest.raises(TamperedCiphertext, match="truncated"):
        open_sealed(key, seal(key, b"", AAD)[:NONCE_SIZE + TAG_SIZE - 1], AAD, "x")


def test_key_commitment_accepts_only_its_key():
    key, other = new_key(), new_key()
    check_key_commitment(key, key_commitment(key), "x")
    with pytest.raises(KeyCommitmentMismatch, match="does not match the published key commitment"):
        check_key_commitment(other, key_commitment(key), "x")


def test_wrong_key_size_refused_without_echoing_it():
    with pytest.raises(ValueError) as info:
        seal(b"k" * 31, PLAINTEXT, AAD)
    assert "kkkk" not in str(info.value)
