"""A task's encrypted inputs: the payload, its descriptor in the spec, and the requester's data key.

The requester encrypts one payload with a fresh data key and publishes only the ciphertext (by
CID); the spec carries the public descriptor (`EncryptedInputs`), so every node can decide whether
to claim the task without decrypting anything. Kinds of payload:

- "initial_policy": a policy's safetensors (`workers.rl.policy.to_bytes`, the spec's architecture)
  that round 0 rolls out instead of the policy the spec's seed gives, e.g. a private pre-trained
  policy to fine-tune.

The data key is derived, not stored: `HKDF-SHA256(requester private key, salt = key_salt,
info = LABEL)`, with a random public `key_salt` per payload, so the requester can wrap it for the
task's nodes later (`decentrl task keys`) from nothing but its keystore. The ciphertext is
`envelope.seal(data key, payload, aad = LABEL || kind || key_salt)`; its AAD ties it to its kind
and descriptor. `key_commitment` fixes the one key that opens it (GCM alone is not committing)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from workers import cid as cids
from workers.crypto.envelope import ALGORITHM, KEY_SIZE, check_key_commitment, key_commitment, open_sealed, seal
from workers.crypto.errors import TamperedCiphertext

LABEL = b"decentrl/inputs/v1"
KINDS = ("initial_policy",)
SALT_SIZE = 32
MAX_CIPHERTEXT = 1 << 30  # 1 GiB


class InputsFieldError(ValueError):
    """A descriptor field that is missing or invalid (spec parsing turns it into a SpecError)."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class EncryptedInputs:
    """The public descriptor of a task's encrypted payload (the spec's "inputs" object)."""

    cid: str
    """CID of the ciphertext (nonce || ciphertext || tag)."""
    kind: str
    """What the plaintext is (module doc): "initial_policy"."""
    key_commitment: bytes
    """envelope.key_commitment(data key): the only key a node accepts."""
    key_salt: bytes
    """Public salt the requester derives the data key with."""
    size: int
    """Bytes of the ciphertext: nodes know what they will fetch before they claim."""
    algorithm: str = ALGORITHM

    def to_dict(self) -> dict:
        return {"algorithm": self.algorithm, "cid": self.cid, "key_commitment": self.key_commitment.hex(),
                "key_salt": self.key_salt.hex(), "kind": self.kind, "size": self.size}

    def aad(self) -> bytes:
        return LABEL + self.kind.encode("ascii") + b"\x00" + self.key_salt


FIELDS = ("algorithm", "cid", "key_commitment", "key_salt", "kind", "size")


def _hex32(name: str, value) -> bytes:
    if not isinstance(value, str):
        raise InputsFieldError(name, f"must be a hex string, got {type(value).__name__}")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise InputsFieldError(name, "must be lowercase hex without 0x") from None
    if len(raw) != 32 or raw.hex() != value:
        raise InputsFieldError(name, "must be 32 bytes as 64 lowercase hex digits")
    return raw


def from_dict(d) -> EncryptedInputs:
    """An EncryptedInputs from its JSON object; InputsFieldError naming the first bad field."""
    if not isinstance(d, dict):
        raise InputsFieldError("", f"must be a JSON object, got {type(d).__name__}")
    for key in sorted(d):
        if key not in FIELDS:
            raise InputsFieldError(key, f"unknown key; allowed keys: {', '.join(FIELDS)}")
    for key in FIELDS:
        if key not in d:
            raise InputsFieldError(key, "missing")
    if d["algorithm"] != ALGORITHM:
        raise InputsFieldError("algorithm", f"must be {ALGORITHM!r}, got {d['algorithm']!r}")
    if d["kind"] not in KINDS:
        raise InputsFieldError("kind", f"must be one of {', '.join(KINDS)}, got {d['kind']!r}")
    cid = d["cid"]
    try:
        cids.decode(cid)
    except (TypeError, ValueError) as error:
        raise InputsFieldError("cid", f"not a CID: {error}") from None
    size = d["size"]
    if isinstance(size, bool) or not isinstance(size, int) or not 28 <= size <= MAX_CIPHERTEXT:
        raise InputsFieldError("size", f"must be an integer in [28, {MAX_CIPHERTEXT}] (bytes of ciphertext)")
    return EncryptedInputs(cid=cid, kind=d["kind"], key_commitment=_hex32("key_commitment", d["key_commitment"]),
                           key_salt=_hex32("key_salt", d["key_salt"]), size=size)


def data_key(requester_private_key: bytes, key_salt: bytes) -> bytes:
    """The payload's data key, derived from the requester's private key and the public salt."""
    return HKDF(hashes.SHA256(), KEY_SIZE, salt=bytes(key_salt), info=LABEL).derive(bytes(requester_private_key))


def encrypt(requester_private_key: bytes, plaintext: bytes, kind: str) -> tuple[EncryptedInputs, bytes]:
    """(descriptor, ciphertext) for `plaintext`: publish the ciphertext, put the descriptor in the spec."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    salt = os.urandom(SALT_SIZE)
    key = data_key(requester_private_key, salt)
    probe = EncryptedInputs(cid="", kind=kind, key_commitment=key_commitment(key), key_salt=salt, size=0)
    ciphertext = seal(key, plaintext, probe.aad())
    return EncryptedInputs(cid=cids.compute(ciphertext), kind=kind, key_commitment=probe.key_commitment,
                           key_salt=salt, size=len(ciphertext)), ciphertext


def decrypt(descriptor: EncryptedInputs, ciphertext: bytes, key: bytes) -> bytes:
    """The plaintext, after checking the ciphertext against the descriptor's CID and size, the key
    against its commitment, and the GCM tag (TamperedCiphertext / KeyCommitmentMismatch)."""
    ciphertext = bytes(ciphertext)
    if len(ciphertext) != descriptor.size or cids.compute(ciphertext) != descriptor.cid:
        raise TamperedCiphertext(f"encrypted inputs: the {len(ciphertext)} bytes fetched do not have the spec's "
                                 f"CID {descriptor.cid} and size {descriptor.size}")
    check_key_commitment(key, descriptor.key_commitment, f"encrypted inputs {descriptor.cid}")
    return open_sealed(key, ciphertext, descriptor.aad(), f"encrypted inputs {descriptor.cid}")
