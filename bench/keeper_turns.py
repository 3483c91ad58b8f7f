"""What a validator draw costs the pool, with and without keeper turns, on a chain that makes blocks
at an interval (as a public chain does), not one per transaction.

    .venv/bin/python bench/keeper_turns.py [--validators 6] [--tasks 4] [--block-time 1] [--turn-blocks 2]

Every validator node sees a task's draw armed (DrawArmed), and any of them may send it. The bench
runs the same network twice: a real local network (workers.localnet.network: anvil, the embedded
Redis and store, 1 sampler, 1 trainer and --validators validator nodes, each its own account, stake
and Celery processes), its chain switched to interval mining (a block every --block-time seconds)
once the nodes are up. The first run's validators send at once (keeper_turn_blocks 0, what a node
on a local RPC does); the second's take turns of --turn-blocks blocks (workers.node.handlers.keeper_turns,
what a node on a remote RPC does by default). Each run creates --tasks tasks of 2 validators and
waits for their draws, then reads every block since the first task for `drawValidators`
transactions: how many were mined per draw, how many of them reverted (each paid gas for nothing),
and how many blocks after its seed block the draw landed.

    RESULT draw_txs_at_once=<per draw> draw_txs_turns=<per draw> reverted_gas_at_once=<per draw>
           reverted_gas_turns=<per draw> draw_blocks_at_once=<mean> draw_blocks_turns=<mean>

No goal names these figures; they are the trade the turns make: fewer transactions for a later draw.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eth_utils import function_signature_to_4byte_selector  # noqa: E402

from workers.localnet.chain import TOKEN  # noqa: E402
from workers.localnet.network import ROLE_OF, LocalNetwork  # noqa: E402
from workers.protocol import Status  # noqa: E402
from workers.spec import DEMO_CARTPOLE  # noqa: E402
from workers.storage import open_store  # noqa: E402

TASK = dict(num_samplers=1, num_validators=2, num_rounds=1, claim_window=600, commit_window=600,
            reveal_window=600, attest_window=600)
BOUNTY = 10 * TOKEN
PASSWORD = "keeper-turns-bench"


def draws_in(net: LocalNetwork, from_block: int, to_block: int) -> dict[int, list[tuple[int, bool, int]]]:
    """Per task id, its drawValidators transactions mined in the range: (block, succeeded, gas used)."""
    registry = net.deployment.registry
    selector = function_signature_to_4byte_selector("drawValidators(uint256)")
    found: dict[int, list] = {}
    for number in range(from_block, to_block + 1):
        for tx in net.w3.eth.get_block(number, full_transactions=True)["transactions"]:
            data = bytes(tx["input"])
            if tx["to"] != registry.address or data[:4] != selector:
                continue
            receipt = net.w3.eth.get_transaction_receipt(tx["hash"])
            found.setdefault(int.from_bytes(data[4:36], "big"), []).append(
                (number, receipt["status"] == 1, receipt["gasUsed"]))
    return found


def run(args, turn_blocks: int) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="decentrl-keeper-turns-"))
    net = None
    try:
        net = LocalNetwork(workdir, password=PASSWORD, scrypt_n=2**10, tick_s=0)
        d = net.deployment
        for name, role in [("sampler", "sampler"), ("trainer", "trainer")]:
            stake = d.stakes.functions.minStake(ROLE_OF[role]).call() * args.tasks  # a slot in every task
            net.add_node(name, role, drl=stake // TOKEN, stake=stake)
        validator_stake = d.stakes.functions.minStake(ROLE_OF["validator"]).call() * args.tasks
        for i in range(args.validators):
            net.add_node(f"validator-{i}", "validator", drl=validator_stake // TOKEN, stake=validator_stake,
                         keeper_turn_blocks=turn_blocks)
        requester = net.account("requester", drl=BOUNTY // TOKEN * args.tasks)
        store = open_store(None, net.store_dir)
        net.start()
        net.wait_ready(timeout=300)
        net.w3.provider.make_request("evm_setAutomine", [False])
        net.w3.provider.make_request("evm_setIntervalMining", [args.block_time])
        first_block = net.w3.eth.block_number + 1

        from workers.chain.requester import create_task

        task_ids = [create_task(d, store, requester.account, requester.sender.send, DEMO_CARTPOLE, bounty=BOUNTY,
                                **TASK)[0] for _ in range(args.tasks)]
        deadline = time.monotonic() + args.timeout
        drawn = lambda i: d.state.functions.taskOf(i).call().status not in (Status.OPEN, Status.DRAWING)  # noqa: E731
        while not all(drawn(i) for i in task_ids):
            if time.monotonic() > deadline:
                raise SystemExit(f"the draws did not all land within {args.timeout:.0f} s")
            time.sleep(0.5)
        time.sleep(3 * args.block_time)  # draws sent late (a later turn that did not see the first) land
        found = draws_in(net, first_block, net.w3.eth.block_number)
        armed = [(e["args"]["taskId"], e["args"]["seedBlock"])
                 for e in d.registry.events.DrawArmed().get_logs(from_block=first_block)]
        rearmed = len(armed) - len(task_ids)  # a draw that could not fill every slot arms again
        per_draw, reverted_gas, waits = [], [], []
        for i in task_ids:
            txs = found.get(i, [])
            per_draw.append(len(txs))
            reverted_gas.append(sum(gas for _, ok, gas in txs if not ok))
            seed = min(seed for task, seed in armed if task == i)
            landed = [block for block, ok, _ in txs if ok]
            waits.append(landed[0] - seed)
        label = f"turns of {turn_blocks} blocks" if turn_blocks else "at once"
        print(f"{label:<20} drawValidators transactions per draw {per_draw}, reverted gas per draw "
              f"{reverted_gas}, first draw landed {waits} blocks after its seed block; draws re-armed: {rearmed}")
        return {"txs": statistics.mean(per_draw), "gas": statistics.mean(reverted_gas),
                "blocks": statistics.mean(waits)}
    finally:
        if net is not None:
            net.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--validators", type=int, default=6, help="validator nodes (the pool)")
    parser.add_argument("--tasks", type=int, default=4, help="tasks (draws) per run")
    parser.add_argument("--block-time", type=int, default=1, help="seconds between blocks")
    parser.add_argument("--turn-blocks", type=int, default=2, help="blocks a keeper turn lasts in the second run")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    print(f"network   1 sampler, 1 trainer, {args.validators} validators; a block every {args.block_time} s; "
          f"{args.tasks} tasks of {TASK['num_validators']} validators per run")
    at_once = run(args, 0)
    turns = run(args, args.turn_blocks)
    print(f"RESULT draw_txs_at_once={at_once['txs']:.2f} draw_txs_turns={turns['txs']:.2f} "
          f"reverted_gas_at_once={at_once['gas']:.0f} reverted_gas_turns={turns['gas']:.0f} "
          f"draw_blocks_at_once={at_once['blocks']:.2f} draw_blocks_turns={turns['blocks']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
