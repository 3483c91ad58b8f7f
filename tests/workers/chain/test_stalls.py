"""Chains that mine only on transactions (workers.chain.stalls), on the session's anvil, which
mines a block per transaction and none between: protocol time read as a transaction sent now sees
it, and the empty transaction that mines a needed block."""

import time

from workers.chain.sender import TxSender
from workers.chain.stalls import default_nudge_after_s, head_age_s, nudge_if_stalled
from workers.chain.view import ChainView


def test_protocol_time_runs_on_while_the_head_stands_still(w3, deployment):
    head = w3.eth.get_block("latest")
    time.sleep(2.1)
    assert w3.eth.block_number == head["number"]  # nothing was mined meanwhile
    now = ChainView(deployment).protocol_time()
    assert now >= head["timestamp"] + 2  # at "latest" it would still read the head's timestamp
    assert deployment.registry.functions.protocolTime().call() == head["timestamp"]


def test_a_stalled_head_is_nudged_and_a_fresh_one_is_not(w3, redis_client, new_account):
    sender = TxSender(w3, new_account(), redis_client)
    w3.provider.make_request("evm_mine", [])  # a fresh head (funding sets a balance, it mines nothing)
    head = w3.eth.block_number
    assert not nudge_if_stalled(w3, sender, after_s=60)
    assert not nudge_if_stalled(w3, sender, after_s=0)  # 0: never
    assert w3.eth.block_number == head
    time.sleep(1.1)
    assert head_age_s(w3) >= 1
    assert nudge_if_stalled(w3, sender, after_s=1)
    assert w3.eth.block_number == head + 1 and head_age_s(w3) <= 1  # (whole seconds: a second may turn)


def test_only_a_chain_on_this_machine_is_nudged_by_default():
    assert default_nudge_after_s("http://127.0.0.1:8545") > 0
    assert default_nudge_after_s("https://rpc.sepolia.org") == 0
