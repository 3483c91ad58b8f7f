"""The node's metrics as the observer of a sender and a store, in this process (no multiprocess
folder: plain in-memory values): a revert is counted under its decoded custom error, a mined
transaction's gas is added, the store counts bytes and errors by type."""
import pytest
import redis as redis_py
from eth_account import Account

from workers.chain.errors import TxReverted
from workers.chain.sender import TxSender, fn_name
from workers.localnet.chain import fund
from workers.node.observe import metrics
from workers.storage.store import ContentNotFound, EmbeddedStore

TOKEN = 10**18


def value(metric, *labels) -> float:
    return metric.labels(*labels)._value.get()


def _failures() -> dict:
    """(fn, reason, stage) -> count, of decentrl_tx_failures in this process."""
    return {(s.labels["fn"], s.labels["reason"], s.labels["stage"]): s.value
            for family in metrics.TX_FAILURES.collect() for s in family.samples if s.name.endswith("_total")}


def test_reverts_are_counted_by_decoded_error_and_gas_by_function(w3, contracts, redis_server):
    account = Account.create()
    fund(w3, account.address, 10 * TOKEN)
    sender = TxSender(w3, account, redis_py.Redis.from_url(redis_server.url.rsplit("/", 1)[0] + "/6"),
                      observer=metrics.OBSERVER)
    before = _failures()
    with pytest.raises(TxReverted) as raised:
        sender.send(contracts.registry.functions.claimSlot(999, 0))
    name = raised.value.error.name
    assert name not in ("Unknown", "")
    after = _failures()  # one more, under the decoded error's name, and nothing else
    assert {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)} == \
        {("claimSlot", name, "estimate"): 1}

    sent, gas = value(metrics.TX_SENT, "approve"), value(metrics.TX_GAS, "approve")
    receipt = sender.send(contracts.token.functions.approve(contracts.stakes.address, 5))
    assert value(metrics.TX_SENT, "approve") == sent + 1
    assert value(metrics.TX_GAS, "approve") == gas + receipt["gasUsed"]


def test_store_bytes_and_errors(tmp_path):
    store = EmbeddedStore(tmp_path / "store", observer=metrics.OBSERVER)
    put, got = value(metrics.STORE_BYTES, "put"), value(metrics.STORE_BYTES, "get")
    cid = store.put(b"x" * 1000)
    assert store.get(cid) == b"x" * 1000
    assert value(metrics.STORE_BYTES, "put") == put + 1000 and value(metrics.STORE_BYTES, "get") == got + 1000
    missing = value(metrics.STORE_ERRORS, "get", "ContentNotFound")
    store.delete(cid)
    with pytest.raises(ContentNotFound):
        store.get(cid)
    assert value(metrics.STORE_ERRORS, "get", "ContentNotFound") == missing + 1


def test_function_names_from_descriptions():
    assert fn_name("commit(3, 0xab…)") == "commit"
    assert fn_name("transfer to 0x1234") == "transfer"
    assert fn_name("") == "unknown"
