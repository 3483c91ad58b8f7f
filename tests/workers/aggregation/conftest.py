"""A real network (workers.localnet: anvil, one embedded Redis, Celery worker processes under their
Supervisors) whose validators aggregate, running one 3-round CartPole task for the whole folder.

Validators `val-a` and `val-b` use the network's shared relay; `loner` uses a relay nobody else
sees (its own Redis database), so in the shared relay its slot's entry is whatever the relay
says. The driver plays a malicious relay: before each round's Attest phase it writes, under the
loner's slot, an entry with the honest bitmap, a well-formed G1 signature that is not the
loner's signature of it and a salt that is not the loner's (which nobody knows before the loner
opens its sealed vote). The aggregator rotates over the three slots (one turn each in three
rounds), so the task has
- two rounds whose aggregator is val-a or val-b: the garbage entry must be found and left out of
  an aggregate of the two shared-relay validators, and the loner must vote alone;
- one round whose aggregator is the loner, which never sends an aggregate (it cannot see the
  others' signatures): the others must fall back to `attest` before the deadline.
Once the task is final the nodes are stopped (chain and Redis stay up) and the tests read the
chain."""
import dataclasses
import time
from types import SimpleNamespace

import pytest

from workers.crypto.bls import BlsKey
from workers.localnet.chain import TOKEN
from workers.localnet.network import LocalNetwork
from workers.node.handlers.context import Secrets
from workers.node.handlers.relay import AttestRelay, RelayEntry
from workers.protocol import FINAL_STATUSES, Phase, Role, Status, TaskParams, draw_commitment, encode_vote, is_forced
from workers.spec import DEMO_CARTPOLE
from workers.storage.store import EmbeddedStore

ANVIL_PORTS = range(9210, 9220)
REDIS_PORTS = range(9220, 9230)
PASSWORD = "aggregation-test-password"
SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=256, challenges_per_sampler=2,
                           ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, batch_size=64, update_epochs=4))
NODE_SETTINGS = dict(retry_backoff=1, retry_backoff_max=4, retry_jitter=False, max_retries=8,
                     soft_time_limit=8, time_limit=10, lease_s=3, visibility_timeout=15, restore_interval=1)
TIMING = dict(aggregate_wait_s=6.0, attest_fallback_s=10.0, aggregate_min_signers=2)
"""Shared-relay validators: the aggregator waits up to 6 s for the other's signature; a validator
no aggregate covered attests alone 10 s after posting. Three validators are fewer than an
aggregate pays for (aggregation.MIN_AGGREGATE_SIGNERS), so these nodes aggregate from two up."""
LONER_TIMING = dict(aggregate_wait_s=6.0, attest_fallback_s=20.0, aggregate_min_signers=2)
"""The loner falls back later than the aggregate takes, so that its slot is still a candidate (and
its garbage entry in the aggregate's way) when the aggregator aggregates."""
PARAMS = dict(bounty=900 * TOKEN, num_samplers=1, num_validators=3, num_rounds=3, claim_window=600,
              commit_window=120, reveal_window=60, attest_window=120)
TIMEOUT_S = 300
GARBAGE = tuple(BlsKey.from_secret(424242).sign(b"\x00" * 32))
"""A point of G1 (so only the chain's check can tell) that signs nothing a validator signed."""
GARBAGE_SALT = b"\x42" * 32
"""A salt the loner's sealed vote does not open with (the chain names its slot)."""


def honest_vote(net, task_id: int, round_: int, honest: int) -> int:
    """The round's honest vote: accept, or "plant" for the workers whose draws forced them
    (SPECIFICATION.md 5.5.3), read from the workers' own draw secrets before anyone opens them."""
    state = net.deployment.state.functions
    seed, bps = state.roundSeed(task_id, round_).call(), state.forcedErrorBps().call()
    num_samplers = state.taskOf(task_id).call().numSamplers
    forced = 0
    for node in (n for n in net.nodes if n.role in ("sampler", "trainer")):
        m = state.membershipOf(task_id, node.address).call()
        committed = state.drawCommitmentOf(task_id, round_, node.address).call()
        if not m.assigned or committed == bytes(32):
            continue
        secret = Secrets(node.node_dir / "secrets.sqlite").draw_secret(task_id, round_)
        assert draw_commitment(task_id, round_, node.address, secret) == committed, node.name
        if is_forced(secret, seed, bps):
            forced |= 1 << (num_samplers if m.role == Role.TRAINER else m.slot)
    return encode_vote(honest & ~forced, forced)


def write_garbage(relay: AttestRelay, task_id: int, round_: int, slot: int, bitmap: int, node: str) -> None:
    relay.post(task_id, round_, slot, RelayEntry(bitmap, GARBAGE, node, GARBAGE_SALT))


@pytest.fixture(scope="session")
def run(tmp_path_factory):
    net = LocalNetwork(tmp_path_factory.mktemp("aggnet"), password=PASSWORD, scrypt_n=2**10, anvil_ports=ANVIL_PORTS,
                       redis_ports=REDIS_PORTS, node_settings=NODE_SETTINGS)
    try:
        net.add_node("sampler", "sampler")
        net.add_node("trainer", "trainer")
        net.add_node("val-a", "validator", **TIMING)
        net.add_node("val-b", "validator", **TIMING)
        loner = net.add_node("loner", "validator", attest_relay=None, **LONER_TIMING)
        store = EmbeddedStore(net.store_dir)
        params = TaskParams(store.put(SPEC.to_bytes(), pin=True), SPEC.digest(), **PARAMS)
        d = net.deployment
        relay = AttestRelay.from_url(net.relay_url, d.chain_id, d.registry.address)
        net.start()
        net.wait_ready()
        d.w3.eth.wait_for_transaction_receipt(
            d.token.functions.approve(d.registry.address, params.bounty).transact({"from": net.admin}))
        d.w3.eth.wait_for_transaction_receipt(d.registry.functions.createTask(params.as_tuple()).transact(
            {"from": net.admin}))
        task_id = d.state.functions.taskCount().call()
        out = SimpleNamespace(net=net, task_id=task_id, params=params, relay=relay, garbage={}, honest=0b11)
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            task = d.state.functions.taskOf(task_id).call()
            if task.status in FINAL_STATUSES:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"task {task_id} not done within {TIMEOUT_S} s: {task}")
            # Before the validators start their checks (TrainReveal: the trainer's work is done).
            if task.status == Status.ACTIVE and task.phase >= Phase.TRAIN_REVEAL and task.round not in out.garbage:
                slot = d.state.functions.membershipOf(task_id, loner.address).call()
                out.garbage[task.round] = slot.slot
                vote = honest_vote(net, task_id, task.round, out.honest)
                write_garbage(relay, task_id, task.round, slot.slot, vote, loner.address)
            time.sleep(0.01)
        net.stop_nodes()
        yield out
    finally:
        net.stop()
