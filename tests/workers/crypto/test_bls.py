"""workers/crypto/bls.py: keys, signatures and aggregation in the contracts' encoding, checked
against py-ecc directly (the contracts' agreement is tested in tests/stakes and tests/forge)."""

import pytest
from py_ecc import optimized_bn128 as bn

from workers.crypto.bls import BlsKey, N, P, aggregate_g1, aggregate_g2, hash_to_g1, is_g1, verify


def test_seed_gives_the_same_key_and_keys_differ_by_seed():
    assert BlsKey.from_seed(b"\x01" * 32) == BlsKey.from_seed(b"\x01" * 32)
    assert BlsKey.from_seed(b"\x01" * 32).pubkey_g1 != BlsKey.from_seed(b"\x02" * 32).pubkey_g1


def test_secret_never_in_repr():
    key = BlsKey.from_secret(123456789123456789)
    assert "123456789123456789" not in repr(key)


def test_g1_and_g2_keys_share_the_secret():
    key = BlsKey.from_secret(7)
    x, y = bn.normalize(bn.multiply(bn.G1, 7))
    assert key.pubkey_g1 == (int(x), int(y))
    x2, y2 = bn.normalize(bn.multiply(bn.G2, 7))
    assert key.pubkey_g2 == (int(x2.coeffs[1]), int(x2.coeffs[0]), int(y2.coeffs[1]), int(y2.coeffs[0]))


def test_hash_to_g1_is_on_curve_and_deterministic():
    for i in range(8):
        point = hash_to_g1(bytes([i]) * 32)
        assert is_g1(point) and point != [0, 0]
        assert point == hash_to_g1(bytes([i]) * 32)
        assert all(0 < c < P for c in point)


def test_hash_to_g1_wants_32_bytes():
    with pytest.raises(ValueError):
        hash_to_g1(b"short")


def test_aggregate_signature_verifies_under_aggregate_key_only():
    keys = [BlsKey.from_seed(bytes([i]) * 32) for i in range(3)]
    message = b"\x42" * 32
    sigma = aggregate_g1(k.sign(message) for k in keys)
    apk2 = aggregate_g2(k.pubkey_g2 for k in keys)
    assert verify(sigma, apk2, message)
    assert not verify(sigma, aggregate_g2(k.pubkey_g2 for k in keys[:2]), message)


def test_secret_out_of_range_is_refused():
    for bad in (0, N):
        with pytest.raises(ValueError):
            BlsKey.from_secret(bad)


def test_a_g2_key_off_the_twist_is_refused_even_when_registered():
    # `registered` skips only the subgroup check, which the chain's pairing precompile made
    keys = [BlsKey.from_seed(bytes([i]) * 32).pubkey_g2 for i in range(3)]
    bad = (keys[0][0], keys[0][1], keys[0][2], (keys[0][3] + 1) % P)
    for registered in (False, True):
        with pytest.raises(ValueError, match="not a G2 point"):
            aggregate_g2([keys[1], bad], registered=registered)
    assert aggregate_g2(keys, registered=True) == aggregate_g2(keys)
