"""keccak256 for the node's hot loops (Merkle trees, challenge draws, episode seeds), through
safe-pysha3's C extension (an eth-brownie dependency): eth_utils.keccak goes through pycryptodome,
whose setup costs ~7 us a call against ~1 us here, and those loops hash thousands of small strings."""

from sha3 import keccak_256


def keccak256(data: bytes) -> bytes:
    """keccak256 of `data` (the digest eth_utils.keccak gives for bytes)."""
    return keccak_256(data).digest()
