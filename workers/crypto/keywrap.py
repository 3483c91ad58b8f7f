"""Wrapping a data key for one node's secp256k1 key (ECIES: ephemeral ECDH + HKDF-SHA256 + AES-256-GCM).

    wrap:   e = fresh secp256k1 key;  z = x(e * P_node)
            kek = HKDF-SHA256(z, salt = "", info = LABEL || E || P_node, 32 bytes)
            box = seal(kek, data_key, aad = context)           (workers.crypto.envelope)
    unwrap: z = x(d_node * E), the same kek, open box with the same context

E and P_node are uncompressed points (65 bytes, 0x04 || x || y). The context (`WrapContext.aad`)
binds the chain id, the TaskRegistry's address, the task id and the node's address: a box made for
one (chain, registry, task, node) does not open for any other (TamperedCiphertext), so a wrapped key
cannot be replayed to another task or handed to another node. A node's key pair is its Ethereum
account's: P_node is recovered from a transaction the node signed (workers.crypto.pubkeys)."""
from __future__ import annotations

from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from eth_utils import to_canonical_address, to_checksum_address

from workers.crypto.envelope import KEY_SIZE, open_sealed, seal
from workers.crypto.errors import TamperedCiphertext

LABEL = b"decentrl/keywrap/v1"
POINT_SIZE = 65  # uncompressed secp256k1 point
CURVE = ec.SECP256K1()


@dataclass(frozen=True)
class WrapContext:
    """What a wrapped key is for; every field is bound into the box's associated data."""

    chain_id: int
    registry: str
    """TaskRegistry's address: the same task id on another deployment is another task."""
    task_id: int
    node: str
    """The node the key is wrapped for (its Ethereum address)."""

    def aad(self) -> bytes:
        return b"".join([LABEL, self.chain_id.to_bytes(32, "big"), to_canonical_address(self.registry),
                         self.task_id.to_bytes(32, "big"), to_canonical_address(self.node)])

    def describe(self) -> str:
        return (f"task {self.task_id} of registry {to_checksum_address(self.registry)} on chain {self.chain_id}, "
                f"node {to_checksum_address(self.node)}")


@dataclass(frozen=True)
class WrappedKey:
    """One node's entry in a keyring: the ephemeral public point and the sealed data key."""

    ephemeral: bytes
    box: bytes


def point(public_key: bytes) -> ec.EllipticCurvePublicKey:
    """A secp256k1 public key from 64 raw bytes (x || y, as eth_keys gives it) or 65 (0x04 || x || y)."""
    raw = bytes(public_key)
    if len(raw) == 64:
        raw = b"\x04" + raw
    if len(raw) != POINT_SIZE or raw[0] != 4:
        raise ValueError(f"a secp256k1 public key is 64 raw or 65 uncompressed bytes, got {len(raw)}")
    return ec.EllipticCurvePublicKey.from_encoded_point(CURVE, raw)


def _encoded(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def _kek(shared: bytes, ephemeral: bytes, recipient: bytes) -> bytes:
    return HKDF(hashes.SHA256(), KEY_SIZE, salt=b"", info=LABEL + ephemeral + recipient).derive(shared)


def wrap(data_key: bytes, node_public_key: bytes, context: WrapContext) -> WrappedKey:
    """`data_key` sealed for the holder of `node_public_key`, bound to `context`."""
    recipient = point(node_public_key)
    ephemeral = ec.generate_private_key(CURVE)
    e_pub = _encoded(ephemeral.public_key())
    kek = _kek(ephemeral.exchange(ec.ECDH(), recipient), e_pub, _encoded(recipient))
    return WrappedKey(e_pub, seal(kek, data_key, context.aad()))


def unwrap(wrapped: WrappedKey, private_key: bytes, context: WrapContext) -> bytes:
    """The data key in `wrapped`, opened with the node's 32-byte private key. TamperedCiphertext if
    the box was altered, made for another context (task, node, chain, registry) or for another key."""
    own = ec.derive_private_key(int.from_bytes(bytes(private_key), "big"), CURVE)
    try:
        e_point = point(wrapped.ephemeral)
    except ValueError as error:
        raise TamperedCiphertext(f"wrapped key for {context.describe()}: bad ephemeral key ({error})") from None
    kek = _kek(own.exchange(ec.ECDH(), e_point), _encoded(e_point), _encoded(own.public_key()))
    key = open_sealed(kek, wrapped.box, context.aad(), f"wrapped key for {context.describe()}")
    if len(key) != KEY_SIZE:
        raise TamperedCiphertext(f"wrapped key for {context.describe()}: holds {len(key)} bytes, not a "
                                 f"{KEY_SIZE}-byte key")
    return key
