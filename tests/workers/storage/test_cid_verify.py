"""verify() and decode(): mismatches and malformed CIDs fail with messages that say why."""
import pytest
from vectors import MIB, pattern

from workers.cid import CIDMismatch, compute, decode, encode, verify


def test_verify_accepts_matching_content():
    data = pattern("shake256", MIB + 7)
    verify(data, compute(data))


@pytest.mark.parametrize("size", [1, MIB + 7])
def test_verify_rejects_one_flipped_byte(size):
    data = bytearray(pattern("shake256", size))
    cid = compute(bytes(data))
    data[size // 2] ^= 1
    with pytest.raises(CIDMismatch, match=f"expected {cid}, the {size} bytes received hash to b"):
        verify(bytes(data), cid)


def test_verify_rejects_truncated_content():
    data = pattern("shake256", MIB)
    with pytest.raises(CIDMismatch):
        verify(data[:-1], compute(data))


def test_encode_decode_round_trip():
    cid = compute(b"x")
    assert encode(decode(cid)) == cid


@pytest.mark.parametrize("bad, reason", [
    ("QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR", "CIDv0; add with `--cid-version 1`"),
    ("zb2rhe5P4gXftAwvA4eXQ5HJwsER2owDyS9sKaQRRVQPn93bA", "not a base32 CIDv1"),
    ("b!!!", "not valid base32"),
    ("bafkqaaa", "not a CIDv1 raw/dag-pb sha2-256"),  # identity-hash CID
])
def test_decode_rejects_what_it_cannot_check(bad, reason):
    with pytest.raises(ValueError, match=reason.replace("`", ".").replace("(", ".")):
        decode(bad)


def test_verify_with_a_malformed_cid_is_an_error_not_a_mismatch():
    with pytest.raises(ValueError, match="CIDv0") as raised:
        verify(b"x", "QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR")
    assert not isinstance(raised.value, CIDMismatch)
