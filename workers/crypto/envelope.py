"""AES-256-GCM sealing with a random 96-bit nonce: sealed = nonce (12) || ciphertext || tag (16).

Nonces are random (os.urandom): each key seals at most a few messages here (one input payload per
data key, one data key per key-encryption key), far below the 2**32 messages per key at which
random 96-bit nonces need counting. `aad` is authenticated, not encrypted: it binds what the
ciphertext is for, so that it opens only in that context.

GCM is not key-committing (one ciphertext can be made to open under two chosen keys), so every
data key is published with `key_commitment(key)`, which a node checks before it trusts the key."""
from __future__ import annotations

import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from workers.crypto.errors import KeyCommitmentMismatch, TamperedCiphertext

KEY_SIZE = 32
NONCE_SIZE = 12
TAG_SIZE = 16
ALGORITHM = "AES-256-GCM"
_COMMITMENT_LABEL = b"decentrl/key-commitment/v1"


def new_key() -> bytes:
    """A fresh random 256-bit key."""
    return os.urandom(KEY_SIZE)


def _check_key(key: bytes) -> None:
    if not isinstance(key, (bytes, bytearray)) or len(key) != KEY_SIZE:
        raise ValueError(f"an AES-256 key is {KEY_SIZE} bytes")  # never echo the value


def seal(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """nonce || AES-256-GCM(key, nonce, plaintext, aad) || tag."""
    _check_key(key)
    nonce = os.urandom(NONCE_SIZE)
    return nonce + AESGCM(bytes(key)).encrypt(nonce, bytes(plaintext), bytes(aad))


def open_sealed(key: bytes, sealed: bytes, aad: bytes, what: str) -> bytes:
    """The plaintext of `sealed`; TamperedCiphertext naming `what` if the tag does not verify."""
    _check_key(key)
    sealed = bytes(sealed)
    if len(sealed) < NONCE_SIZE + TAG_SIZE:
        raise TamperedCiphertext(f"{what}: {len(sealed)} bytes is shorter than a nonce and a tag "
                                 f"({NONCE_SIZE + TAG_SIZE}); it was truncated")
    try:
        return AESGCM(bytes(key)).decrypt(sealed[:NONCE_SIZE], sealed[NONCE_SIZE:], bytes(aad))
    except InvalidTag:
        raise TamperedCiphertext(f"{what}: the {ALGORITHM} tag does not verify: the ciphertext, nonce, tag "
                                 f"or bound context was altered, or it was sealed for another key") from None


def key_commitment(key: bytes) -> bytes:
    """SHA-256(label || key): published beside a ciphertext so that only one key can open it."""
    _check_key(key)
    return hashlib.sha256(_COMMITMENT_LABEL + bytes(key)).digest()


def check_key_commitment(key: bytes, commitment: bytes, what: str) -> None:
    if key_commitment(key) != bytes(commitment):
        raise KeyCommitmentMismatch(f"{what}: the unwrapped data key does not match the published key "
                                    f"commitment; the requester wrapped another key for this node")
