"""workers/node/handlers/relay_wire.py: relay entries on the pubsub topic count only when signed
by the account they name, for this deployment, task, round and slot (SPECIFICATION.md 5.5.2)."""
import json

import pytest
from eth_account import Account

from workers.node.handlers.relay import RelayEntry
from workers.node.handlers.relay_wire import MAX_MESSAGE_BYTES, open_entry, relay_topic, sign_entry

REGISTRY = "0x" + "Ab" * 20
CHAIN = 31337
ALICE, MALLORY = Account.from_key(b"\x01" * 32), Account.from_key(b"\x02" * 32)


def entry_of(account, bitmap=0b101):
    return RelayEntry(bitmap, (5, 7), account.address, b"\x5a" * 32)


def test_a_topic_per_deployment():
    assert relay_topic(CHAIN, REGISTRY) == f"decentrl/attest-relay/v1/31337/{REGISTRY.lower()}"
    assert relay_topic(1, REGISTRY) != relay_topic(CHAIN, REGISTRY) != relay_topic(CHAIN, "0x" + "cd" * 20)


def test_a_signed_entry_opens_to_what_was_signed():
    data = sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry_of(ALICE))
    opened = open_entry(data, CHAIN, REGISTRY)
    assert (opened.task_id, opened.round, opened.slot, opened.entry) == (3, 1, 2, entry_of(ALICE))
    assert len(data) < MAX_MESSAGE_BYTES // 2


def test_an_account_cannot_sign_for_another_node():
    with pytest.raises(ValueError, match="not the signing account"):
        sign_entry(MALLORY, CHAIN, REGISTRY, 3, 1, 2, entry_of(ALICE))


@pytest.mark.parametrize("field,value", [("task", 4), ("round", 2), ("slot", 0)])
def test_a_signed_entry_cannot_be_moved_to_another_task_round_or_slot(field, value):
    raw = json.loads(sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry_of(ALICE)))
    raw[field] = value
    assert open_entry(json.dumps(raw).encode(), CHAIN, REGISTRY) is None


def test_a_signed_entry_cannot_be_replayed_on_another_deployment():
    data = sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry_of(ALICE))
    assert open_entry(data, 1, REGISTRY) is None
    assert open_entry(data, CHAIN, "0x" + "cd" * 20) is None


def test_a_changed_entry_or_a_foreign_signature_is_refused():
    raw = json.loads(sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry_of(ALICE)))
    raw["entry"] = entry_of(ALICE, bitmap=0b111).to_json()
    assert open_entry(json.dumps(raw).encode(), CHAIN, REGISTRY) is None
    # Mallory signs an entry naming Alice by hand: it recovers to Mallory, not to the node named
    forged = json.loads(sign_entry(MALLORY, CHAIN, REGISTRY, 3, 1, 2, entry_of(MALLORY)))
    forged["entry"] = entry_of(ALICE).to_json()
    assert open_entry(json.dumps(forged).encode(), CHAIN, REGISTRY) is None


def message(**fields):
    raw = {"task": 3, "round": 1, "slot": 2, "entry": entry_of(ALICE).to_json(), "sig": "0x" + "00" * 65, **fields}
    return json.dumps(raw).encode()


@pytest.mark.parametrize("data", [
    b"", b"not json", b"[]", b"{}", b"\xff\xfe", b"x" * (MAX_MESSAGE_BYTES + 1),
    message(task="3"), message(task=True), message(task=0), message(round=-1), message(slot=64), message(entry="{}"),
    message(sig="0x" + "zz" * 65), message(sig="0x"), message(),  # the last: a signature of nobody
])
def test_garbage_is_not_an_entry(data):
    assert open_entry(data, CHAIN, REGISTRY) is None
