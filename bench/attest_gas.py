"""Gas of one round's attestation: every validator seals its vote (one commitAttestation each), then
the votes are opened by one BLS aggregate, or by one ECDSA-signed `attest` per validator.

    .venv/bin/python bench/attest_gas.py [--sizes 4,16,64] [--ports 8710-8719]

Runs its own anvil (workers.localnet) with the protocol deployed from brownie's build (run
`brownie compile` first). A pool of validators stakes and registers BLS keys (proof of possession
checked on-chain). For each size V, a fresh task with one sampler, one trainer and V validators
reaches its Attest phase and every validator commits its sealed vote (V `commitAttestation()`
transactions: commits cannot be aggregated without showing the votes to the aggregating peers);
the last commit opens AttestReveal. From there the votes are opened two ways:

- per-vote: V `attest()` transactions, one per validator (each an ECDSA-signed transaction; the
  signature is checked by the chain, its cost is in the 21,000 base of each transaction), summed;
- aggregate: one `attestAggregate()` carrying all V signers' verdict and salts (py-ecc BLS
  signatures aggregated off-chain, one pairing check on-chain). The signature check does not grow
  with V (the registry keeps each task's aggregate G1 key, updated when a validator slot changes
  hands, and an aggregate only subtracts the keys of the slots that did not sign: none here); each
  signer's sealed vote is read, opened with its salt and cleared.

That key is paid for when validators join a task, once per task (not per round), so the bench
also prints what a join costs: the gas of the draw that fills the V validator slots, per validator,
with a pool of validators that have BLS keys (each join adds its key to the task's key) and, from
the same chain state before any key was registered, with the same pool keyless (each join only
looks the key up). Their difference is the key update a join pays, averaged over the task's V
joins: a draw fills the slots in one transaction, so its first join writes the key's three
storage slots fresh and the others find them warm; a redraw that fills one slot alone pays them
cold. A join by a keyless validator still pays the look-up (compare with the draw before this
design: SPECIFICATION.md 5.5.1).

Both paths start from one chain snapshot (anvil `evm_snapshot`/`evm_revert`) of one task at its
AttestReveal phase, so they pay the same validators from the same storage state, and both include
the same commits. The vote that completes the AttestReveal phase also finalizes the round
(verdicts, pay and reputation of V validators) — the same
work on both paths. The table shows the totals and the attestation alone (total minus that
finalization). The finalization is measured, not guessed: the last validator's vote is replayed
from the snapshot once more, second to last, and the difference of its two gas figures is the
finalization (the two votes differ in nothing else).
The join table follows the attestation table; the output ends with exactly one line:

    RESULT bls_gas_16=<commits + aggregate, attestation alone> ecdsa_gas_16=<commits + per-vote, attestation
    alone> ratio_16=<x>
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from web3.logs import DISCARD

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workers.chain.abi import load_abi  # noqa: E402
from workers.crypto.attest_messages import aggregate_args, attestation_message, registration_args  # noqa: E402
from workers.crypto.bls import BlsKey  # noqa: E402
from workers.localnet.chain import TOKEN, Anvil, deploy_protocol, fund, http_w3  # noqa: E402
from workers.protocol import Role, Status, attest_commitment  # noqa: E402

ANVIL_PORTS = range(8710, 8720)
CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
ACCEPT_BOTH = 0b11  # bit 0: the sampler (slot 0), bit 1 (= numSamplers): the trainer


class Chain:
    """The deployed protocol and accounts that act through anvil's impersonation."""

    def __init__(self, anvil: Anvil):
        self.w3 = http_w3(anvil.http_url)
        self.admin, treasury = self.w3.eth.accounts[0], self.w3.eth.accounts[9]
        # disputes off, as the figures in SPECIFICATION.md were measured (pay credited, not held)
        contracts = deploy_protocol(self.w3, self.admin, treasury, activate_disputes=False)["contracts"]
        self.token = self.w3.eth.contract(contracts["RLToken"], abi=load_abi("RLToken"))
        self.stakes = self.w3.eth.contract(contracts["StakeManager"], abi=load_abi("StakeManager"))
        self.registry = self.w3.eth.contract(contracts["TaskRegistry"], abi=load_abi("TaskRegistry"))
        self.state = self.w3.eth.contract(contracts["StateView"], abi=load_abi("StateView"))
        self.count = 0

    def send(self, sender: str, call, gas: int = 8_000_000):
        receipt = self.w3.eth.wait_for_transaction_receipt(call.transact({"from": sender, "gas": gas}))
        if receipt["status"] != 1:
            raise RuntimeError(f"{call.fn_name} reverted: {call.call({'from': sender})}")
        return receipt

    def new_account(self, drl: int) -> str:
        self.count += 1
        address = self.w3.to_checksum_address(f"0x{0xdec0 << 144 | self.count:040x}")
        self.w3.provider.make_request("anvil_impersonateAccount", [address])
        fund(self.w3, address, 10 * TOKEN)
        if drl:
            self.send(self.admin, self.token.functions.transfer(address, drl))
        return address

    def staked(self, role: Role, amount: int) -> str:
        node = self.new_account(amount)
        self.send(node, self.token.functions.approve(self.stakes.address, amount))
        self.send(node, self.stakes.functions.stake(role, amount))
        return node

    def status(self, task_id: int) -> Status:
        return Status(self.state.functions.taskOf(task_id).call()[1])  # Task.status

    def mine(self) -> None:
        self.w3.provider.make_request("evm_mine", [])

    def snapshot(self) -> str:
        return self.w3.provider.make_request("evm_snapshot", [])["result"]

    def revert(self, snapshot: str) -> str:
        """Back to `snapshot` (which anvil then forgets); returns a fresh snapshot of that state."""
        if not self.w3.provider.make_request("evm_revert", [snapshot])["result"]:
            raise RuntimeError(f"anvil could not revert to snapshot {snapshot}")
        return self.snapshot()


def stake_pool(chain: Chain, size: int) -> list[str]:
    minimum = chain.stakes.functions.minStake(Role.VALIDATOR).call()
    return [chain.staked(Role.VALIDATOR, minimum) for _ in range(size)]


def register_keys(chain: Chain, pool: list[str]) -> dict[str, BlsKey]:
    keys = {}
    for i, node in enumerate(pool):
        key = BlsKey.from_seed(i.to_bytes(32, "big"))
        chain.send(node, chain.stakes.functions.registerBlsKey(
            *registration_args(key, node, chain.w3.eth.chain_id, chain.stakes.address)))
        keys[node] = key
    return keys


def drawn_task(chain: Chain, v: int) -> tuple[int, list[str], int]:
    """A fresh 1-round task with `v` validators drawn: (task id, workers, gas of the draws that
    assigned validators; a call that only re-armed an expired seed is not counted)."""
    bounty = 1000 * TOKEN
    chain.send(chain.admin, chain.token.functions.approve(chain.registry.address, bounty))
    chain.send(chain.admin,
               chain.registry.functions.createTask((CID, b"\x33" * 32, bounty, 1, v, 1, 3600, 600, 600, 600)))
    task_id = chain.state.functions.taskCount().call()
    minimums = [chain.stakes.functions.minStake(r).call() for r in (Role.SAMPLER, Role.TRAINER)]
    workers = [chain.staked(Role.SAMPLER, minimums[0]), chain.staked(Role.TRAINER, minimums[1])]
    for role, node in zip((Role.SAMPLER, Role.TRAINER), workers, strict=True):
        chain.send(node, chain.registry.functions.claimSlot(task_id, role))
    draw_gas = 0
    while chain.status(task_id) != Status.ACTIVE:
        chain.mine()  # the draw is seeded by a block after the armed one; a short draw re-arms
        receipt = chain.send(chain.admin, chain.registry.functions.drawValidators(task_id), gas=25_000_000)
        # the draw's receipt also holds other events (e.g. StakeLocked): only SlotAssigned is wanted
        if chain.registry.events.SlotAssigned().process_receipt(receipt, errors=DISCARD):
            draw_gas += receipt["gasUsed"]
    return task_id, workers, draw_gas


def task_at_attest(chain: Chain, v: int) -> tuple[int, list[str], int]:
    """A fresh 1-round task with `v` validators at its Attest phase: (task id, validator by slot,
    gas of its validator draw)."""
    task_id, workers, draw_gas = drawn_task(chain, v)
    root, salt = b"\x11" * 32, b"\x22" * 32
    for node in workers:  # the sampler's commit and reveal, then the trainer's
        commitment = chain.state.functions.commitmentFor(task_id, 0, node, root, CID, salt).call()
        chain.send(node, chain.registry.functions.commit(task_id, commitment))
        chain.send(node, chain.registry.functions.reveal(task_id, root, CID, salt))
    return task_id, [chain.state.functions.slotOf(task_id, Role.VALIDATOR, s).call()[0] for s in range(v)], draw_gas


def salt_of(node: str) -> bytes:
    return bytes.fromhex(node[2:].lower().rjust(64, "0"))


def seal_votes(chain: Chain, task_id: int, slots: list[str]) -> int:
    """Every validator commits ACCEPT_BOTH: the gas of the V commits (the last opens AttestReveal)."""
    gas = 0
    for node in slots:
        sealed = attest_commitment(task_id, 0, node, ACCEPT_BOTH, salt_of(node))
        gas += chain.send(node, chain.registry.functions.commitAttestation(task_id, 0, sealed))["gasUsed"]
    return gas


def attest_round(chain: Chain, keys: dict[str, BlsKey], v: int) -> dict:
    task_id, slots, draw_gas = task_at_attest(chain, v)
    commits = seal_votes(chain, task_id, slots)
    snapshot = chain.snapshot()

    def votes_in(order: list[str]) -> list[int]:
        return [chain.send(node, chain.registry.functions.attest(task_id, 0, ACCEPT_BOTH, salt_of(node)))["gasUsed"]
                for node in order]

    per_vote = votes_in(slots)
    snapshot = chain.revert(snapshot)
    swapped = votes_in(slots[:-2] + [slots[-1], slots[-2]])  # the last validator, now not completing
    finalization = per_vote[-1] - swapped[-2]
    snapshot = chain.revert(snapshot)
    message = attestation_message(chain.w3.eth.chain_id, chain.registry.address, task_id, 0, ACCEPT_BOTH)
    votes = {s: (keys[node].sign(message), list(keys[node].pubkey_g2)) for s, node in enumerate(slots)}
    salts = {s: salt_of(node) for s, node in enumerate(slots)}
    receipt = chain.send(chain.admin, chain.registry.functions.attestAggregate(
        *aggregate_args(task_id, 0, ACCEPT_BOTH, votes, salts)))
    if chain.status(task_id) != Status.COMPLETED:
        raise RuntimeError("the aggregate did not finalize the round")
    aggregate = receipt["gasUsed"]
    return {"v": v, "commits": commits, "ecdsa_open": sum(per_vote), "bls_open": aggregate,
            "finalization": finalization, "ecdsa": commits + sum(per_vote) - finalization,
            "bls": commits + aggregate - finalization, "draw_keyed": draw_gas}


def table(rows: list[dict]) -> list[str]:
    """Per size: the V commits (both paths), the openings (V attest, or one aggregate), the
    finalization, and each path's attestation alone (commits + openings - finalization)."""
    lines = [f"{'V':>3} | {'commits':>10} | {'per-vote opens':>14} | {'aggregate open':>14} | {'finalization':>12} | "
             f"{'per-vote attest':>15} | {'aggregate attest':>16} | {'ratio':>6} | {'agg/validator':>13}"]
    for r in rows:
        lines.append(f"{r['v']:>3} | {r['commits']:>10,} | {r['ecdsa_open']:>14,} | {r['bls_open']:>14,} | "
                     f"{r['finalization']:>12,} | {r['ecdsa']:>15,} | {r['bls']:>16,} | "
                     f"{r['bls'] / r['ecdsa']:>6.3f} | {r['bls'] // r['v']:>13,}")
    return lines


def join_table(rows: list[dict]) -> list[str]:
    lines = [f"{'V':>3} | {'draw, keyed pool':>16} | {'draw, keyless pool':>18} | {'join, keyed':>11} | "
             f"{'join, keyless':>13} | {'key update per join (mean)':>26}"]
    for r in rows:
        keyed, keyless = r["draw_keyed"] / r["v"], r["draw_keyless"] / r["v"]
        lines.append(f"{r['v']:>3} | {r['draw_keyed']:>16,} | {r['draw_keyless']:>18,} | {keyed:>11,.0f} | "
                     f"{keyless:>13,.0f} | {keyed - keyless:>26,.0f}")
    return lines


def result_line(rows: list[dict]) -> str:
    r16 = next(r for r in rows if r["v"] == 16)
    return f"RESULT bls_gas_16={r16['bls']} ecdsa_gas_16={r16['ecdsa']} ratio_16={r16['bls'] / r16['ecdsa']:.3f}"


def measure(sizes: list[int], ports=ANVIL_PORTS) -> list[dict]:
    anvil = Anvil(ports)
    try:
        chain = Chain(anvil)
        pool = stake_pool(chain, 2 * max(sizes))  # a pool larger than a task, so draws fill quickly
        # The same draws before any key exists, each from this state and then undone (a task left
        # drawn would lock its validators, and the next draw would skip them): what a join costs
        # without the key update.
        keyless = {}
        for v in sizes:
            snapshot = chain.snapshot()
            keyless[v] = drawn_task(chain, v)[2]
            chain.revert(snapshot)
        keys = register_keys(chain, pool)
        rows = [attest_round(chain, keys, v) for v in sizes]
        for row in rows:
            row["draw_keyless"] = keyless[row["v"]]
        return rows
    finally:
        anvil.stop()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="4,16,64", help="validator counts, comma-separated (must include 16)")
    parser.add_argument("--ports", default=f"{ANVIL_PORTS.start}-{ANVIL_PORTS.stop - 1}",
                        help="anvil port range FIRST-LAST (the first free one is used)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    first, last = (int(p) for p in args.ports.split("-"))
    rows = measure(sizes, range(first, last + 1))
    print("\n".join(table(rows)))
    print()
    print("Validator slot join (once per task, not per round): draw gas per validator")
    print("\n".join(join_table(rows)))
    print(result_line(rows))


if __name__ == "__main__":
    main()
