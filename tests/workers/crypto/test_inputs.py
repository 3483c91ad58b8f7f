"""workers.crypto.inputs: the payload round-trips through its descriptor; a changed ciphertext,
a wrong key, a key that does not match the commitment or a changed descriptor is detected."""

import dataclasses

import pytest
from eth_account import Account

from workers.crypto import inputs
from workers.crypto.envelope import key_commitment, new_key
from workers.crypto.errors import KeyCommitmentMismatch, TamperedCiphertext
from workers.storage import cid as cids

PAYLOAD = b"safetensors bytes of a private policy" * 50


@pytest.fixture
def requester():
    return Account.create()


def test_round_trip_with_the_derived_key(requester):
    descriptor, ciphertext = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    assert PAYLOAD not in ciphertext and descriptor.cid == cids.compute(ciphertext)
    assert descriptor.size == len(ciphertext)
    key = inputs.data_key(requester.key, descriptor.key_salt)
    assert inputs.decrypt(descriptor, ciphertext, key) == PAYLOAD
    assert inputs.from_dict(descriptor.to_dict()) == descriptor


def test_each_payload_gets_its_own_key(requester):
    a, _ = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    b, _ = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    assert a.key_salt != b.key_salt and a.key_commitment != b.key_commitment


def test_tampered_ciphertext_is_detected_by_its_cid(requester):
    descriptor, ciphertext = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    changed = bytearray(ciphertext)
    changed[40] ^= 1
    with pytest.raises(TamperedCiphertext, match="do not have the spec's CID"):
        inputs.decrypt(descriptor, bytes(changed), inputs.data_key(requester.key, descriptor.key_salt))


def test_tampered_ciphertext_with_a_matching_descriptor_fails_the_tag(requester):
    """Someone who also rewrites the descriptor's CID (a forged spec) still fails GCM."""
    descriptor, ciphertext = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    changed = bytearray(ciphertext)
    changed[-1] ^= 1
    forged = dataclasses.replace(descriptor, cid=cids.compute(bytes(changed)))
    with pytest.raises(TamperedCiphertext, match="tag does not verify"):
        inputs.decrypt(forged, bytes(changed), inputs.data_key(requester.key, descriptor.key_salt))


def test_changed_descriptor_salt_fails_the_tag(requester):
    descriptor, ciphertext = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    key = inputs.data_key(requester.key, descriptor.key_salt)
    forged = dataclasses.replace(descriptor, key_salt=bytes(32))
    with pytest.raises(TamperedCiphertext):
        inputs.decrypt(forged, ciphertext, key)


def test_a_key_other_than_the_committed_one_is_refused(requester):
    descriptor, ciphertext = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    with pytest.raises(KeyCommitmentMismatch):
        inputs.decrypt(descriptor, ciphertext, new_key())
    other = new_key()
    forged = dataclasses.replace(descriptor, key_commitment=key_commitment(other))
    with pytest.raises(TamperedCiphertext):
        inputs.decrypt(forged, ciphertext, other)


@pytest.mark.parametrize("change,field", [
    (dict(kind="env_kwargs"), "kind"), (dict(algorithm="AES-128-CBC"), "algorithm"), (dict(size=3), "size"),
    (dict(cid="Qm123"), "cid"), (dict(key_salt="00"), "key_salt"), (dict(extra=1), "extra")])
def test_bad_descriptor_names_the_field(requester, change, field):
    descriptor, _ = inputs.encrypt(requester.key, PAYLOAD, "initial_policy")
    with pytest.raises(inputs.InputsFieldError) as info:
        inputs.from_dict({**descriptor.to_dict(), **change})
    assert info.value.field == field
