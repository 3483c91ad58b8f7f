"""workers.crypto.keywrap: a data key wrapped for one node opens only with that node's key and
only in the (chain, registry, task, node) context it was wrapped for."""

import dataclasses

import pytest
from eth_account import Account

from workers.crypto.envelope import new_key
from workers.crypto.errors import TamperedCiphertext
from workers.crypto.keywrap import WrapContext, WrappedKey, unwrap, wrap
from workers.crypto.pubkeys import public_key_of

REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


@pytest.fixture
def node():
    return Account.create()


@pytest.fixture
def context(node):
    return WrapContext(chain_id=31337, registry=REGISTRY, task_id=4, node=node.address)


def test_round_trip(node, context):
    key = new_key()
    wrapped = wrap(key, public_key_of(node.key), context)
    assert key not in wrapped.box and len(wrapped.ephemeral) == 65
    assert unwrap(wrapped, node.key, context) == key


def test_each_wrap_uses_a_fresh_ephemeral_key(node, context):
    key = new_key()
    public = public_key_of(node.key)
    assert wrap(key, public, context).ephemeral != wrap(key, public, context).ephemeral


def test_another_nodes_key_cannot_unwrap(node, context):
    wrapped = wrap(new_key(), public_key_of(node.key), context)
    other = Account.create()
    with pytest.raises(TamperedCiphertext, match=f"wrapped key for task 4 .* node {node.address}"):
        unwrap(wrapped, other.key, context)


@pytest.mark.parametrize("change", [dict(task_id=5), dict(chain_id=1),
                                    dict(registry="0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512")],
                         ids=["other-task", "other-chain", "other-registry"])
def test_wrapped_key_does_not_open_in_another_context(node, context, change):
    wrapped = wrap(new_key(), public_key_of(node.key), context)
    with pytest.raises(TamperedCiphertext):
        unwrap(wrapped, node.key, dataclasses.replace(context, **change))


def test_wrapped_key_cannot_be_relabelled_to_another_node(node, context):
    """A box made for node A, presented as node B's (B holding A's box), fails on B's context."""
    other = Account.create()
    wrapped = wrap(new_key(), public_key_of(node.key), context)
    with pytest.raises(TamperedCiphertext):
        unwrap(wrapped, node.key, dataclasses.replace(context, node=other.address))


def test_tampered_box_or_ephemeral_is_detected(node, context):
    wrapped = wrap(new_key(), public_key_of(node.key), context)
    box = bytearray(wrapped.box)
    box[-1] ^= 1
    with pytest.raises(TamperedCiphertext):
        unwrap(WrappedKey(wrapped.ephemeral, bytes(box)), node.key, context)
    other_point = wrap(new_key(), public_key_of(node.key), context).ephemeral
    with pytest.raises(TamperedCiphertext):
        unwrap(WrappedKey(other_point, wrapped.box), node.key, context)
    with pytest.raises(TamperedCiphertext, match="bad ephemeral key"):
        unwrap(WrappedKey(b"\x04" + b"\x00" * 64, wrapped.box), node.key, context)
