"""Keccak Merkle trees over byte strings (rollout episodes, checkpoint shards).

A node commits to a whole batch of results with one 32-byte root; anyone holding the batch can
recompute the root, and a single item can be proven against it with a short proof. The chain only
ever stores roots, so on-chain cost does not depend on how many items a batch has.

Layout (compatible with OpenZeppelin's ``MerkleProof.verify`` / ``processProof``):

* leaf   = keccak256(keccak256(item))  -- hashed twice, so a 64-byte item can never pass for an
  inner node (second-preimage defence; OpenZeppelin's recommendation).
* node   = keccak256(min(a, b) ++ max(a, b))  -- sorted pairs: a proof is just the sibling hashes,
  no left/right flags. So a root fixes which items pair up, not each item's position (swapping
  two siblings keeps it): put an index inside an item when its position matters.
* A level with an odd count carries its last node up unchanged (no duplication, so a batch and the
  same batch with its last item repeated have different roots).
* A one-item tree's root is that item's leaf hash. An empty batch has no root (ValueError).
"""

from __future__ import annotations

from collections.abc import Sequence

from workers.hashing import keccak256 as keccak


def leaf_hash(item: bytes) -> bytes:
    """The leaf of `item`: keccak256(keccak256(item))."""
    return keccak(keccak(bytes(item)))


def hash_pair(a: bytes, b: bytes) -> bytes:
    """An inner node: keccak256 of the two children in ascending byte order."""
    return keccak(a + b) if a <= b else keccak(b + a)


class MerkleTree:
    """A tree over `items` (in order). `root`, `proof(i)` and `verify()` are all it offers."""

    def __init__(self, items: Sequence[bytes], *, digests: bool = False):
        """With `digests=True`, `items` are the items' keccak256 digests (leaf = keccak256(digest)),
        for a tree over items that are not all at hand."""
        if len(items) == 0:
            raise ValueError("a Merkle tree needs at least one item")
        level = [keccak(bytes(d)) for d in items] if digests else [leaf_hash(item) for item in items]
        self.levels: list[list[bytes]] = [level]
        while len(level) > 1:
            level = [hash_pair(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                     for i in range(0, len(level), 2)]
            self.levels.append(level)

    def __len__(self) -> int:
        return len(self.levels[0])

    @property
    def root(self) -> bytes:
        return self.levels[-1][0]

    def leaf(self, index: int) -> bytes:
        return self.levels[0][index]

    def proof(self, index: int) -> list[bytes]:
        """Sibling hashes from the leaf at `index` up to the root (levels without one are skipped)."""
        if not 0 <= index < len(self):
            raise IndexError(f"leaf index {index} out of range for {len(self)} items")
        path = []
        for level in self.levels[:-1]:
            sibling = index ^ 1
            if sibling < len(level):
                path.append(level[sibling])
            index //= 2
        return path


def merkle_root(items: Sequence[bytes]) -> bytes:
    return MerkleTree(items).root


def process_proof(leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root a proof leads to from `leaf` (OpenZeppelin's processProof)."""
    node = leaf
    for sibling in proof:
        node = hash_pair(node, sibling)
    return node


def verify(root: bytes, item: bytes, proof: Sequence[bytes]) -> bool:
    """Whether `item` is in the tree with `root`, by its proof."""
    return process_proof(leaf_hash(item), proof) == bytes(root)
