"""A narrated walk through one decentrl task on a development chain.

    brownie run scripts/demo.py                 # `make demo`
    brownie run scripts/demo.py --network NAME  # any development network

Deploys, funds and stakes scripted actors (one account each), then a requester who holds no ETH
signs the task (EIP-712) and a bounty permit (EIP-2612), and a relayer submits them. Samplers,
trainer and validators claim their slots and play all rounds with commit–reveal of Merkle roots.
Two rounds show the protocol's teeth:

* R2: validator V3 rejects an honest checkpoint; the 2/3 quorum accepts it, so V3 dissents: not
  slashed, keeps its slot, and its round pay, held, is reclaimed to the requester once the window
  passes (only a dispute of its own proving the work bad would have released it).
* R3: sampler S2 never commits; at the deadline advance() removes it (Missed) and the standby
  sampler S3 takes the slot from R4.

Disputes are on, as deployed: each round's pay is held for the round's dispute window (1 h here);
the script moves the chain's clock past the windows and releases it (DisputeManager.releasePay).
It ends with a table of payouts, stakes and reputations, and checks that everything paid plus the
refund equals the bounty, split 70/20/10 between trainers, samplers and validators.
"""

import contextlib
import io
import secrets
import warnings

from brownie import accounts, chain, network
from brownie._config import CONFIG

from scripts.actors import (
    TOKEN,
    Narrator,
    Protocol,
    ScriptedSampler,
    ScriptedTrainer,
    ScriptedValidator,
    fill_task,
    fmt_drl,
    play_round,
    relay,
    sign_task,
    transact,
)
from scripts.deploy import DEVELOPMENT_PARAMS, deploy
from workers.protocol import Role, Status, TaskParams

SPEC_CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
BOUNTY = 10_000 * TOKEN
FUNDS = 100_000 * TOKEN


def cast(dep, printer=print):
    """The actors of the demo, each on its own account (accounts[0] is the deployer)."""
    proto = Protocol(dep)
    requester = accounts.add(secrets.token_hex(32))  # a fresh key: it never holds ETH, it only signs
    relayer = accounts[1]
    samplers = [ScriptedSampler("S1", accounts[2], proto),
                ScriptedSampler("S2", accounts[3], proto, miss_commit_rounds={2}),
                ScriptedSampler("S3", accounts[4], proto, standby=True)]
    trainer = ScriptedTrainer("T1", accounts[5], proto)
    validators = [ScriptedValidator("V1", accounts[6], proto),
                  ScriptedValidator("V2", accounts[7], proto),
                  ScriptedValidator("V3", accounts[8], proto, against_rounds={1})]
    names = {dep.admin: "admin/treasury", requester.address: "requester", relayer.address: "relayer",
             **{n.address: n.name for n in [*samplers, trainer, *validators]}}
    proto.narrator = Narrator(names, printer)
    return proto, requester, relayer, samplers, trainer, validators


def run(dep, printer=print) -> dict:
    """Plays the demo on a fresh deployment; returns the final accounting (see `report`)."""
    proto, requester, relayer, samplers, trainer, validators = cast(dep, printer)
    nodes = [*samplers, trainer, *validators]
    say = printer

    say("\n== funding and staking (2x the minimum stake each) ==")
    transact(dep.admin, dep.token.transfer, requester, BOUNTY)
    for node in nodes:
        transact(dep.admin, dep.token.transfer, node.account, FUNDS)
        node.stake(2 * dep.stakes.minStake(node.role))

    say("\n== the requester signs, the relayer submits ==")
    params = TaskParams(spec_cid=SPEC_CID, spec_digest=bytes.fromhex("11" * 32), bounty=BOUNTY)
    signed = sign_task(requester.private_key, requester.address, params, dep.front, token=dep.token)
    say(f"requester {requester.address} holds {requester.balance()} wei of ETH; "
        f"signed CreateTask + permit for {fmt_drl(BOUNTY)}")
    task_id = relay(proto, relayer, signed)

    say("\n== claims and the validator draw ==")
    fill_task(proto, task_id, samplers[:2], trainer, relayer)

    for r in range(params.num_rounds):
        say(f"\n== round R{r + 1} ==")
        play_round(proto, task_id, nodes, relayer)
    assert proto.task(task_id)["status"] == Status.COMPLETED

    say("\n== the dispute window passes; the held pay is released ==")
    release_held(proto, task_id, params.num_rounds, nodes, relayer)

    say("\n== withdrawals (samplers and trainer; validators leave theirs claimable) ==")
    for node in [*samplers, trainer]:
        node.withdraw()
    return report(proto, task_id, requester, nodes, printer)


def release_held(proto, task_id: int, rounds: int, nodes, keeper) -> None:
    """Disputes are on: each round's pay was held in the RewardVault for the round's dispute window
    (1 h here). Moves the chain's clock past the last window and releases every node's held pay
    (DisputeManager.releasePay: anyone may send it; the off-chain nodes send their own)."""
    dep = proto.dep
    end = max(proto.state.windowEndOf(task_id, r) for r in range(rounds))
    chain.sleep(max(end - dep.registry.protocolTime() + 1, 1))
    chain.mine()
    for r in range(rounds):
        for node in nodes:
            if dep.vault.heldOf(task_id, r, node.address):
                proto.send("releasePay", keeper, dep.disputes.releasePay, task_id, r, node.address,
                           task_id=task_id, phase="payout")
    assert dep.vault.heldTotalOf(task_id) == 0


def report(proto, task_id: int, requester, nodes, printer=print) -> dict:
    """Prints the final table and checks the accounting: paid + refund == bounty; 70/20/10."""
    dep = proto.dep
    t = proto.task(task_id)
    settled = next(tx for _, tx in proto.txs if "TaskSettled" in tx.events).events["TaskSettled"]
    # the requester's refund: the unearned rest at settlement, then the held pay reclaimed to it when the
    # window passed (a dissenter's, whose dissent no dispute vindicated)
    reclaimed = sum(ev["amount"] for _, tx in proto.txs if "Reclaimed" in tx.events for ev in tx.events["Reclaimed"]
                    if ev["taskId"] == task_id)
    refund = settled["refund"] + reclaimed
    earned = {}
    for _, tx in proto.txs:
        for ev in tx.events["RewardEarned"] if "RewardEarned" in tx.events else []:
            earned[ev["node"]] = earned.get(ev["node"], 0) + ev["amount"]
    withdrawn = {}
    for _, tx in proto.txs:
        if "Withdrawn" in tx.events:
            ev = tx.events["Withdrawn"]
            withdrawn[ev["account"]] = withdrawn.get(ev["account"], 0) + ev["amount"]

    printer(f"\n== final accounting, task #{task_id} ({Status(t['status']).name}) ==")
    printer(f"{'node':<6}{'role':<10}{'earned':>16}{'withdrawn':>16}{'claimable':>16}{'stake':>14}"
            f"{'slashed':>12}{'rep':>5}")
    for node in nodes:
        info = dep.stakes.stakeOf(node.address, node.role).dict()
        staked = info["staked"]
        initial = 2 * dep.stakes.minStake(node.role)
        printer(f"{node.name:<6}{node.role.name.lower():<10}{earned.get(node.address, 0) / TOKEN:>16,.4f}"
                f"{withdrawn.get(node.address, 0) / TOKEN:>16,.4f}{dep.vault.claimableOf(node.address) / TOKEN:>16,.4f}"
                f"{staked / TOKEN:>14,.2f}{(initial - staked) / TOKEN:>12,.2f}"
                f"{dep.reputation.scoreOf(node.address):>5}")
    printer(f"requester refund (claimable): {refund // TOKEN:,}.{refund % TOKEN:018d} DRL (exact; "
            f"{reclaimed / TOKEN:,.4f} of it reclaimed held pay)")

    paid = [int(x) for x in proto.state.paidOf(task_id)]
    bounty = t["bounty"]
    assert sum(paid) + refund == bounty, (paid, refund, bounty)
    assert sum(earned.values()) == sum(paid) + reclaimed
    assert dep.vault.escrowOf(task_id) == 0
    # Each role's pool is its share of the bounty (70/20/10). A role is paid one slot share per
    # accepted piece of work; what it did not earn (missed, rejected, a dissent) and the
    # rounding dust go back to the requester, so paid + unearned == pool for every role.
    shares = {Role.TRAINER: 7000, Role.SAMPLER: 2000, Role.VALIDATOR: 1000}
    pools = {role: bounty * bps // 10_000 for role, bps in shares.items()}
    assert refund == bounty - sum(paid) == sum(pools[r] - paid[r] for r in shares) + (bounty - sum(pools.values()))
    split = []
    for role, bps in shares.items():
        assert paid[role] <= pools[role], (role, paid[role], pools[role])
        unearned = pools[role] - paid[role]
        split.append(f"{role.name.lower()}s {paid[role] / TOKEN:,.4f} of {pools[role] / TOKEN:,.0f} ({bps // 100}%)"
                     f" + {unearned / TOKEN:,.4f} unearned")
    printer(f"paid {sum(paid) / TOKEN:,.4f} + refund {refund / TOKEN:,.4f} = bounty {bounty / TOKEN:,.0f} DRL  OK")
    printer("split " + "; ".join(split) + "  OK (70/20/10 pools, unearned shares refunded)")
    return {"task_id": task_id, "paid": paid, "refund": refund, "bounty": bounty, "earned": earned,
            "withdrawn": withdrawn}


def main():
    # brownie's own chain.mine/sleep trip its FutureWarning about rpc.* on anvil: noise here.
    warnings.filterwarnings("ignore", message=r"rpc\.\w+ should not be called directly")
    CONFIG.argv["silent"] = True  # our narration replaces brownie's per-transaction output
    with contextlib.redirect_stdout(io.StringIO()):  # deploy() prints each contract; not needed here
        dep = deploy(accounts[0], DEVELOPMENT_PARAMS)
    print(f"decentrl demo on {network.show_active()}: contracts deployed (registry {dep.registry.address}); "
          "disputes on: each round's pay is held for a 1 h dispute window, then released")
    print(f"{'when':<6}{'phase':<14}{'who':<12}what")
    return run(dep)
