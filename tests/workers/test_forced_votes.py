"""workers/protocol.py's forced-error names (SPECIFICATION.md 5.5.3): the three-answer vote
(encode_vote / decode_vote), the draw commitment and the forced draw, checked against the ABI
encoding written out by hand here (32-byte big-endian words, an address left-padded) and against
fixed vectors."""

import pytest
from eth_abi import encode
from eth_utils import keccak
from sha3 import keccak_256

from workers.protocol import PLANT_SHIFT, decode_vote, draw_commitment, encode_vote, is_forced

NODE = "0x" + "ab" * 20
SECRET = bytes(range(32))
SEED = bytes.fromhex("5e" * 32)


def word(x: int) -> bytes:
    return x.to_bytes(32, "big")


def by_hand(*words: bytes) -> bytes:
    """keccak256 of the concatenated words, through pysha3 (not the eth_utils / eth_abi pair the
    module uses)."""
    return keccak_256(b"".join(words)).digest()


def test_votes_put_the_plant_bits_64_above_the_accept_bits():
    assert PLANT_SHIFT == 64
    assert encode_vote(0b101, 0b010) == 0b101 | 0b010 << 64
    assert encode_vote(0, 1 << 63) == 1 << 127
    assert encode_vote(0, 0) == 0


@pytest.mark.parametrize("accept, plant", [(0, 0), (0b1011, 0b0100), (2**64 - 1, 0), (0, 2**64 - 1),
                                           (1, 1), (2**33 - 1, 2**32)])
def test_decode_vote_inverts_encode_vote(accept, plant):
    assert decode_vote(encode_vote(accept, plant)) == (accept, plant)


def test_decode_vote_reads_a_raw_uint256():
    assert decode_vote((0b110 << 64) | 0b001) == (0b001, 0b110)
    assert decode_vote(0b111) == (0b111, 0)  # an old accept-only vote: no plant bits
    assert decode_vote(1 << 200 | 5) == (5, 0)  # bits above the plant field are no part of a vote


@pytest.mark.parametrize("accept, plant", [(-1, 0), (0, -1), (2**64, 0), (0, 2**64), (1.0, 0)])
def test_encode_vote_refuses_fields_that_do_not_fit(accept, plant):
    with pytest.raises(ValueError):
        encode_vote(accept, plant)


@pytest.mark.parametrize("v", [-1, 2**256])
def test_decode_vote_refuses_what_is_no_uint256(v):
    with pytest.raises(ValueError):
        decode_vote(v)


def test_draw_commitment_is_keccak_of_the_abi_encoded_task_round_node_secret():
    expected = by_hand(word(7), word(3), bytes(12) + bytes.fromhex(NODE[2:]), SECRET)
    assert draw_commitment(7, 3, NODE, SECRET) == expected
    assert expected == keccak(encode(["uint256", "uint256", "address", "bytes32"], [7, 3, NODE, SECRET]))
    # a fixed vector (computed once from the hand encoding above)
    assert expected.hex() == "084faefbd1a8012888c1bf93b634552f4e08f3523341f1d5f2b435a9c22965bf"
    # every input is bound
    assert draw_commitment(8, 3, NODE, SECRET) != expected
    assert draw_commitment(7, 4, NODE, SECRET) != expected
    assert draw_commitment(7, 3, "0x" + "cd" * 20, SECRET) != expected
    assert draw_commitment(7, 3, NODE, bytes(32)) != expected
    assert draw_commitment(7, 3, NODE.upper().replace("0X", "0x"), SECRET) == expected  # any address case


def draw_value(secret: bytes, seed: bytes) -> int:
    return int.from_bytes(by_hand(secret, seed), "big") % 10_000


def test_is_forced_compares_the_hashed_draw_with_the_basis_points():
    # a fixed vector (computed once from the hand encoding): this draw is 3679 of 10,000
    assert draw_value(SECRET, SEED) == 3679
    assert (is_forced(SECRET, SEED, 3679), is_forced(SECRET, SEED, 3680), is_forced(SECRET, SEED, 5000)) == \
        (False, True, True)
    secrets = [bytes([i]) * 32 for i in range(64)]
    for secret in secrets:
        r = draw_value(secret, SEED)
        assert not is_forced(secret, SEED, r)  # strictly below
        assert is_forced(secret, SEED, r + 1)
        assert not is_forced(secret, SEED, 0)  # never forced at 0
        assert is_forced(secret, SEED, 10_000)  # always at 100%
    # a fair coin forces about half of them, and the seed matters
    forced = [is_forced(s, SEED, 5000) for s in secrets]
    assert 16 < sum(forced) < 48
    assert forced != [is_forced(s, bytes(32), 5000) for s in secrets]
