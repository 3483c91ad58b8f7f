"""workers.crypto.keyring: the published keyring opens for each listed node only, and is refused
when it names another task, chain, registry or ciphertext."""

import pytest
from eth_account import Account

from workers.crypto.envelope import new_key
from workers.crypto.errors import MalformedKeyring, NoKeyForNode, TamperedCiphertext, WrongTask
from workers.crypto.keyring import build, parse
from workers.crypto.pubkeys import public_key_of

REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
INPUTS = "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"
WHERE = dict(chain_id=31337, registry=REGISTRY, task_id=2, inputs_cid=INPUTS)


@pytest.fixture
def nodes():
    return [Account.create() for _ in range(3)]


def _ring(nodes, key, **where):
    w = {**WHERE, **where}
    return build(chain_id=w["chain_id"], registry=w["registry"], task_id=w["task_id"], inputs_cid=w["inputs_cid"],
                 data_key=key, public_keys={n.address: public_key_of(n.key) for n in nodes})


def test_every_assigned_node_opens_its_entry(nodes):
    key = new_key()
    ring = parse(_ring(nodes, key).to_bytes(), **WHERE)
    assert [ring.key_for(n.address, n.key) for n in nodes] == [key] * 3
    assert key.hex() not in _ring(nodes, key).to_bytes().decode()


def test_a_node_not_in_the_keyring_gets_no_key(nodes):
    outsider = Account.create()
    ring = parse(_ring(nodes, new_key()).to_bytes(), **WHERE)
    with pytest.raises(NoKeyForNode, match=f"no key for node {outsider.address}"):
        ring.key_for(outsider.address, outsider.key)


def test_an_outsider_holding_a_nodes_entry_cannot_open_it(nodes):
    outsider = Account.create()
    ring = parse(_ring(nodes, new_key()).to_bytes(), **WHERE)
    with pytest.raises(TamperedCiphertext):
        ring.key_for(nodes[0].address, outsider.key)


@pytest.mark.parametrize("field,value", [("task_id", 3), ("chain_id", 1),
                                         ("inputs_cid", "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy")])
def test_keyring_of_another_task_is_refused(nodes, field, value):
    data = _ring(nodes, new_key(), **{field: value}).to_bytes()
    with pytest.raises(WrongTask, match="the keyring posted for task 2 is for"):
        parse(data, **WHERE)


def test_entry_copied_from_task_a_does_not_open_on_task_b(nodes):
    """A keyring relabelled as task 3's (the JSON edited) still holds boxes bound to task 2."""
    key = new_key()
    forged = _ring(nodes, key).to_bytes().replace(b'"task_id":2', b'"task_id":3')
    ring = parse(forged, **{**WHERE, "task_id": 3})
    with pytest.raises(TamperedCiphertext, match="wrapped key for task 3"):
        ring.key_for(nodes[0].address, nodes[0].key)


@pytest.mark.parametrize("data", [b"not json", b"[]", b'{"format":"decentrl.keyring"}'])
def test_malformed_keyring_is_refused(data):
    with pytest.raises(MalformedKeyring, match="keyring of task 2 is malformed"):
        parse(data, **WHERE)
