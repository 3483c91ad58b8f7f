"""workers/merkle.py: roots, proofs and verification of keccak Merkle trees."""

import pytest
from eth_utils import keccak

from workers.merkle import MerkleTree, hash_pair, leaf_hash, merkle_root, process_proof, verify


def items(n):
    return [f"episode-{i}".encode() for i in range(n)]


def reference_root(nodes):
    """Independent recursion over the documented layout (odd node carried up)."""
    if len(nodes) == 1:
        return nodes[0]
    nxt = []
    for i in range(0, len(nodes), 2):
        if i + 1 == len(nodes):
            nxt.append(nodes[i])
        else:
            a, b = sorted([nodes[i], nodes[i + 1]])
            nxt.append(keccak(a + b))
    return reference_root(nxt)


def test_leaf_is_double_keccak():
    assert leaf_hash(b"abc") == keccak(keccak(b"abc"))


def test_pair_hash_is_order_independent():
    a, b = keccak(b"a"), keccak(b"b")
    assert hash_pair(a, b) == hash_pair(b, a) == keccak(min(a, b) + max(a, b))


def test_single_item_root_is_its_leaf():
    assert merkle_root([b"only"]) == leaf_hash(b"only")
    assert MerkleTree([b"only"]).proof(0) == []


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 33, 100])
def test_root_matches_reference(n):
    assert merkle_root(items(n)) == reference_root([leaf_hash(x) for x in items(n)])


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 64, 101])
def test_every_proof_verifies(n):
    tree = MerkleTree(items(n))
    for i, item in enumerate(items(n)):
        proof = tree.proof(i)
        assert verify(tree.root, item, proof)
        assert process_proof(tree.leaf(i), proof) == tree.root
        assert len(proof) <= (n - 1).bit_length()


def test_proof_rejects_other_item_and_other_root():
    tree = MerkleTree(items(6))
    proof = tree.proof(2)
    assert not verify(tree.root, b"episode-3", proof)
    assert not verify(merkle_root(items(7)), b"episode-2", proof)
    assert not verify(tree.root, b"episode-2", proof[:-1])


def test_root_depends_on_grouping_count_and_content():
    base = merkle_root(items(4))
    e = items(4)
    assert merkle_root([e[0], e[2], e[1], e[3]]) != base
    assert merkle_root(items(4) + [b"episode-3"]) != base  # no duplicate-last-leaf ambiguity
    assert merkle_root([b"episode-0", b"episode-1", b"episode-2", b"episode-X"]) != base


def test_sibling_swaps_keep_the_root():
    # Sorted pairs: a root fixes which items pair up, not left/right; put an index in an item when
    # its position matters.
    e = items(4)
    assert merkle_root([e[1], e[0], e[3], e[2]]) == merkle_root(e) == merkle_root(list(reversed(e)))


def test_inner_node_cannot_pass_as_item():
    tree = MerkleTree(items(4))
    inner = tree.levels[1][0]
    # Without leaf double hashing the 64-byte concatenation of two leaves would verify.
    pair = b"".join(sorted([tree.leaf(0), tree.leaf(1)]))
    assert not verify(tree.root, pair, [tree.levels[1][1]])
    assert process_proof(inner, [tree.levels[1][1]]) == tree.root


def test_empty_batch_and_bad_index_raise():
    with pytest.raises(ValueError):
        MerkleTree([])
    with pytest.raises(IndexError):
        MerkleTree(items(3)).proof(3)


def test_a_tree_over_digests_is_the_tree_over_the_items():
    items = [bytes([i]) * (i + 1) for i in range(7)]
    by_digest = MerkleTree([keccak(x) for x in items], digests=True)
    assert by_digest.root == MerkleTree(items).root
    assert all(verify(by_digest.root, x, by_digest.proof(i)) for i, x in enumerate(items))
    assert not verify(by_digest.root, items[0], by_digest.proof(1))
