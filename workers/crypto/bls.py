"""BN254 BLS signatures as the contracts verify them (contracts/libraries/BN254.sol).

Signatures and hashed messages are in G1, public keys in G2, and every key also has a G1 copy
with the same secret so that the contracts aggregate signers' keys with the cheap ecAdd
precompile (SPECIFICATION.md 3.1). Points travel in the precompiles' encoding: G1 as [x, y], G2
as [x.c1, x.c0, y.c1, y.c0]; the point at infinity is all zeros.

hash_to_g1 is the contract's try-and-increment map, bit for bit. Only public data (messages) is
hashed, so its data-dependent loop leaks nothing secret. Secrets are plain ints here: callers keep
them out of logs and errors (this module never prints one)."""

from __future__ import annotations

from dataclasses import dataclass, field

from eth_utils import keccak
from py_ecc import optimized_bn128 as bn

P = bn.field_modulus
N = bn.curve_order
HASH_DST = keccak(b"decentrl.bls.bn254.g1.keccak-tai.v1")
KEYGEN_DST = b"decentrl.bls.bn254.keygen.v1"
_R = pow(2, 256, P)
_SQRT_EXP = (P + 1) // 4


def _g1_affine(pt) -> list[int]:
    if bn.is_inf(pt):
        return [0, 0]
    x, y = bn.normalize(pt)
    return [int(x), int(y)]


def _g1_point(xy):
    x, y = (int(v) for v in xy)
    if x == 0 and y == 0:
        return bn.Z1
    pt = (bn.FQ(x), bn.FQ(y), bn.FQ.one())
    if x >= P or y >= P or not bn.is_on_curve(pt, bn.b):
        raise ValueError("not a G1 point")
    return pt


def _g2_words(pt) -> list[int]:
    if bn.is_inf(pt):
        return [0, 0, 0, 0]
    x, y = bn.normalize(pt)
    return [int(x.coeffs[1]), int(x.coeffs[0]), int(y.coeffs[1]), int(y.coeffs[0])]


def _g2_point(words, registered: bool = False):
    """The G2 point of `words`, checked on the twist and in the prime-order subgroup; with
    `registered` (a key read from StakeManager, whose registerBlsKey had the pairing precompile
    check exactly that) only on the twist: the subgroup check is a G2 multiplication, ~40 ms in
    py-ecc, per key and per aggregate."""
    x1, x0, y1, y0 = (int(v) for v in words)
    if not (x1 or x0 or y1 or y0):
        return bn.Z2
    pt = (bn.FQ2([x0, x1]), bn.FQ2([y0, y1]), bn.FQ2.one())
    if not bn.is_on_curve(pt, bn.b2) or not (registered or bn.is_inf(bn.multiply(pt, N))):
        raise ValueError("not a G2 point of the prime-order subgroup")
    return pt


def hash_to_g1(message: bytes) -> list[int]:
    """The contract's hashToG1 of a 32-byte message: for counter 0, 1, ...: x is the 512-bit
    keccak(HASH_DST ‖ message ‖ counter ‖ 0) ‖ keccak(... ‖ 1) reduced mod p; the first x with
    x³+3 a square gives the point, y's parity taken from the first hash's low bit."""
    if len(message) != 32:
        raise ValueError("message must be 32 bytes (a keccak digest)")
    for counter in range(256):
        h0 = int.from_bytes(keccak(HASH_DST + message + bytes([counter, 0])), "big")
        h1 = int.from_bytes(keccak(HASH_DST + message + bytes([counter, 1])), "big")
        x = (h0 * _R + h1) % P
        rhs = (pow(x, 3, P) + 3) % P
        y = pow(rhs, _SQRT_EXP, P)
        if y * y % P != rhs:
            continue
        if (y & 1) != (h0 & 1):
            y = P - y
        return [x, y]
    raise ValueError("no curve point after 256 tries")  # probability 2^-256


@dataclass(frozen=True)
class BlsKey:
    """A BLS secret with its public keys in the contracts' encoding. repr never shows the secret."""

    secret: int = field(repr=False)
    pubkey_g2: tuple[int, int, int, int]
    pubkey_g1: tuple[int, int]

    @classmethod
    def from_secret(cls, secret: int) -> BlsKey:
        if not 0 < secret < N:
            raise ValueError("BLS secret out of range")
        return cls(secret, tuple(_g2_words(bn.multiply(bn.G2, secret))),
                   tuple(_g1_affine(bn.multiply(bn.G1, secret))))

    @classmethod
    def from_seed(cls, seed: bytes) -> BlsKey:
        """Derives the key from 32 bytes of secret seed: 512 bits of keccak output reduced into
        [1, n-1], so the secret is uniform up to a 2^-250 statistical distance."""
        if len(seed) != 32:
            raise ValueError("seed must be 32 bytes")
        wide = int.from_bytes(keccak(KEYGEN_DST + seed + b"\x00") + keccak(KEYGEN_DST + seed + b"\x01"), "big")
        return cls.from_secret(wide % (N - 1) + 1)

    def sign(self, message: bytes) -> list[int]:
        """sigma = sk · H(m) in G1."""
        return _g1_affine(bn.multiply(_g1_point(hash_to_g1(message)), self.secret))


def aggregate_g1(points) -> list[int]:
    """Sum of G1 points (signatures or G1 keys)."""
    total = bn.Z1
    for xy in points:
        total = bn.add(total, _g1_point(xy))
    return _g1_affine(total)


def aggregate_g2(points, registered: bool = False) -> list[int]:
    """Sum of G2 public keys (the aggregate key an attestAggregate caller supplies); `registered`:
    the keys were read from the chain's registry (see _g2_point)."""
    total = bn.Z2
    for words in points:
        total = bn.add(total, _g2_point(words, registered))
    return _g2_words(total)


def verify(signature, pubkey_g2, message: bytes) -> bool:
    """Off-chain check e(sigma, g2) == e(H(m), pk): ~0.6 s with py-ecc; the contracts do their own."""
    sig = _g1_point(signature)
    pk = _g2_point(pubkey_g2)
    if bn.is_inf(pk):
        return False
    hm = _g1_point(hash_to_g1(message))
    # One final exponentiation of the product of both Miller loops: e(sigma, -g2) · e(H(m), pk) == 1.
    product = bn.pairing(bn.neg(bn.G2), sig, final_exponentiate=False) * bn.pairing(pk, hm, final_exponentiate=False)
    return bn.final_exponentiate(product) == bn.FQ12.one()


def is_g1(xy) -> bool:
    try:
        _g1_point(xy)
    except ValueError:
        return False
    return True
