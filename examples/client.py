"""A complete decentrl client in plain web3.py (no `workers` import): fund a task's bounty by
approve or EIP-2612 permit, sign the EIP-712 CreateTask request as the requester, have a second
account relay it through TaskFront.createTaskWithSig, and follow the task's events to its result
(TaskSettled, and the checkpoint CID of each RoundFinalized). docs/integrating.md explains each step.

    python examples/client.py --rpc URL --deployment deployments/NETWORK.json create \\
        (--spec FILE | --spec-cid CID --spec-digest 0x..) --bounty 100 [--funding permit|approve]
        [--follow-seconds N]
    python examples/client.py --rpc URL --deployment ... follow TASK_ID [--follow-seconds N]

Keys come from the environment: REQUESTER_KEY (signs; needs the bounty in DRL, and ETH only with
--funding approve) and RELAYER_KEY (sends createTaskWithSig; needs ETH). `--spec` is the spec's
canonical bytes (what `decentrl spec put` publishes; its CID and digest are computed here the way
the nodes check them); publish the same bytes to IPFS with `ipfs add --cid-version 1`, or pass
--ipfs-api to have this client add them. Or pass the CID and digest `decentrl spec put` printed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from eth_account import Account
from eth_account.messages import encode_typed_data
from web3 import Web3

ABI_DIR = Path(__file__).resolve().parents[1] / "workers" / "chain" / "abi"
TOKEN = 10**18

# ITaskRegistry.Status (docs/integrating.md, "Enums"): the value in TaskStatusChanged and TaskSettled.
TASK_STATUS = ["None", "Open", "Drawing", "Active", "Completed", "Cancelled", "Failed", "NoResult"]
ENDED = {"Completed", "Cancelled", "Failed", "NoResult"}
# ITaskRegistry.Phase: the value in PhaseStarted.
PHASE = ["SampleCommit", "SampleReveal", "TrainCommit", "TrainReveal", "Attest", "AttestReveal"]

EIP712_DOMAIN = [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
                 {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}]
CREATE_TASK = [{"name": "requester", "type": "address"}, {"name": "specCid", "type": "string"},
               {"name": "specDigest", "type": "bytes32"}, {"name": "bounty", "type": "uint256"},
               {"name": "numSamplers", "type": "uint8"}, {"name": "numValidators", "type": "uint8"},
               {"name": "numRounds", "type": "uint16"}, {"name": "claimWindow", "type": "uint32"},
               {"name": "commitWindow", "type": "uint32"}, {"name": "revealWindow", "type": "uint32"},
               {"name": "attestWindow", "type": "uint32"}, {"name": "nonce", "type": "uint256"},
               {"name": "deadline", "type": "uint256"}]
PERMIT = [{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"},
          {"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"},
          {"name": "deadline", "type": "uint256"}]


def contracts(w3: Web3, deployment_file: str) -> dict:
    """The deployment's contracts: addresses from deployments/<network>.json, ABIs from
    workers/chain/abi/<Name>.json (the committed, versioned ABIs)."""
    record = json.loads(Path(deployment_file).read_text())
    if record["chainId"] != w3.eth.chain_id:
        sys.exit(f"{deployment_file} is for chain {record['chainId']}, the RPC serves chain {w3.eth.chain_id}")
    names = ("RLToken", "TaskRegistry", "TaskFront", "StateView")
    # decode_tuples: a struct comes back with its field names (taskOf(id).checkpointCid)
    out = {n: w3.eth.contract(address=record["contracts"][n], decode_tuples=True,
                              abi=json.loads((ABI_DIR / f"{n}.json").read_text())["abi"]) for n in names}
    out["block"] = record.get("block", 0)
    return out


def spec_cid(data: bytes) -> str:
    """The CIDv1 (raw leaves, sha2-256, base32) that `ipfs add --cid-version 1` gives `data` when it
    fits one 256 KiB chunk (a spec is ~1 KB): the only kind of CID the nodes accept."""
    if len(data) > 256 * 1024:
        sys.exit("a spec larger than 256 KiB is several IPFS blocks: publish it and pass the CID ipfs prints")
    binary = bytes([0x01, 0x55, 0x12, 0x20]) + hashlib.sha256(data).digest()
    return "b" + base64.b32encode(binary).decode().lower().rstrip("=")


def publish(ipfs_api: str, data: bytes, cid: str) -> None:
    """`ipfs add --cid-version 1 --raw-leaves` through the node's RPC API (kubo's /api/v0/add)."""
    import requests

    answer = requests.post(f"{ipfs_api.rstrip('/')}/api/v0/add", params={"cid-version": 1, "raw-leaves": "true",
                                                                        "pin": "true"},
                           files={"file": ("spec.json", data)}, timeout=30)
    answer.raise_for_status()
    if answer.json()["Hash"] != cid:
        sys.exit(f"IPFS stored the spec as {answer.json()['Hash']}, not {cid}")


def sign(account, typed: dict) -> bytes:
    return account.sign_message(encode_typed_data(full_message=typed))


def send(w3: Web3, account, call) -> dict:
    """Builds, signs and sends `call` from `account`; the receipt (exits on a revert)."""
    tx = call.build_transaction({"from": account.address, "nonce": w3.eth.get_transaction_count(account.address),
                                 "chainId": w3.eth.chain_id})
    receipt = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction))
    if receipt.status != 1:
        sys.exit(f"{call.fn_name} reverted (tx {receipt.transactionHash.hex()})")
    return receipt


def create(args, w3: Web3, c: dict) -> int:
    requester = Account.from_key(os.environ["REQUESTER_KEY"])
    relayer = Account.from_key(os.environ["RELAYER_KEY"])
    if args.spec:
        data = Path(args.spec).read_bytes()
        cid, digest = spec_cid(data), Web3.keccak(data)
        if args.ipfs_api:
            publish(args.ipfs_api, data, cid)
    elif args.spec_cid and args.spec_digest:  # what `decentrl spec put` printed
        cid, digest = args.spec_cid, bytes.fromhex(args.spec_digest.removeprefix("0x"))
    else:
        sys.exit("give --spec FILE, or --spec-cid and --spec-digest")
    bounty = int(float(args.bounty) * TOKEN)
    params = {"specCid": cid, "specDigest": digest, "bounty": bounty, "numSamplers": args.samplers,
              "numValidators": args.validators, "numRounds": args.rounds, "claimWindow": args.claim_window,
              "commitWindow": 600, "revealWindow": 300, "attestWindow": 600}
    token, registry, front = c["RLToken"], c["TaskRegistry"], c["TaskFront"]
    deadline = w3.eth.get_block("latest")["timestamp"] + 3600
    chain_id = w3.eth.chain_id

    # 1. Fund the bounty: the registry pulls it from the requester (the spender is the registry).
    permit = (0, 0, b"\0" * 32, b"\0" * 32)  # ITaskFront.Permit with deadline 0: use the allowance
    if args.funding == "approve":
        send(w3, requester, token.functions.approve(registry.address, bounty))
    else:
        signed = sign(requester, {
            "types": {"EIP712Domain": EIP712_DOMAIN, "Permit": PERMIT}, "primaryType": "Permit",
            "domain": {"name": token.functions.name().call(), "version": "1", "chainId": chain_id,
                       "verifyingContract": token.address},
            "message": {"owner": requester.address, "spender": registry.address, "value": bounty,
                        "nonce": token.functions.nonces(requester.address).call(), "deadline": deadline}})
        permit = (deadline, signed.v, signed.r.to_bytes(32, "big"), signed.s.to_bytes(32, "big"))

    # 2. The requester signs the CreateTask request (EIP-712, domain "decentrl TaskFront" version "1").
    signature = sign(requester, {
        "types": {"EIP712Domain": EIP712_DOMAIN, "CreateTask": CREATE_TASK}, "primaryType": "CreateTask",
        "domain": {"name": "decentrl TaskFront", "version": "1", "chainId": chain_id,
                   "verifyingContract": front.address},
        "message": {"requester": requester.address, **params,
                    "nonce": front.functions.nonces(requester.address).call(), "deadline": deadline}}).signature

    # 3. The relayer sends it and pays the gas.
    param_tuple = tuple(params[k] for k in ("specCid", "specDigest", "bounty", "numSamplers", "numValidators",
                                            "numRounds", "claimWindow", "commitWindow", "revealWindow",
                                            "attestWindow"))
    receipt = send(w3, relayer, front.functions.createTaskWithSig(param_tuple, requester.address, deadline,
                                                                  signature, permit))
    created = registry.events.TaskCreated().process_receipt(receipt)[0]["args"]
    print(f"TaskCreated task {created.taskId} requester {created.requester} spec {created.specCid} "
          f"bounty {created.bounty} block {receipt.blockNumber}", flush=True)
    return follow(w3, c, created.taskId, receipt.blockNumber, args.follow_seconds)


def event_topics(contract) -> dict:
    """topic0 -> event name, for the contract's events (none of those followed here has a tuple)."""
    out = {}
    for item in contract.abi:
        if item["type"] == "event":
            signature = f"{item['name']}({','.join(i['type'] for i in item['inputs'])})"
            out[Web3.keccak(text=signature)] = item["name"]
    return out


def follow(w3: Web3, c: dict, task_id: int, from_block: int, seconds: float) -> int:
    """Prints the task's events (every one of them has taskId as its first indexed topic) until
    TaskSettled, or for `seconds`. Exit status 0 once settled, 2 when still running at the end."""
    registry = c["TaskRegistry"]
    topics, id_topic = event_topics(registry), "0x" + task_id.to_bytes(32, "big").hex()
    end = time.monotonic() + seconds
    while True:
        head = w3.eth.block_number
        for log in w3.eth.get_logs({"address": registry.address, "fromBlock": from_block, "toBlock": head,
                                    "topics": [None, id_topic]}):
            name = topics.get(log["topics"][0])
            if name is None:
                continue
            args = getattr(registry.events, name)().process_log(log)["args"]
            if name == "TaskStatusChanged":
                print(f"TaskStatusChanged {TASK_STATUS[args.status]}", flush=True)
            elif name == "PhaseStarted":
                print(f"PhaseStarted round {args.round + 1} {PHASE[args.phase]} deadline {args.deadline}", flush=True)
            elif name == "RoundFinalized":
                print(f"RoundFinalized round {args.round + 1} checkpoint {args.checkpointCid} "
                      f"root 0x{bytes(args.checkpointRoot).hex()}", flush=True)
            elif name == "TaskSettled":
                status = TASK_STATUS[args.status]
                print(f"TaskSettled {status} paid {list(args.paidByRole)} refund {args.refund}", flush=True)
                checkpoint = c["StateView"].functions.taskOf(task_id).call().checkpointCid
                print(f"result: {status}" + (f", checkpoint {checkpoint}" if checkpoint else ", no checkpoint"))
                return 0
        from_block = head + 1
        if time.monotonic() >= end:
            print(f"task {task_id} has not settled yet; follow it again with: follow {task_id}")
            return 2
        time.sleep(1.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rpc", default="http://127.0.0.1:8545")
    parser.add_argument("--deployment", default="deployments/development.json")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("create", help="fund, sign, relay, then follow a new task")
    c.add_argument("--spec", help="a file of the spec's canonical bytes (the CID and digest are computed)")
    c.add_argument("--spec-cid", help="instead of --spec: the CID `decentrl spec put` printed")
    c.add_argument("--spec-digest", help="and the digest it printed (0x...)")
    c.add_argument("--bounty", required=True, help="DRL")
    c.add_argument("--funding", choices=("permit", "approve"), default="permit")
    c.add_argument("--samplers", type=int, default=2)
    c.add_argument("--validators", type=int, default=3)
    c.add_argument("--rounds", type=int, default=5)
    c.add_argument("--claim-window", type=int, default=3600)
    c.add_argument("--ipfs-api", default=None, help="also add the spec to this IPFS node (http://HOST:5001)")
    c.add_argument("--follow-seconds", type=float, default=3600.0)
    f = sub.add_parser("follow", help="follow an existing task's events to its result")
    f.add_argument("task_id", type=int)
    f.add_argument("--from-block", type=int, default=None, help="default: the deployment's block")
    f.add_argument("--follow-seconds", type=float, default=3600.0)
    args = parser.parse_args(argv)
    w3 = Web3(Web3.HTTPProvider(args.rpc))
    deployed = contracts(w3, args.deployment)
    if args.command == "create":
        return create(args, w3, deployed)
    start = deployed["block"] if args.from_block is None else args.from_block
    return follow(w3, deployed, args.task_id, start, args.follow_seconds)


if __name__ == "__main__":
    sys.exit(main())
