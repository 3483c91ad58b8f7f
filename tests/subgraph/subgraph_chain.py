"""Indexes a brownie deployment's whole history with the compiled mappings and lists every place
where the entities disagree with the contracts' own views."""

from __future__ import annotations

from brownie import web3
from subgraph_support import chain_events, manifest, run_harness

from workers.protocol import Role

# ProtocolConfig, TaskRegistry, TaskFront, StakeManager, Reputation, RewardVault, DisputeManager,
# KeyringBoard, RLToken: the libraries emit from their core's address, StateView emits nothing.
DATA_SOURCES = tuple(ds["name"] for ds in manifest()["dataSources"])
ROLES = {"Sampler": Role.SAMPLER, "Trainer": Role.TRAINER, "Validator": Role.VALIDATOR}
STATUSES = ["None", "Open", "Drawing", "Active", "Completed", "Cancelled", "Failed", "NoResult"]
VERDICTS = ["None", "Accepted", "Rejected", "Inconclusive"]
DISPUTE_STATUSES = ["None", "Drawing", "Voting", "Upheld", "Dismissed", "Void"]
EVIDENCE = ["Whole", "Episode", "Transition", "DataChunk"]
ZERO = "0x" + "00" * 20


def index(dep):
    """(events, result) of every log the deployment's contracts emitted since they were deployed."""
    addresses = {name: address for name, address in dep.addresses().items() if name in DATA_SOURCES}
    events = chain_events(web3, addresses, min(dep.start_blocks().values()))
    return events, run_harness(events)


def hexed(value) -> str:
    return "0x" + bytes(value).hex()


def optional(address) -> str | None:
    """An address as the subgraph stores it, None for the zero address (never set)."""
    return None if str(address).lower() == ZERO else str(address).lower()


def mismatches(result, dep) -> list:
    """Where the subgraph and the chain disagree (empty when they agree everywhere). Task and
    dispute records are read from StateView, the parameters from ProtocolConfig."""
    out = []

    def check(what, indexed, onchain):
        if indexed != onchain:
            out.append(f"{what}: subgraph {indexed!r} != chain {onchain!r}")

    for stake in result.all("Stake"):
        info = dep.stakes.stakeOf(stake["node"], ROLES[stake["role"]]).dict()
        for field in ("staked", "locked", "unbonding", "unbondingReadyAt"):
            check(f"Stake {stake['id']}.{field}", int(stake[field]), int(info[field]))
    for node in result.all("Node"):
        check(f"Node {node['id']}.reputation", node["reputation"], dep.reputation.scoreOf(node["id"]))
        check(f"Node {node['id']}.paused", node["paused"], dep.stakes.isNodePaused(node["id"]))
    for account in result.all("Account"):
        a = account["id"]
        check(f"Account {a}.tokenBalance", int(account["tokenBalance"]), dep.token.balanceOf(a))
        check(f"Account {a}.vaultClaimable", int(account["vaultClaimable"]), dep.vault.claimableOf(a))
        check(f"Account {a}.disputeOwed", int(account["disputeOwed"]), dep.state.owedOf(a))
    for task in result.all("Task"):
        t = dep.state.taskOf(int(task["id"])).dict()
        check(f"Task {task['id']}.status", task["status"], STATUSES[t["status"]])
        check(f"Task {task['id']}.escrow", int(task["escrow"]), dep.vault.escrowOf(int(task["id"])))
        check(f"Task {task['id']}.earned", int(task["earned"]), sum(int(x) for x in dep.state.paidOf(task["id"])))
        check(f"Task {task['id']}.currentRound", task["currentRound"], t["round"])
        root = t["checkpointRoot"]
        check(f"Task {task['id']}.checkpointRoot", task.get("checkpointRoot"),
              None if int(hexed(root), 16) == 0 else hexed(root))
    for sub in result.all("Submission"):
        task, rnd = sub["round"].split("-")
        s = dep.state.submissionOf(int(task), int(rnd), ROLES[sub["role"]], sub["slot"]).dict()
        check(f"Submission {sub['id']}.node", sub["node"], str(s["node"]).lower())
        check(f"Submission {sub['id']}.commitment", sub["commitment"], hexed(s["commitment"]))
        check(f"Submission {sub['id']}.revealed", sub["revealed"], s["revealed"])
        check(f"Submission {sub['id']}.root", sub.get("root"), hexed(s["root"]) if s["revealed"] else None)
        check(f"Submission {sub['id']}.cid", sub.get("cid"), s["cid"] if s["revealed"] else None)
        check(f"Submission {sub['id']}.verdict", sub["verdict"], VERDICTS[s["verdict"]])
    for slot in result.all("Slot"):
        task, role, index = slot["id"].split("-")
        holder = str(dep.state.slotOf(int(task), ROLES[role], int(index)).dict()["node"]).lower()
        check(f"Slot {slot['id']}.node", slot.get("node"), None if holder == ZERO else holder)
    for held in result.all("HeldPay"):
        amount = dep.vault.heldOf(int(held["task"]), held["round"], held["account"])
        check(f"HeldPay {held['id']} still held", held["status"] == "Held", amount > 0)
    for dispute in result.all("Dispute"):
        d = dep.state.disputeOf(int(dispute["id"])).dict()
        check(f"Dispute {dispute['id']}.status", dispute["status"], DISPUTE_STATUSES[d["status"]])
        check(f"Dispute {dispute['id']}.evidence", dispute["evidence"], EVIDENCE[d["evidence"]])
        check(f"Dispute {dispute['id']}.item", int(dispute["item"]), d["item"])
    for dissent in result.all("Dissent"):
        task, round_ = int(dissent["task"]), int(dissent["round"].split("-")[1])
        check(f"Dissent {dissent['id']} recorded", dep.state.dissentedIn(task, round_, dissent["validator"]),
              str(dep.state.disputeManager()).lower() != ZERO)
    for member in result.all("RoleMember"):
        contract = next(c for c in dep.contracts().values() if c.address.lower() == member["accessRole"][:42])
        role = member["accessRole"][43:]
        check(f"RoleMember {member['id']}.active", member["active"], contract.hasRole(role, member["account"]))
    p = result.get("Protocol", "decentrl")
    check("Protocol.totalStaked", int(p["totalStaked"]), dep.stakes.totalStaked())
    check("Protocol.totalEscrow", int(p["totalEscrow"]), dep.vault.totalEscrow())
    check("Protocol.taskCount", p["taskCount"], dep.state.taskCount())
    check("Protocol.slashBps", p["slashBps"], dep.config.slashBps())
    check("Protocol.roleShares", [p["samplerBps"], p["trainerBps"], p["validatorBps"]],
          [int(x) for x in dep.config.roleShares()])
    check("Protocol.treasury", p["treasury"], dep.config.treasury().lower())
    check("Protocol.minStakes", [int(x) for x in p["minStakes"]], [dep.stakes.minStake(r) for r in Role])
    check("Protocol.unbondingPeriod", int(p["unbondingPeriod"]), dep.stakes.unbondingPeriod())
    check("Protocol.reputationThreshold", p["reputationThreshold"], dep.reputation.threshold())
    check("Protocol.reputationDeltas", p["reputationDeltas"], [dep.reputation.delta(o) for o in range(6)])
    check("Protocol.minBond", int(p["minBond"]), dep.config.minBond())
    check("Protocol.forcedErrorBps", p["forcedErrorBps"], dep.config.forcedErrorBps())
    check("Protocol.minBountyPerSlotRound", int(p["minBountyPerSlotRound"]), dep.config.minBountyPerSlotRound())
    check("Protocol.disputeWindow", int(p["disputeWindow"]), dep.config.disputeWindow())
    check("Protocol.voteWindow", int(p["voteWindow"]), dep.config.voteWindow())
    check("Protocol.taskFront", p.get("taskFront"), optional(dep.state.taskFront()))
    check("Protocol.disputeManager", p.get("disputeManager"), optional(dep.state.disputeManager()))
    return out
