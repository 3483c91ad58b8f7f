"""workers/hashing.py: the fast keccak256 gives eth_utils' digests (Ethereum's keccak, not SHA3-256)."""

import hashlib

import pytest
from eth_utils import keccak

from workers.hashing import keccak256


def test_the_empty_string_has_ethereums_keccak_digest():
    assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert keccak256(b"") != hashlib.sha3_256(b"").digest()


@pytest.mark.parametrize("size", [1, 31, 32, 64, 135, 136, 137, 4096, 100_000])
def test_digests_match_eth_utils_at_every_length(size):
    data = bytes((i * 7 + size) % 256 for i in range(size))
    assert keccak256(data) == keccak(data)
