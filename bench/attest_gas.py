"""STATUS: does not complete yet. On dev anvil the attestAggregate transaction of the first size
is reported "dropped" by brownie although the same call succeeds as eth_call; no figure has
been measured. Unresolved.

Gas of one round's attestation: one BLS aggregate against one ECDSA vote per validator.

    python tools/brownie_cli.py run $PWD/bench/attest_gas.py --network NAME

For V = 4, 16 and 64 validators (the registry's cap is 64, so every size runs on the real
contracts): a fresh task with one sampler, one trainer and V validators holding registered BLS
keys reaches its Attest phase, twice (no chain snapshots: brownie drops later transactions of
locally signed accounts after a revert); one task is attested each way:

- per-vote: the V `attest()` transactions (each an ECDSA-signed transaction), summed;
- aggregate: one `attestAggregate()` carrying all V signers (BLS signatures made with py-ecc).

The last vote of either path also finalizes the round (verdicts, pay, reputation for V
validators), which is the same work both ways. So besides the totals the table shows the
attestation alone: the per-vote sum minus that finalization, and the aggregate minus it, with
finalization = gas(last attest) - gas(a middle attest). Ends with exactly one line:

    RESULT bls_gas_16=<aggregate, attestation alone> ecdsa_gas_16=<per-vote, attestation alone> ratio_16=<x>
"""

import statistics

from brownie import accounts, chain

from scripts.deploy import deploy
from workers.crypto.attest_messages import aggregate_args, attestation_message, registration_args
from workers.crypto.bls import BlsKey
from workers.protocol import Role

TOKEN = 10**18
SIZES = (4, 16, 64)
CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"


def _node(dep, admin, role, amount):
    node = accounts.add()
    admin.transfer(node, 10**18)
    dep.token.transfer(node, amount, {"from": admin})
    dep.token.approve(dep.stakes, amount, {"from": node})
    dep.stakes.stake(role, amount, {"from": node})
    return node


def _work(dep, task_id, node):
    root, salt = b"\x11" * 32, b"\x22" * 32
    dep.registry.commit(task_id, dep.registry.commitmentFor(task_id, 0, node, root, CID, salt), {"from": node})
    return root, salt


KEYS: dict = {}  # validator address -> BlsKey, across sizes (the pool grows)


def _task_at_attest(dep, admin, v: int) -> tuple[int, list]:
    """A fresh task with `v` validators at its Attest phase; returns (taskId, validator by slot)."""
    dep.token.approve(dep.registry, 1000 * TOKEN, {"from": admin})
    params = (CID, b"\x33" * 32, 1000 * TOKEN, 1, v, 1, 3600, 600, 600, 600)
    task_id = dep.registry.createTask(params, {"from": admin}).return_value
    sampler = _node(dep, admin, Role.SAMPLER, 100 * TOKEN)
    trainer = _node(dep, admin, Role.TRAINER, 500 * TOKEN)
    dep.registry.claimSlot(task_id, Role.SAMPLER, {"from": sampler})
    dep.registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    chain.mine()  # the draw is seeded by a block mined after the slots filled
    dep.registry.drawValidators(task_id, {"from": admin, "gas_limit": 20_000_000})
    for node in (sampler, trainer):
        root, salt = _work(dep, task_id, node)
        dep.registry.reveal(task_id, root, CID, salt, {"from": node})
    return task_id, [dep.registry.slotOf(task_id, Role.VALIDATOR, s)[0] for s in range(v)]


def attest_round(dep, admin, v: int) -> dict:
    """Gas of both paths, each on its own fresh task with `v` validators."""
    while len(KEYS) < v:
        node = _node(dep, admin, Role.VALIDATOR, 400 * TOKEN)  # two tasks' worth of stake
        key = BlsKey.from_seed(len(KEYS).to_bytes(32, "big"))
        dep.stakes.registerBlsKey(*registration_args(key, node.address, chain.id, dep.stakes.address), {"from": node})
        KEYS[node.address] = key
    bitmap = 0b11
    task_id, slots = _task_at_attest(dep, admin, v)
    per_vote = [dep.registry.attest(task_id, bitmap, {"from": node, "gas_limit": 5_000_000}).gas_used
                for node in slots]
    task_id, slots = _task_at_attest(dep, admin, v)
    message = attestation_message(chain.id, dep.registry.address, task_id, 0, bitmap)
    votes = {s: (KEYS[node].sign(message), list(KEYS[node].pubkey_g2)) for s, node in enumerate(slots)}
    dep.registry.attestAggregate.call(*aggregate_args(task_id, 0, bitmap, votes), {"from": admin})  # surfaces a revert
    tx = dep.registry.attestAggregate(*aggregate_args(task_id, 0, bitmap, votes),
                                      {"from": admin, "gas_limit": 5_000_000})
    assert "RoundFinalized" in tx.events, "the aggregate must finalize the round"
    finalization = per_vote[-1] - int(statistics.median(per_vote[:-1]))
    return {"v": v, "ecdsa_total": sum(per_vote), "bls_total": tx.gas_used, "finalization": finalization,
            "ecdsa": sum(per_vote) - finalization, "bls": tx.gas_used - finalization}


def measure() -> list[dict]:
    dep = deploy(accounts[0])
    return [attest_round(dep, accounts[0], v) for v in SIZES]


def table(rows: list[dict]) -> list[str]:
    lines = [f"{'V':>3} | {'per-vote total':>14} | {'aggregate total':>15} | {'finalization':>12} | "
             f"{'per-vote attest':>15} | {'aggregate attest':>16} | {'ratio':>6} | {'agg/validator':>13}"]
    for r in rows:
        lines.append(f"{r['v']:>3} | {r['ecdsa_total']:>14,} | {r['bls_total']:>15,} | {r['finalization']:>12,} | "
                     f"{r['ecdsa']:>15,} | {r['bls']:>16,} | {r['bls'] / r['ecdsa']:>6.3f} | "
                     f"{r['bls'] // r['v']:>13,}")
    return lines


def result_line(rows: list[dict]) -> str:
    r16 = next(r for r in rows if r["v"] == 16)
    return f"RESULT bls_gas_16={r16['bls']} ecdsa_gas_16={r16['ecdsa']} ratio_16={r16['bls'] / r16['ecdsa']:.3f}"


def main():
    rows = measure()
    print("\n".join(table(rows)))
    print(result_line(rows))
