"""workers.chain.watcher against a real anvil: events via websocket and via polling, in order;
a stop mid-stream and a restart deliver every event exactly once; a failing callback gets its
event again; confirmation depth; a reorganisation deeper than it is found and its replacement's
events delivered; the websocket wakes the watcher between resyncs (its latency printed)."""

import json
import statistics
import threading
import time

import pytest

from workers.chain import watcher as watcher_module
from workers.chain.rpc import raw_request
from workers.chain.watcher import END, EventDecoder, EventWatcher, SqliteCursor, log_position
from workers.node.observe.metrics import DECLARED, OBSERVER
from workers.protocol import Role


class Recorder:
    """A callback that records events, their arrival time, and can stop its watcher or fail."""

    def __init__(self, stop_after=None, fail_at=None):
        self.events, self.arrived = [], {}
        self.stop_after, self.fail_at = stop_after, fail_at
        self.watcher = None
        self.changed = threading.Condition()

    def __call__(self, event):
        if self.fail_at is not None and len(self.events) == self.fail_at:
            raise RuntimeError(f"callback failed on {event.key}")
        with self.changed:
            self.events.append(event)
            self.arrived[event.key] = time.perf_counter()
            self.changed.notify_all()
        if self.stop_after is not None and len(self.events) == self.stop_after:
            self.watcher.stop()

    def wait_for(self, count, timeout=10.0):
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.events) >= count, timeout), (
                f"{len(self.events)} events after {timeout} s, expected {count}")


def watch(deployment, anvil, tmp_path, recorder, mode="ws", name="w", **kwargs):
    # The events these tests make by default are ProtocolConfig's (setSlashBps: cheap, repeatable).
    kwargs.setdefault("contracts", ("ProtocolConfig",))
    cursor = SqliteCursor(tmp_path / "cursor.sqlite", name)
    if cursor.get() is None:
        cursor.set(deployment.w3.eth.block_number, END)  # only what the test sends from here on
    watcher = EventWatcher(deployment, recorder, cursor, ws_url=anvil.ws_url if mode == "ws" else None,
                           mode=mode, observer=OBSERVER, **kwargs)  # a node's metrics count what it reports
    recorder.watcher = watcher
    return watcher


def set_slash_bps(deployment, admin, bps):
    return deployment.config.functions.setSlashBps(bps).transact({"from": admin})


def mined(w3, *tx_hashes):
    """Waits for each receipt: anvil can answer eth_blockNumber before it counts the block that
    automine just made, so a sync right after transact() may stop one block short."""
    for h in tx_hashes:
        w3.eth.wait_for_transaction_receipt(h)


def logs_of(deployment, tx_hashes):
    out = []
    for h in tx_hashes:
        receipt = deployment.w3.eth.wait_for_transaction_receipt(h)
        out += [f"{receipt.transactionHash.to_0x_hex()}:{lg.logIndex}" for lg in receipt.logs
                if lg.address == deployment.config.address]
    return out


@pytest.mark.parametrize("mode", ["ws", "poll"])
def test_events_arrive_decoded_and_in_order(deployment, anvil, admin, tmp_path, w3, mode):
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, mode).start()
    try:
        time.sleep(0.2)
        assert watcher.transport == mode
        hashes = [set_slash_bps(deployment, admin, 100 + i) for i in range(5)]
        recorder.wait_for(5)
    finally:
        watcher.stop()
    assert [e.name for e in recorder.events] == ["SlashBpsSet"] * 5
    assert [e.args for e in recorder.events] == [{"bps": 100 + i} for i in range(5)]
    assert [e.key for e in recorder.events] == logs_of(deployment, hashes)
    assert [(e.block, e.log_index) for e in recorder.events] == sorted((e.block, e.log_index) for e in recorder.events)
    assert [e.timestamp for e in recorder.events] == [w3.eth.get_block(e.block)["timestamp"] for e in recorder.events]


def test_only_the_named_events_are_delivered_and_the_cursor_passes_the_rest(deployment, anvil, admin, tmp_path, w3):
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, "poll", contracts=("StakeManager", "Reputation"),
                    names={"NodePauseSet"})
    node = w3.eth.accounts[8]
    mined(w3,
          deployment.stakes.functions.setMinStake(Role.VALIDATOR, 300 * 10**18).transact({"from": admin}),
          deployment.stakes.functions.setNodePaused(True).transact({"from": node}),
          deployment.reputation.functions.setThreshold(61).transact({"from": admin}),
          deployment.stakes.functions.setNodePaused(False).transact({"from": node}),
          deployment.stakes.functions.setMinStake(Role.VALIDATOR, 200 * 10**18).transact({"from": admin}))
    assert watcher.sync() == 2
    assert [(e.name, e.args["paused"]) for e in recorder.events] == [("NodePauseSet", True), ("NodePauseSet", False)]
    assert watcher.position() == (w3.eth.block_number, END)  # past the events it passed over
    assert watcher.sync() == 0


def test_enums_and_indexed_arguments_are_decoded(deployment, anvil, admin, tmp_path, w3):
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, "poll", contracts=("StakeManager", "Reputation"))
    node = w3.eth.accounts[8]
    mined(w3,
          deployment.stakes.functions.setMinStake(Role.VALIDATOR, 200 * 10**18).transact({"from": admin}),
          deployment.stakes.functions.setNodePaused(True).transact({"from": node}),
          deployment.stakes.functions.setNodePaused(False).transact({"from": node}),
          deployment.reputation.functions.setThreshold(60).transact({"from": admin}))
    assert watcher.sync() == 4
    first, paused, _, threshold = recorder.events
    assert (first.name, first.contract, first.args) == ("MinStakeSet", "StakeManager",
                                                        {"role": Role.VALIDATOR, "amount": 200 * 10**18})
    assert first.args["role"] is Role.VALIDATOR
    assert (paused.name, paused.args) == ("NodePauseSet", {"node": node, "paused": True})
    assert (threshold.contract, threshold.name, threshold.args) == ("Reputation", "ThresholdSet", {"threshold": 60})


@pytest.mark.parametrize("stamp", [None, "0xzz", ""])
def test_a_log_without_a_readable_block_timestamp_still_decodes(deployment, admin, w3, stamp):
    """blockTimestamp only feeds a metric: a node that omits it, or sends garbage, gives None."""
    receipt = w3.eth.wait_for_transaction_receipt(set_slash_bps(deployment, admin, 321))
    entry = dict(w3.eth.get_logs({"address": deployment.config.address, "fromBlock": receipt.blockNumber,
                                  "toBlock": receipt.blockNumber})[0])
    assert int(entry.pop("blockTimestamp"), 16) == w3.eth.get_block(receipt.blockNumber)["timestamp"]
    if stamp is not None:
        entry["blockTimestamp"] = stamp
    event = EventDecoder(deployment, ("ProtocolConfig",)).decode(entry)
    assert (event.name, event.args, event.timestamp) == ("SlashBpsSet", {"bps": 321}, None)


def test_a_raw_log_decodes_as_its_web3_formatted_self(deployment, admin, w3):
    """The watcher reads logs raw (hex strings, lower-case addresses) past web3.py's formatters;
    the decoder gives the same event from either form."""
    receipt = w3.eth.wait_for_transaction_receipt(set_slash_bps(deployment, admin, 654))
    where = {"address": deployment.config.address, "fromBlock": receipt.blockNumber, "toBlock": receipt.blockNumber}
    formatted = w3.eth.get_logs(where)[0]
    raw = raw_request(w3, "eth_getLogs", [{**where, "fromBlock": hex(receipt.blockNumber),
                                          "toBlock": hex(receipt.blockNumber)}])[0]
    assert isinstance(raw["data"], str) and isinstance(raw["blockNumber"], str)
    decoder = EventDecoder(deployment, ("ProtocolConfig",))
    event = decoder.decode(raw)
    assert event == decoder.decode(formatted)
    block = w3.eth.get_block(receipt.blockNumber)
    assert (event.address, event.timestamp) == (deployment.config.address, block["timestamp"])
    assert event.key == f"{receipt.transactionHash.to_0x_hex()}:{formatted['logIndex']}"
    assert log_position(raw) == log_position(formatted) == (receipt.blockNumber, formatted["logIndex"])


def test_stop_mid_block_and_restart_delivers_every_event_once(deployment, anvil, admin, tmp_path, w3):
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        batch = [set_slash_bps(deployment, admin, 200 + i) for i in range(6)]
        w3.provider.make_request("evm_mine", [])  # six events in one block
    finally:
        w3.provider.make_request("evm_setAutomine", [True])
    # the cursor starts before that block
    cursor = SqliteCursor(tmp_path / "cursor.sqlite", "restart")
    cursor.set(w3.eth.block_number - 1, END)
    first = Recorder(stop_after=3)
    watcher = watch(deployment, anvil, tmp_path, first, "ws", name="restart").start()
    first.wait_for(3)
    watcher.stop()
    assert len(first.events) == 3 and cursor.get() == (first.events[-1].block, first.events[-1].log_index)
    assert cursor.last_processed_block() == first.events[-1].block - 1
    later = [set_slash_bps(deployment, admin, 300 + i) for i in range(4)]  # sent while it is down
    second = Recorder()
    watcher = watch(deployment, anvil, tmp_path, second, "ws", name="restart").start()
    try:
        second.wait_for(7)
        more = [set_slash_bps(deployment, admin, 400 + i) for i in range(2)]
        second.wait_for(9)
        time.sleep(0.2)  # nothing more may arrive
    finally:
        watcher.stop()
    union = [e.key for e in first.events + second.events]
    assert union == logs_of(deployment, batch + later + more)
    assert len(set(union)) == len(union) == 12


def test_failing_callback_stops_the_watcher_and_gets_its_event_again(deployment, anvil, admin, tmp_path):
    failing = Recorder(fail_at=2)
    watcher = watch(deployment, anvil, tmp_path, failing, "poll", name="fail")
    hashes = [set_slash_bps(deployment, admin, 500 + i) for i in range(4)]
    mined(deployment.w3, *hashes)
    with pytest.raises(RuntimeError, match="callback failed on 0x"):
        watcher.run()
    retry = Recorder()
    watch(deployment, anvil, tmp_path, retry, "poll", name="fail").sync()
    keys = logs_of(deployment, hashes)
    assert [e.key for e in failing.events] == keys[:2]
    assert [e.key for e in retry.events] == keys[2:]


def test_confirmation_depth_delays_delivery(deployment, anvil, admin, tmp_path, w3):
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, "ws", confirmations=2).start()
    try:
        time.sleep(0.2)
        tx = set_slash_bps(deployment, admin, 600)
        # The receipt, not eth_blockNumber: anvil can answer the latter before it counts the new block.
        mined_in = w3.eth.wait_for_transaction_receipt(tx).blockNumber
        time.sleep(0.3)
        assert recorder.events == []
        w3.provider.make_request("evm_mine", [])  # 1 confirmation
        time.sleep(0.3)
        assert recorder.events == []
        w3.provider.make_request("evm_mine", [])  # 2 confirmations
        recorder.wait_for(1, timeout=10)
    finally:
        watcher.stop()
    assert recorder.events[0].block == mined_in and recorder.events[0].args == {"bps": 600}


def reorged(w3, snapshot, replace_with, blocks_after):
    """The chain back at `snapshot`, `replace_with()`'s transactions mined in its place and
    `blocks_after` empty blocks on top (a longer fork, as the chain's nodes would follow)."""
    assert w3.provider.make_request("evm_revert", [snapshot])["result"] is True
    mined(w3, *replace_with())
    for _ in range(blocks_after):
        w3.provider.make_request("evm_mine", [])


def reorgs_counted(name):
    return (DECLARED.get_sample_value("decentrl_chain_reorgs_total", {"watcher": name}) or 0,
            DECLARED.get_sample_value("decentrl_chain_reorg_blocks_total", {"watcher": name}) or 0)


def test_a_reorganisation_deeper_than_the_confirmations_is_reported_and_its_events_delivered(
        deployment, anvil, admin, tmp_path, w3, caplog):
    """With 1 confirmation, a two-block reorganisation replaces the block of an event already
    delivered: the next watcher on that cursor (hashes persist) finds the fork, says which blocks
    were replaced, and delivers the replacement's event."""
    recorder = Recorder()
    watch(deployment, anvil, tmp_path, recorder, "poll", name="reorg", confirmations=1).sync()
    for _ in range(2):
        w3.provider.make_request("evm_mine", [])
    watch(deployment, anvil, tmp_path, recorder, "poll", name="reorg", confirmations=1).sync()  # keeps a hash
    kept = w3.eth.block_number - 1
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]
    old = set_slash_bps(deployment, admin, 710)
    mined(w3, old)
    w3.provider.make_request("evm_mine", [])
    watch(deployment, anvil, tmp_path, recorder, "poll", name="reorg", confirmations=1).sync()
    assert [e.args for e in recorder.events] == [{"bps": 710}]
    replaced = recorder.events[0].block
    before = reorgs_counted("reorg")
    new = []
    reorged(w3, snapshot, lambda: new.append(set_slash_bps(deployment, admin, 711)) or new, blocks_after=3)
    caplog.set_level("ERROR", logger="workers.chain.watcher")
    watch(deployment, anvil, tmp_path, recorder, "poll", name="reorg", confirmations=1).sync()
    assert [e.args for e in recorder.events] == [{"bps": 710}, {"bps": 711}]
    assert recorder.events[1].key == logs_of(deployment, new)[0]
    assert f"chain reorganisation: blocks {kept + 1}-{replaced}, whose events were delivered, were replaced" \
        in caplog.text and "the 1 confirmations" in caplog.text
    assert reorgs_counted("reorg") == (before[0] + 1, before[1] + replaced - kept)
    cursor = SqliteCursor(tmp_path / "cursor.sqlite", "reorg")
    assert cursor.last_processed_block() == w3.eth.block_number - 1  # caught up on the replacement
    assert dict(cursor.kept_hashes())[cursor.last_processed_block()] == \
        w3.eth.get_block(cursor.last_processed_block())["hash"].to_0x_hex()


def test_a_reorganisation_deeper_than_the_kept_hashes_delivers_again_from_the_oldest(
        deployment, anvil, admin, tmp_path, w3, caplog, monkeypatch):
    monkeypatch.setattr(watcher_module, "KEPT_HASHES", 2)
    monkeypatch.setattr(watcher_module, "PRUNE_EVERY", 1)
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, "poll", name="deep")
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]
    for bps in (720, 721, 722):
        mined(w3, set_slash_bps(deployment, admin, bps))
        watcher.sync()  # one block a sync: a hash each, two kept
    cursor = watcher.cursor
    assert [b for b, _ in cursor.kept_hashes()] == [recorder.events[2].block, recorder.events[1].block]
    new = []
    reorged(w3, snapshot, lambda: [new.append(set_slash_bps(deployment, admin, bps)) for bps in (723, 724, 725)]
            and new, blocks_after=1)  # found once a block comes after the cursor's
    caplog.set_level("ERROR", logger="workers.chain.watcher")
    watcher.sync()
    assert "deeper than the 2 blocks whose hashes the watcher kept" in caplog.text
    # from the oldest kept block on: the first replacement block's event is before it
    assert [e.args["bps"] for e in recorder.events] == [720, 721, 722, 724, 725]


def test_a_chain_that_changes_between_its_reads_is_read_again(deployment, anvil, admin, tmp_path, w3, monkeypatch):
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, "poll", name="moved")
    mined(w3, set_slash_bps(deployment, admin, 730))
    real = watcher._read_batch
    moved = [True]

    def answers_of_two_chains(calls):
        answers = real(calls)
        if moved.pop() if moved else False:
            answers[1] = {**answers[1], "hash": "0x" + "ab" * 32}  # the last block read after a reorganisation
        return answers

    monkeypatch.setattr(watcher, "_read_batch", answers_of_two_chains)
    start = watcher.cursor.get()
    assert watcher.sync() == 0 and watcher.cursor.get() == start
    assert watcher.sync() == 1 and recorder.events[0].args == {"bps": 730}


def test_the_cursor_keeps_the_last_block_hashes_and_rewinds(tmp_path, monkeypatch):
    monkeypatch.setattr(watcher_module, "KEPT_HASHES", 3)
    monkeypatch.setattr(watcher_module, "PRUNE_EVERY", 1)
    cursor = SqliteCursor(tmp_path / "c.sqlite", "hashes")
    for block in range(10, 16):
        cursor.set(block, 0, f"0x{block}")  # an event: kept, nothing pruned
        cursor.set(block, END, f"0x{block}")
    assert cursor.kept_hashes() == [(15, "0x15"), (14, "0x14"), (13, "0x13")]
    assert SqliteCursor(tmp_path / "c.sqlite", "other").kept_hashes() == []  # per watcher name
    cursor.rewind(13)
    assert cursor.get() == (13, END) and cursor.newest_hash() == (13, "0x13")


def falls_back_to_polling(deployment, admin, tmp_path, ws_url, bps):
    """A watcher in ws mode whose websocket fails still gets the event, by polling."""
    recorder = Recorder()
    cursor = SqliteCursor(tmp_path / "c.sqlite", "fallback")
    cursor.set(deployment.w3.eth.block_number, END)
    watcher = EventWatcher(deployment, recorder, cursor, contracts=("ProtocolConfig",), ws_url=ws_url, mode="ws")
    recorder.watcher = watcher
    watcher.start()
    try:
        set_slash_bps(deployment, admin, bps)
        recorder.wait_for(1, timeout=10)
        assert watcher.transport == "poll"
    finally:
        watcher.stop()


def test_websocket_unavailable_falls_back_to_polling(deployment, anvil, admin, tmp_path):
    falls_back_to_polling(deployment, admin, tmp_path, "ws://127.0.0.1:9", 700)


def test_a_refused_subscription_falls_back_to_polling(deployment, admin, tmp_path):
    """A websocket that answers eth_subscribe with an error (a node without subscriptions)."""
    from websockets.sync.server import serve

    def refuse(ws):
        for message in ws:
            request = json.loads(message)
            ws.send(json.dumps({"jsonrpc": "2.0", "id": request["id"],
                                "error": {"code": -32601, "message": "subscriptions not supported"}}))

    with serve(refuse, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        falls_back_to_polling(deployment, admin, tmp_path, f"ws://127.0.0.1:{server.socket.getsockname()[1]}", 750)
        server.shutdown()


def test_a_dropped_subscription_is_taken_up_again(deployment, anvil, admin, tmp_path):
    """The node's websocket goes away (an endpoint that restarts, or closes idle sockets): the
    watcher polls meanwhile and subscribes again, and events come by the websocket again. With
    both its timers at 60 s, only a live subscription brings the last event within seconds."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect
    from websockets.sync.server import serve

    connections = []

    def relay(ws):  # to anvil's websocket and back
        connections.append(ws)
        with connect(anvil.ws_url, max_size=None) as upstream:
            def back():
                try:
                    for message in upstream:
                        ws.send(message)
                except ConnectionClosed:
                    pass
            threading.Thread(target=back, daemon=True).start()
            try:
                for message in ws:
                    upstream.send(message)
            except ConnectionClosed:
                pass

    def until(condition, what):
        deadline = time.monotonic() + 10
        while not condition():
            assert time.monotonic() < deadline, what
            time.sleep(0.01)

    with serve(relay, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        recorder = Recorder()
        cursor = SqliteCursor(tmp_path / "c.sqlite", "resubscribe")
        cursor.set(deployment.w3.eth.block_number, END)
        watcher = EventWatcher(deployment, recorder, cursor, contracts=("ProtocolConfig",),
                               ws_url=f"ws://127.0.0.1:{server.socket.getsockname()[1]}",
                               mode="ws", poll_interval=60.0, resync_interval=60.0, resubscribe_s=0.2)
        recorder.watcher = watcher
        watcher.start()
        try:
            until(lambda: watcher.transport == "ws", "the first subscription did not come up")
            connections[0].close()  # the endpoint drops the subscription
            until(lambda: watcher.subscriptions == 2 and watcher.transport == "ws",
                  f"not subscribed again ({watcher.subscriptions} subscriptions, transport {watcher.transport})")
            assert len(connections) == 2
            time.sleep(0.2)  # past the sync that follows subscribing
            mined(deployment.w3, set_slash_bps(deployment, admin, 760))
            recorder.wait_for(1, timeout=10)
        finally:
            watcher.stop()
            server.shutdown()
    assert recorder.events[0].args == {"bps": 760}


def test_a_chain_node_that_stops_answering_for_a_while_costs_a_gap_not_the_watcher(deployment, anvil, admin,
                                                                                    tmp_path, monkeypatch, caplog):
    """Reads that fail (here the first three: the chain node restarting) are logged and tried again
    after a growing wait; the watcher keeps running and then delivers what it missed."""
    from workers.chain import watcher as watcher_module

    real, failed = watcher_module.raw_request, []

    def flaky(w3, method, params):
        if len(failed) < 3:
            failed.append(method)
            raise ConnectionRefusedError(111, "Connection refused")
        return real(w3, method, params)

    monkeypatch.setattr(watcher_module, "raw_request", flaky)
    monkeypatch.setattr(watcher_module, "READ_RETRY_S", (0.05, 0.1))
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, "poll", name="flaky")
    mined(deployment.w3, set_slash_bps(deployment, admin, 770))
    watcher.start()
    try:
        recorder.wait_for(1, timeout=10)
    finally:
        watcher.stop()  # re-raises what ended the watcher, if anything did
    assert failed == ["eth_blockNumber"] * 3 and recorder.events[0].args == {"bps": 770}
    assert caplog.text.count("chain read eth_blockNumber at") == 3 and "ConnectionRefusedError" in caplog.text


def test_the_websocket_brings_each_event_without_waiting_for_a_resync(deployment, anvil, admin, tmp_path):
    """In ws mode the subscription wakes the watcher: with its resync timer at 60 s, every event
    still arrives within seconds (a broken wake-up would leave them to the next resync). The
    latency (tx mined -> callback) is printed, not asserted: it depends on the machine's load."""
    recorder = Recorder()
    watcher = watch(deployment, anvil, tmp_path, recorder, "ws", name="wake", resync_interval=60.0).start()
    sent = {}
    try:
        deadline = time.monotonic() + 10
        while watcher.transport != "ws" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert watcher.transport == "ws"
        time.sleep(0.2)  # past the sync that follows subscribing
        for i in range(10):
            tx = set_slash_bps(deployment, admin, 800 + i)  # mined when this returns (automine)
            sent[f"{tx.to_0x_hex()}:0"] = time.perf_counter()
            recorder.wait_for(i + 1, timeout=10)
    finally:
        watcher.stop()
    assert list(recorder.arrived) == list(sent)
    ms = [(recorder.arrived[k] - t) * 1000 for k, t in sent.items()]
    print(f"\nevent latency over the websocket (tx mined -> callback), 10 events: "
          f"p50 {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms")


def test_killed_watcher_process_resumes_with_nothing_lost(deployment, deployment_file, anvil, admin, tmp_path, w3):
    """SIGKILL mid-stream: every event arrives; at most the one in flight at the kill arrives
    twice, and its key (txHash:logIndex) lets a consumer drop the repeat."""
    import os
    import signal
    import subprocess
    import sys

    from chain_services import ROOT

    cursor_path, out = tmp_path / "cursor.sqlite", tmp_path / "keys.txt"
    SqliteCursor(cursor_path, "killed").set(w3.eth.block_number, END)
    hashes = [set_slash_bps(deployment, admin, 900 + i) for i in range(20)]

    def spawn(delay):
        return subprocess.Popen(
            [sys.executable, str(ROOT / "tests/workers/chain/watch_process.py"), str(deployment_file),
             anvil.http_url, anvil.ws_url, str(cursor_path), str(out), str(delay)],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )

    def lines():
        return out.read_text().split() if out.exists() else []

    def wait_lines(count, proc, timeout=30):
        deadline = time.monotonic() + timeout
        while len(lines()) < count:
            assert proc.poll() is None, f"watcher process exited with {proc.returncode}"
            assert time.monotonic() < deadline, f"{len(lines())} keys after {timeout} s"
            time.sleep(0.01)

    first = spawn(0.05)
    try:
        wait_lines(8, first)
        first.send_signal(signal.SIGKILL)
    finally:
        first.wait()
    seen_before = len(lines())
    hashes += [set_slash_bps(deployment, admin, 950 + i) for i in range(5)]  # sent while it is down
    second = spawn(0)
    try:
        expected = logs_of(deployment, hashes)
        wait_lines(len(expected), second)
        time.sleep(0.3)
    finally:
        second.terminate()
        second.wait()
    keys = lines()
    assert 8 <= seen_before < len(expected)
    assert list(dict.fromkeys(keys)) == expected  # in order, nothing lost
    assert len(keys) - len(expected) <= 1  # at most the event in flight at the kill repeats


def test_the_cursor_keeps_its_position_across_threads_processes_and_instances(tmp_path):
    """The cursor keeps one open connection per thread (and per process after a fork); every
    reader, whichever connection it holds, sees the last position written."""
    import os

    cursor = SqliteCursor(tmp_path / "c.sqlite", "shared")
    cursor.set(10, 3)
    seen = []
    thread = threading.Thread(target=lambda: (seen.append(cursor.get()), cursor.set(11, END)))
    thread.start()
    thread.join()
    assert seen == [(10, 3)] and cursor.get() == (11, END)
    pid = os.fork()
    if pid == 0:  # the child writes through the inherited object
        try:
            ok = cursor.get() == (11, END)
            cursor.set(12, 0)
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert cursor.get() == (12, 0) == SqliteCursor(tmp_path / "c.sqlite", "shared").get()
    assert cursor.last_processed_block() == 11
