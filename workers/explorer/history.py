"""What happened on a deployment, read from its event logs (and a few views): each task's rounds,
submissions and verdicts, payouts, the reputation changes and gas of its transactions; each
node's stake, reputation history and earnings. The explorer and `decentrl task report` both read
this model.

`ChainLog` fetches and decodes every event of the protocol's contracts from the deployment's
block on, and only the new blocks on each `refresh` (an explorer refreshes on every request).
A task's transactions are those that emitted one of its events (TaskRegistry and RewardVault
events carry the task id; Reputation's ReputationChanged is joined to a task through its
transaction); a transaction that emitted nothing (a revert, a keeper call with nothing to do) is
not in the history. Receipts and calldata never change, so each transaction is read once."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from workers.chain.outcome import describe_end
from workers.chain.view import ChainView, TaskNotFound  # noqa: F401  (TaskNotFound: callers catch it)
from workers.chain.watcher import ChainEvent, EventDecoder
from workers.protocol import Outcome, Phase, Role, Status, Verdict

log = logging.getLogger(__name__)

CONTRACTS = ("TaskRegistry", "StakeManager", "Reputation", "RewardVault", "DisputeManager")


@dataclass(frozen=True)
class TxGas:
    tx_hash: str
    kind: str  # the function called (from the calldata's selector), e.g. "commitResult"
    sender: str
    contract: str
    gas_used: int
    gas_price: int  # wei per gas (ETH)
    block: int

    @property
    def fee_wei(self) -> int:
        return self.gas_used * self.gas_price


@dataclass
class Submission:
    role: Role
    slot: int
    node: str
    commitment: bytes | None = None
    root: bytes | None = None
    cid: str | None = None
    revealed: bool = False
    verdict: Verdict = Verdict.NONE
    accepts: int = 0
    rejects: int = 0
    reward_wei: int = 0


@dataclass(frozen=True)
class Attestation:
    validator: str | None  # None: an aggregate of several validators' signatures
    slot: int | None
    signer_bitmap: int  # which validator slots signed (one bit each)
    accept_bitmap: int  # which submissions they accept: the samplers' slots, then the trainer


@dataclass(frozen=True)
class PhaseMark:
    phase: Phase
    deadline: int
    block: int


@dataclass
class Round:
    round: int
    phases: list[PhaseMark] = field(default_factory=list)
    submissions: list[Submission] = field(default_factory=list)
    attestations: list[Attestation] = field(default_factory=list)
    rewards: list[tuple[str, Role, int]] = field(default_factory=list)  # (node, role, wei)
    finalized: bool = False
    checkpoint_root: bytes | None = None
    checkpoint_cid: str | None = None

    def submission(self, role: Role, slot: int) -> Submission | None:
        return next((s for s in self.submissions if s.role == role and s.slot == slot), None)


@dataclass(frozen=True)
class ReputationChange:
    node: str
    old: int
    new: int
    outcome: Outcome
    block: int
    tx_hash: str
    task_id: int | None  # the task whose transaction changed it, if any


@dataclass(frozen=True)
class SlotChange:
    node: str
    role: Role
    slot: int
    assigned: bool  # False: vacated
    round: int  # sinceRound when assigned; the vacate reason code when vacated
    block: int


@dataclass
class TaskHistory:
    task_id: int
    requester: str
    spec_cid: str
    spec_digest: bytes
    bounty_wei: int
    num_samplers: int
    num_validators: int
    num_rounds: int
    created_block: int
    status: Status  # the current state, from the registry's view
    phase: Phase
    round: int
    checkpoint_cid: str
    started: bool  # its rounds started (TaskInfo.started)
    status_changes: list[tuple[Status, int]] = field(default_factory=list)  # (status, block)
    slots: list[SlotChange] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    reputation: list[ReputationChange] = field(default_factory=list)
    gas: list[TxGas] = field(default_factory=list)
    settled_paid_by_role_wei: tuple | None = None  # TaskSettled: wei paid to (samplers, trainer, validators)
    refund_wei: int | None = None
    end: str = ""  # how it ended (workers.chain.outcome.describe_end); "" while it runs

    def payouts(self) -> dict[tuple[str, Role], int]:
        """{(node, role): wei earned in this task} from its RewardEarned events."""
        out: dict[tuple[str, Role], int] = {}
        for r in self.rounds:
            for node, role, amount in r.rewards:
                out[(node, role)] = out.get((node, role), 0) + amount
        return out

    def paid_by_role(self) -> dict[Role, int]:
        out = {role: 0 for role in Role}
        for (_, role), amount in self.payouts().items():
            out[role] += amount
        return out

    def gas_by_kind(self) -> dict[str, tuple[int, int]]:
        """{function: (transactions, gas used)}, the costliest first."""
        out: dict[str, tuple[int, int]] = {}
        for tx in self.gas:
            count, used = out.get(tx.kind, (0, 0))
            out[tx.kind] = (count + 1, used + tx.gas_used)
        return dict(sorted(out.items(), key=lambda kv: -kv[1][1]))


@dataclass(frozen=True)
class RoleStake:
    role: Role
    staked_wei: int
    locked_wei: int
    unbonding_wei: int


@dataclass
class NodeHistory:
    address: str
    score: int
    claimable_wei: int
    stakes: list[RoleStake]
    reputation: list[ReputationChange]
    earned_wei: int
    earned_by_task_wei: dict[int, int]
    earned_by_role_wei: dict[Role, int]
    slashed_wei: int
    tasks: list[int]


@dataclass(frozen=True)
class TaskSummary:
    task_id: int
    requester: str
    status: Status
    round: int
    num_rounds: int
    bounty_wei: int
    spec_cid: str
    created_block: int
    started: bool  # its rounds started (TaskInfo.started)
    end: str = ""  # how it ended (workers.chain.outcome.describe_end); "" while it runs


class ChainLog:
    """Every event of the deployment's protocol contracts since its block, decoded and in chain
    order; `refresh()` adds the blocks mined since the last call. Thread-safe. When the block it
    read last is no longer the chain's (a reorganisation, a reset local chain), it reads the whole
    history again: events of blocks that are gone are never kept."""

    def __init__(self, deployment, max_range: int = 2000):
        self.deployment = deployment
        self.w3 = deployment.w3
        self.view = ChainView(deployment)
        names = [name for name in CONTRACTS if name in deployment.contracts]
        self.decoder = EventDecoder(deployment, names)
        self.addresses = [deployment.contracts[name].address for name in names]
        # Transactions go to contracts whose events are not read too (TaskFront: signed creation).
        self.name_at = {contract.address: name for name, contract in deployment.contracts.items()}
        self.events: list[ChainEvent] = []
        self.head = deployment.block - 1
        self._head_hash: bytes | None = None  # of block `head` when it was read
        self.max_range = max_range
        self._txs: dict[str, TxGas] = {}
        self._lock = threading.Lock()

    def _block_hash(self, number: int) -> bytes | None:
        block = self.w3.eth.get_block(number)
        return None if block is None else bytes(block["hash"])

    def refresh(self) -> int:
        """Reads the logs of the blocks mined since the last refresh; returns the head read to."""
        with self._lock:
            head = self.w3.eth.block_number
            if self._head_hash is not None and (head < self.head or self._block_hash(self.head) != self._head_hash):
                log.warning("explorer: block %d is no longer the chain's (a reorganisation or a reset chain): "
                            "reading the deployment's events again", self.head)
                self.events, self._txs = [], {}
                self.head, self._head_hash = self.deployment.block - 1, None
            first = self.head + 1
            while first <= head:
                last = min(head, first + self.max_range - 1)
                logs = self.w3.eth.get_logs({"address": self.addresses, "fromBlock": first, "toBlock": last})
                logs = sorted(logs, key=lambda e: (e["blockNumber"], e["logIndex"]))
                decoded = [self.decoder.decode(e) for e in logs]
                # a range's events and the head move together: a later range that fails is read
                # again by the next refresh, and this one is not
                self.events.extend(decoded)
                self.head, self._head_hash = last, self._block_hash(last)
                first = last + 1
            return self.head

    def transaction(self, tx_hash: str) -> TxGas:
        """The transaction's sender, called function and gas (read once, then cached)."""
        with self._lock:
            known = self._txs.get(tx_hash)
        if known is not None:
            return known
        tx = self.w3.eth.get_transaction(tx_hash)
        receipt = self.w3.eth.get_transaction_receipt(tx_hash)
        name = self.name_at.get(tx["to"], "?")
        data = bytes(tx["input"])
        kind = "0x" + data[:4].hex()
        if name != "?":
            try:
                kind = self.deployment.contracts[name].get_function_by_selector(data[:4]).fn_name
            except ValueError:  # a selector outside the committed ABI: shown as the raw selector
                pass
        gas = TxGas(tx_hash, kind, tx["from"], name, receipt["gasUsed"], receipt.get("effectiveGasPrice", 0),
                    receipt["blockNumber"])
        with self._lock:
            self._txs[tx_hash] = gas
        return gas

    def snapshot(self) -> list[ChainEvent]:
        with self._lock:
            return list(self.events)


# -- building the model ----------------------------------------------------------------------------

def tasks(log: ChainLog) -> list[TaskSummary]:
    """Every task created since the deployment, newest first, with its current state."""
    out = []
    for e in reversed([e for e in log.snapshot() if e.name == "TaskCreated"]):
        t = log.view.task(e.args["taskId"])
        out.append(TaskSummary(t.task_id, t.requester, t.status, t.round, t.num_rounds, t.bounty, t.spec_cid,
                               e.block, t.started, describe_end(t)))
    return out


def _round(rounds: dict[int, Round], number: int) -> Round:
    if number not in rounds:
        rounds[number] = Round(number)
    return rounds[number]


def task_history(log: ChainLog, task_id: int) -> TaskHistory:
    """The task's history from its events; TaskNotFound if the registry has no such task."""
    t = log.view.task(task_id)
    events = log.snapshot()
    mine = [e for e in events if e.contract in ("TaskRegistry", "RewardVault", "DisputeManager")
            and e.args.get("taskId") == task_id]
    created = next((e for e in mine if e.name == "TaskCreated"), None)
    h = TaskHistory(task_id, t.requester, t.spec_cid, bytes(t.spec_digest), t.bounty, t.num_samplers,
                    t.num_validators, t.num_rounds, created.block if created else 0, t.status, t.phase, t.round,
                    t.checkpoint_cid, t.started, end=describe_end(t))
    rounds: dict[int, Round] = {}
    for e in mine:
        a = e.args
        if e.contract != "TaskRegistry":
            continue
        if e.name == "TaskStatusChanged":
            h.status_changes.append((Status(a["status"]), e.block))
        elif e.name == "SlotAssigned":
            h.slots.append(SlotChange(a["node"], Role(a["role"]), a["slot"], True, a["sinceRound"], e.block))
        elif e.name == "SlotVacated":
            h.slots.append(SlotChange(a["node"], Role(a["role"]), a["slot"], False, a["reason"], e.block))
        elif e.name == "PhaseStarted":
            _round(rounds, a["round"]).phases.append(PhaseMark(Phase(a["phase"]), a["deadline"], e.block))
        elif e.name == "ResultCommitted":
            r = _round(rounds, a["round"])
            sub = r.submission(Role(a["role"]), a["slot"])
            if sub is None:
                sub = Submission(Role(a["role"]), a["slot"], a["node"])
                r.submissions.append(sub)
            sub.node, sub.commitment = a["node"], bytes(a["commitment"])
        elif e.name == "ResultRevealed":
            r = _round(rounds, a["round"])
            sub = r.submission(Role(a["role"]), a["slot"])
            if sub is None:  # cannot happen on a sound registry: a reveal needs its commitment
                sub = Submission(Role(a["role"]), a["slot"], a["node"])
                r.submissions.append(sub)
            sub.root, sub.cid, sub.revealed = bytes(a["root"]), a["cid"], True
        elif e.name == "VerdictReached":
            r = _round(rounds, a["round"])
            sub = r.submission(Role(a["role"]), a["slot"])
            if sub is None:  # a verdict on a slot that never committed (missed)
                sub = Submission(Role(a["role"]), a["slot"], a["node"])
                r.submissions.append(sub)
            sub.verdict, sub.accepts, sub.rejects = Verdict(a["verdict"]), a["accepts"], a["rejects"]
        elif e.name == "Attested":
            _round(rounds, a["round"]).attestations.append(
                Attestation(a["validator"], a["slot"], 1 << a["slot"], a["acceptBitmap"]))
        elif e.name == "AggregateAttested":
            _round(rounds, a["round"]).attestations.append(
                Attestation(None, None, a["signerBitmap"], a["acceptBitmap"]))
        elif e.name == "RewardEarned":
            r = _round(rounds, a["round"])
            r.rewards.append((a["node"], Role(a["role"]), a["amount"]))
            for sub in r.submissions:
                if sub.node == a["node"] and sub.role == Role(a["role"]):
                    sub.reward_wei += a["amount"]
        elif e.name == "RoundFinalized":
            r = _round(rounds, a["round"])
            r.finalized, r.checkpoint_root, r.checkpoint_cid = True, bytes(a["checkpointRoot"]), a["checkpointCid"]
        elif e.name == "TaskSettled":
            h.settled_paid_by_role_wei, h.refund_wei = tuple(a["paidByRole"]), a["refund"]
    for r in rounds.values():
        r.submissions.sort(key=lambda s: (s.role != Role.SAMPLER, s.role, s.slot))
    h.rounds = [rounds[n] for n in sorted(rounds)]
    hashes = list(dict.fromkeys(e.tx_hash for e in mine))
    mine_txs = set(hashes)
    h.reputation = [_reputation(e, task_id) for e in events
                    if e.name == "ReputationChanged" and e.tx_hash in mine_txs]
    h.gas = [log.transaction(tx) for tx in hashes]
    return h


def _reputation(e: ChainEvent, task_id: int | None) -> ReputationChange:
    a = e.args
    return ReputationChange(a["node"], a["oldScore"], a["newScore"], Outcome(a["outcome"]), e.block, e.tx_hash,
                            task_id)


def node_addresses(log: ChainLog) -> list[str]:
    """Every account that staked, in the order they first did."""
    return list(dict.fromkeys(e.args["node"] for e in log.snapshot() if e.name == "Staked"))


def node_history(log: ChainLog, address: str) -> NodeHistory:
    events = log.snapshot()
    task_of_tx = {e.tx_hash: e.args["taskId"] for e in events
                  if e.contract == "TaskRegistry" and "taskId" in e.args}
    reputation = [_reputation(e, task_of_tx.get(e.tx_hash)) for e in events
                  if e.name == "ReputationChanged" and e.args["node"] == address]
    by_task: dict[int, int] = {}
    by_role = {role: 0 for role in Role}
    slashed, tasks_seen = 0, []
    for e in events:
        a = e.args
        if e.name == "RewardEarned" and a["node"] == address:
            by_task[a["taskId"]] = by_task.get(a["taskId"], 0) + a["amount"]
            by_role[Role(a["role"])] += a["amount"]
        elif e.name == "Slashed" and a["node"] == address:
            slashed += a["amount"]
        elif e.name == "SlotAssigned" and a["node"] == address and a["taskId"] not in tasks_seen:
            tasks_seen.append(a["taskId"])
    stakes = []
    for role in Role:
        s = log.view.stake(address, role)
        stakes.append(RoleStake(role, s.staked, s.locked, s.unbonding))
    return NodeHistory(address, log.view.score(address), log.view.claimable(address), stakes, reputation,
                       sum(by_task.values()), by_task, by_role, slashed, tasks_seen)


def payouts_by_role(log: ChainLog) -> dict[Role, int]:
    """Wei earned by each role over every task (RewardEarned)."""
    out = {role: 0 for role in Role}
    for e in log.snapshot():
        if e.name == "RewardEarned":
            out[Role(e.args["role"])] += e.args["amount"]
    return out
