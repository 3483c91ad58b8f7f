"""workers.chain.sender: one nonce sequence per account across threads and processes (through a
real Redis, against a real anvil), decoded reverts, dropped transactions, nonce resync."""

import logging
import multiprocessing
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pytest
from chain_services import send_from_threads

from workers.chain.errors import DroppedTransaction, FeeCapExceeded, TxReverted
from workers.chain.sender import TxSender, call_data
from workers.protocol import Role

SINK = "0x000000000000000000000000000000000000dEaD"


def test_threads_and_processes_share_one_contiguous_nonce_sequence(anvil, redis_server, w3, new_account):
    account = new_account()
    processes, threads, per_thread = 3, 8, 20
    started = time.perf_counter()
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(send_from_threads, anvil.http_url, redis_server.url, account.key, threads,
                               per_thread, SINK) for _ in range(processes)]
        results = [f.result(timeout=300) for f in futures]
    elapsed = time.perf_counter() - started
    hashes = [h for batch, _ in results for h in batch]
    total = processes * threads * per_thread
    print(f"\n{total} txs from {processes} processes x {threads} threads: {elapsed:.2f} s "
          f"({total / elapsed:.0f} tx/s)")
    assert len(set(hashes)) == total
    nonces = sorted(w3.eth.get_transaction(h)["nonce"] for h in hashes)
    assert nonces == list(range(total))
    assert w3.eth.get_transaction_count(account.address) == total
    for _, stats in results:
        assert stats.get("nonce_too_low", 0) == 0 and stats.get("nonce_too_high", 0) == 0
        assert stats["sent"] == threads * per_thread


def test_a_restarted_chain_of_the_same_id_starts_a_new_nonce_sequence(w3, redis_client, new_account):
    """A dev chain restarted (anvil again, chain id 31337) is a new chain: the nonce kept for the
    old one would put every send behind a gap that nobody fills, and it would never be mined."""
    from chain_services import fund, http_w3

    from workers.localnet.chain import Anvil

    account = new_account()
    old = TxSender(w3, account, redis_client)
    for _ in range(3):
        old.send(to=SINK, value=1)
    restarted = Anvil()
    try:
        w3_again = http_w3(restarted.http_url)
        assert w3_again.eth.chain_id == w3.eth.chain_id
        fund(w3_again, account.address, 10**18)
        again = TxSender(w3_again, account, redis_client, receipt_timeout=5)
        assert again.nonce_key != old.nonce_key
        assert again.send(to=SINK, value=1)["status"] == 1  # at nonce 0, not 3
        assert w3_again.eth.get_transaction_count(account.address) == 1
        assert int(redis_client.get(old.nonce_key)) == 3  # the first chain's sequence, kept for it
    finally:
        restarted.stop()


def test_mined_revert_is_re_simulated_and_decoded(w3, deployment, redis_client, new_account):
    sender = TxSender(w3, new_account(), redis_client)
    with pytest.raises(TxReverted) as info:
        sender.send(deployment.registry.functions.claimSlot(42, Role.TRAINER), gas=300_000)
    assert info.value.receipt["status"] == 0
    assert (info.value.error.name, info.value.error.args) == ("TaskNotFound", (42,))
    assert str(info.value).startswith("claimSlot(42, 1): TaskNotFound(taskId=42) (tx 0x")


def test_revert_at_estimation_sends_nothing(w3, deployment, redis_client, new_account):
    account = new_account()
    sender = TxSender(w3, account, redis_client)
    with pytest.raises(TxReverted, match=r"transfer\(.*\): ERC20InsufficientBalance\(sender=") as info:
        sender.send(deployment.token.functions.transfer(SINK, 5))
    assert info.value.receipt is None and info.value.error.kwargs["needed"] == 5
    assert w3.eth.get_transaction_count(account.address, "pending") == 0


def test_the_estimate_and_the_fee_reads_take_one_round_trip(w3, deployment, redis_client, new_account, monkeypatch):
    account = new_account()
    sender = TxSender(w3, account, redis_client)
    provider = w3.provider
    posted = []
    for name in ("make_request", "make_batch_request"):
        original = getattr(provider, name)
        monkeypatch.setattr(provider, name, lambda *a, _o=original, _n=name: posted.append(_n) or _o(*a))
    tx = sender.build(deployment.token.functions.approve(SINK, 5))
    assert posted == ["make_batch_request"]
    assert tx["gas"] > 21_000 and tx["maxFeePerGas"] > tx["maxPriorityFeePerGas"] > 0
    posted.clear()
    assert sender.build(to=SINK, value=1, gas=21_000)["gas"] == 21_000  # no estimate asked
    assert posted == ["make_batch_request"]


def test_a_revert_at_estimation_is_decoded_from_that_one_round_trip(w3, deployment, redis_client, new_account,
                                                                    monkeypatch):
    sender = TxSender(w3, new_account(), redis_client)
    provider = w3.provider
    posted, busy = [], {"error": {"code": -32000, "message": "the node is busy"}}  # an error that is no revert
    batch, estimate = provider.make_batch_request, w3.eth.estimate_gas

    def make_batch_request(requests):
        posted.append("make_batch_request")
        answers = batch(requests)
        return [{"id": answers[0].get("id"), **busy} if posted.count("make_batch_request") == 2 else answers[0],
                *answers[1:]]

    monkeypatch.setattr(provider, "make_batch_request", make_batch_request)
    monkeypatch.setattr(w3.eth, "estimate_gas", lambda *a: posted.append("estimate_gas") or estimate(*a))
    with pytest.raises(TxReverted) as info:
        sender.build(deployment.registry.functions.claimSlot(42, Role.TRAINER))
    assert (info.value.error.name, info.value.error.args) == ("TaskNotFound", (42,))
    assert posted == ["make_batch_request"]  # not simulated a second time through web3.py
    tx = sender.build(deployment.token.functions.approve(SINK, 5))  # its estimate answered with `busy`
    assert posted == ["make_batch_request", "make_batch_request", "estimate_gas"] and tx["gas"] > 21_000


def test_nonce_used_elsewhere_is_resynced_from_the_chain(w3, redis_client, new_account, caplog):
    caplog.set_level(logging.INFO, logger="workers.chain.sender")
    account = new_account()
    sender = TxSender(w3, account, redis_client)
    sender.send(to=SINK, value=1)
    # the same key sends outside the node (a wallet): the stored nonce is now behind the chain
    tx = {**sender.build(to=SINK, value=1), "nonce": 1}
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction))
    receipt = sender.send(to=SINK, value=1)
    assert receipt["status"] == 1
    assert w3.eth.get_transaction(receipt["transactionHash"])["nonce"] == 2
    assert sender.stats["nonce_too_low"] == 1
    # a handled resync is one readable line at info, not a warning with the raw JSON-RPC error object
    resync = [r for r in caplog.records if "taking the next nonce from the chain" in r.getMessage()]
    assert len(resync) == 1 and resync[0].levelno == logging.INFO
    assert "nonce too low" in resync[0].getMessage() and "'code'" not in resync[0].getMessage()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_transaction_the_node_already_holds_is_taken_as_sent_not_sent_again(w3, redis_client, new_account):
    """A process killed between sending and storing the next nonce leaves the stored nonce behind
    its transaction; the retried job signs the very same bytes, and the node answers that it holds
    them already: that is the transaction sent, and the call must not go out again at a new nonce."""
    account = new_account()
    sender = TxSender(w3, account, redis_client)
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        tx = sender.build(to=SINK, value=1)
        first = sender.send_built(tx)
        redis_client.set(sender.nonce_key, first.nonce)  # the stored nonce as it was before that send
        again = sender.send_built(tx)
        assert (again.tx_hash, again.nonce) == (first.tx_hash, first.nonce)
        assert sender.stats["already_known"] == 1
        assert int(redis_client.get(sender.nonce_key)) == first.nonce + 1
        assert w3.eth.get_transaction_count(account.address, "pending") == first.nonce + 1  # one transaction
        w3.provider.make_request("evm_mine", [])
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    assert sender.wait(again)["status"] == 1


def test_a_transaction_the_node_dropped_is_dropped_and_its_nonce_reused(w3, redis_client, new_account):
    account = new_account()
    sender = TxSender(w3, account, redis_client, receipt_timeout=0.5)
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        sent = sender.send(to=SINK, value=1, wait=False)
        w3.provider.make_request("anvil_dropAllTransactions", [])  # the node's pool forgets it
        with pytest.raises(DroppedTransaction, match=r"\(nonce 0\) not mined within 0.5 s") as info:
            sender.wait(sent)
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    assert sender.stats["replaced"] == 0  # nothing left to speed up
    assert info.value.pending == () and "may yet be mined" not in str(info.value)
    assert redis_client.get(sender.nonce_key) is None  # resync on the next send
    receipt = sender.send(to=SINK, value=2)
    assert w3.eth.get_transaction(receipt["transactionHash"])["nonce"] == info.value.nonce == 0


def test_a_transaction_never_mined_is_sped_up_max_bumps_times_then_dropped(w3, redis_client, new_account):
    account = new_account()
    sender = TxSender(w3, account, redis_client, receipt_timeout=0.3, max_bumps=3)
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        with pytest.raises(DroppedTransaction, match=r"\(nonce 0\) not mined within 1.2 s") as info:
            sender.send(to=SINK, value=1)
        pending = w3.eth.get_block("pending", full_transactions=True)["transactions"]
        fees = [tx["maxFeePerGas"] for tx in pending if tx["from"] == account.address]
        w3.provider.make_request("anvil_dropAllTransactions", [])
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    assert sender.stats["replaced"] == 3 and len(fees) == 1  # each send replaced the one before at the node
    # what the caller is told: every send, and that the last one may still be mined
    last = pending[-1]["hash"].to_0x_hex()
    assert len(info.value.sends) == 4 and info.value.sends[-1] == last and info.value.pending == (last,)
    assert f"(sent 4 times: {', '.join(info.value.sends)})" in str(info.value)
    assert f"{last} is still at the chain node and may yet be mined" in str(info.value)


def test_a_transaction_still_pending_is_sent_again_with_higher_fees_and_that_send_mined(w3, redis_client, new_account):
    """Not mined within the timeout (a slow or busy chain; on a fee spike geth keeps the priced-out
    transaction pending the same way, where anvil drops it): the same nonce goes again with raised
    fees, replaces it at the node, and is what gets mined, once."""
    account = new_account()
    sender = TxSender(w3, account, redis_client, receipt_timeout=0.5)
    stop = threading.Event()

    def mine_after_the_replacement():
        while not stop.is_set() and sender.stats["replaced"] == 0:
            time.sleep(0.02)
        w3.provider.make_request("evm_mine", [])

    w3.provider.make_request("evm_setAutomine", [False])
    miner = threading.Thread(target=mine_after_the_replacement, daemon=True)
    try:
        first = sender.send(to=SINK, value=1, wait=False)
        miner.start()
        receipt = sender.wait(first)
    finally:
        stop.set()
        miner.join()
        w3.provider.make_request("evm_setAutomine", [True])
    mined = w3.eth.get_transaction(receipt["transactionHash"])
    assert receipt["status"] == 1 and receipt["transactionHash"].to_0x_hex() != first.tx_hash
    assert mined["nonce"] == first.nonce and sender.stats["replaced"] == 1
    assert mined["maxFeePerGas"] >= 1.25 * first.tx["maxFeePerGas"]
    assert mined["maxPriorityFeePerGas"] >= 1.25 * first.tx["maxPriorityFeePerGas"]
    assert w3.eth.get_transaction_count(account.address) == first.nonce + 1  # one of the two was mined
    with pytest.raises(Exception, match="not found"):
        w3.eth.get_transaction_receipt(first.tx_hash)


def test_replacements_the_node_refuses_end_in_dropped_not_an_endless_wait(w3, redis_client, new_account,
                                                                          monkeypatch):
    account = new_account()
    sender = TxSender(w3, account, redis_client, receipt_timeout=0.2, max_bumps=2)
    monkeypatch.setattr(sender, "_replace", lambda last, waited: None)  # "replacement transaction underpriced"
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        with pytest.raises(DroppedTransaction, match=r"not mined within 0.6 s"):
            sender.send(to=SINK, value=1)
        w3.provider.make_request("anvil_dropAllTransactions", [])
    finally:
        w3.provider.make_request("evm_setAutomine", [True])


def test_a_send_mined_while_it_is_replaced_is_the_one_waited_for(w3, redis_client, new_account, monkeypatch):
    account = new_account()
    sender = TxSender(w3, account, redis_client, receipt_timeout=0.3)
    real_replace = sender._replace

    def mined_meanwhile(last, waited):
        w3.provider.make_request("evm_mine", [])  # the original lands first
        return real_replace(last, waited)  # the node refuses the replacement: nonce too low

    monkeypatch.setattr(sender, "_replace", mined_meanwhile)
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        first = sender.send(to=SINK, value=1, wait=False)
        receipt = sender.wait(first)
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    assert receipt["transactionHash"].to_0x_hex() == first.tx_hash and sender.stats["replaced"] == 0


def _fees_now(w3) -> tuple[int, int]:
    """(base fee, tip) a transaction built now pays: 2 * base + tip, tip."""
    base = w3.eth.get_block("latest")["baseFeePerGas"]
    return base, w3.eth.max_priority_fee


def test_fees_are_cut_to_the_accounts_cap_and_the_transaction_mined(w3, redis_client, new_account):
    base, tip = _fees_now(w3)
    cap = base + tip // 2  # over the base fee, under what the sender would offer
    sender = TxSender(w3, new_account(), redis_client, max_fee_per_gas=cap)
    receipt = sender.send(to=SINK, value=1)
    mined = w3.eth.get_transaction(receipt["transactionHash"])
    assert receipt["status"] == 1
    assert mined["maxFeePerGas"] == cap and mined["maxPriorityFeePerGas"] <= cap


def test_a_base_fee_above_the_cap_sends_nothing_and_says_so(w3, redis_client, new_account):
    base, _ = _fees_now(w3)
    assert base > 1, "this anvil must run with a base fee"
    account = new_account()
    sender = TxSender(w3, account, redis_client, max_fee_per_gas=base - 1)
    with pytest.raises(FeeCapExceeded, match=r"base fee is .* gwei, above this account's fee cap of .* gwei "
                                             r"\(--max-fee-gwei") as info:
        sender.send(to=SINK, value=1)
    assert (info.value.base_fee, info.value.cap) == (base, base - 1)
    assert w3.eth.get_transaction_count(account.address, "pending") == 0  # nothing reached the node
    assert redis_client.get(sender.nonce_key) is None  # no nonce taken


def test_speed_ups_stop_at_the_cap_and_the_drop_names_it(w3, redis_client, new_account):
    """One replacement fits under the cap (+25%), the next would not clear the pools' +10%: it is not
    sent, the pending one goes on waiting, and the drop at the end says the cap held it back."""
    account = new_account()
    w3.provider.make_request("evm_setAutomine", [False])  # no block: the fees read now are the send's
    try:
        base, tip = _fees_now(w3)
        first_fee = 2 * base + tip
        cap = int(first_fee * 1.3)
        sender = TxSender(w3, account, redis_client, receipt_timeout=0.2, max_bumps=3, max_fee_per_gas=cap)
        with pytest.raises(DroppedTransaction,
                           match=r"not mined within 0.8 s \(sent 2 times: .*\); its fees are at this account's cap"):
            sender.send(to=SINK, value=1)
        pending = [tx for tx in w3.eth.get_block("pending", full_transactions=True)["transactions"]
                   if tx["from"] == account.address]
        w3.provider.make_request("anvil_dropAllTransactions", [])
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    assert sender.stats["replaced"] == 1
    assert len(pending) == 1 and first_fee * 1.25 <= pending[0]["maxFeePerGas"] <= cap


def test_a_fee_cap_must_be_positive(w3, redis_client, new_account):
    with pytest.raises(ValueError, match="max_fee_per_gas must be > 0"):
        TxSender(w3, new_account(), redis_client, max_fee_per_gas=0)


def test_receipts_are_polled_gently_on_a_remote_chain(w3, redis_client, new_account):
    from types import SimpleNamespace

    from workers.chain.sender import LOCAL_POLL_S, REMOTE_POLL_S

    assert TxSender(w3, new_account(), redis_client).poll_latency == LOCAL_POLL_S == 0.02
    remote = SimpleNamespace(provider=SimpleNamespace(endpoint_uri="https://sepolia.infura.io/v3/KEY"),
                             eth=SimpleNamespace(chain_id=11155111, get_block=lambda n: {"hash": b"\x25" * 32}))
    assert TxSender(remote, new_account(), redis_client).poll_latency == REMOTE_POLL_S == 0.5
    assert TxSender(remote, new_account(), redis_client, poll_latency=0.1).poll_latency == 0.1


def test_keys_never_reach_the_logs(w3, redis_client, new_account, caplog):
    caplog.set_level(logging.DEBUG)
    account = new_account()
    sender = TxSender(w3, account, redis_client)
    sender.send(to=SINK, value=1)
    assert account.address in caplog.text  # it does log, just not the key
    assert account.key.hex() not in caplog.text and account.key.hex() not in repr(sender)


def test_transactions_are_signed_with_libsecp256k1():
    # eth-keys falls back to pure-Python curve arithmetic (~15 ms a signature, on every
    # transaction of every node) when coincurve is missing; requirements.txt installs it
    from eth_keys.backends import CoinCurveECCBackend, get_backend

    assert isinstance(get_backend(), CoinCurveECCBackend)


@pytest.mark.parametrize("name, args", [
    ("claimSlot", (7, Role.TRAINER)),
    ("commit", (3, b"\x11" * 32)),
    ("reveal", (3, b"\x22" * 32, "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy", b"\x33" * 32)),
    ("attestAggregate", (1, 2, 3, 4, [5, 6], [7, 8, 9, 10], [b"\x0b" * 32, b"\x0c" * 32])),
    ("attest", (1, 2, 3, b"\x0d" * 32)),
    ("commitAttestation", (1, 2, b"\x0e" * 32)),
    ("createTask", (("cid", b"\x01" * 32, 10**18, 2, 3, 5, 60, 60, 60, 60),)),
    ("commit", (3, "0x" + "44" * 32)),  # a hex string for bytes32: eth_abi refuses it, web3.py encodes it
])
def test_calldata_is_what_web3_encodes(w3, deployment, name, args):
    call = getattr(deployment.registry.functions, name)(*args)
    tx = {"from": w3.eth.accounts[0], "value": 0, "chainId": w3.eth.chain_id}
    web3s = call.build_transaction({**tx, "gas": 1, "maxFeePerGas": 1, "maxPriorityFeePerGas": 1, "nonce": 0})["data"]
    data = call_data(call, tx)
    assert (data if isinstance(data, str) else "0x" + data.hex()) == web3s
