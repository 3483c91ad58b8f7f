"""A small typed read API over the protocol's contracts, for roles and the CLI.

Every method is one or a few eth_calls on the deployment's contracts (through workers.chain.calls'
ViewCall, not web3.py's contract call: these reads run in every handler); results are frozen
dataclasses with the workers.protocol enums. Task and dispute records come from the StateView
(the cores serve no struct views). `eligibility` mirrors TaskRegistry's own check
(paused, then stake, then reputation) and says why an account cannot take a role."""

from __future__ import annotations

from dataclasses import dataclass

from workers.chain.calls import ViewCall
from workers.chain.errors import ChainError
from workers.protocol import Phase, Role, Status, Verdict

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"
TOKEN = 10**18


class TaskNotFound(ChainError):
    pass


@dataclass(frozen=True)
class TaskInfo:
    task_id: int
    requester: str
    status: Status
    phase: Phase
    round: int
    num_rounds: int
    num_samplers: int
    num_validators: int
    filled_samplers: int
    filled_validators: int
    trainer_filled: bool
    pending: int
    idle_rounds: int
    revealed_mask: int
    claim_deadline: int
    phase_deadline: int
    seed_block: int
    commit_window: int
    reveal_window: int
    attest_window: int
    shares_bps: tuple  # by Role: sampler, trainer, validator
    bounty: int
    spec_digest: bytes
    checkpoint_root: bytes
    spec_cid: str
    checkpoint_cid: str

    @property
    def started(self) -> bool:
        """Whether its rounds started: a task cancelled, or failed, while open or drawing never did
        (a phase deadline is set only once it is Active)."""
        return self.status in (Status.ACTIVE, Status.COMPLETED, Status.NO_RESULT) or (
            self.status == Status.FAILED and self.phase_deadline != 0)

    def slot_count(self, role: Role) -> int:
        return {Role.SAMPLER: self.num_samplers, Role.TRAINER: 1, Role.VALIDATOR: self.num_validators}[role]


@dataclass(frozen=True)
class SlotInfo:
    role: Role
    slot: int
    node: str | None  # None: vacant
    since_round: int
    locked_stake: int


@dataclass(frozen=True)
class SubmissionInfo:
    role: Role
    slot: int
    node: str | None  # None: nothing committed in this slot this round
    commitment: bytes
    root: bytes
    revealed: bool
    verdict: Verdict
    cid: str


@dataclass(frozen=True)
class Membership:
    assigned: bool
    role: Role | None
    slot: int | None


@dataclass(frozen=True)
class StakeInfo:
    staked: int
    locked: int
    unbonding: int
    unbonding_ready_at: int
    available: int


@dataclass(frozen=True)
class Eligibility:
    """Whether `account` may claim (or be drawn for) `role` now; `reason` says why not."""

    account: str
    role: Role
    eligible: bool
    reason: str | None
    paused: bool
    available_stake: int
    required_stake: int
    score: int
    threshold: int


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _drl(wei: int) -> str:
    return f"{wei / TOKEN:,.4f}".rstrip("0").rstrip(".") + " DRL"


class ChainView:
    def __init__(self, deployment):
        self.deployment = deployment
        self.registry, self.state, self.stakes = deployment.registry, deployment.state, deployment.stakes
        self.reputation, self.vault = deployment.reputation, deployment.vault
        self._calls: dict[tuple[str, str], ViewCall] = {}

    def read(self, contract, name: str, *args):
        """contract.name(*args) (any of the deployment's contracts), through a ViewCall made
        once per function; what the typed methods below use."""
        key = (contract.address, name)
        if key not in self._calls:
            self._calls[key] = ViewCall(contract, name)
        return self._calls[key](*args)

    def protocol_time(self) -> int:
        """TaskRegistry.protocolTime() as a transaction sent now would see it: read at the "pending"
        block, whose timestamp is the present. At "latest" it is the head's, which on a chain that
        mines only on transactions stands still, so a deadline would never seem to pass
        (workers.chain.stalls)."""
        from web3.exceptions import Web3RPCError

        key = (self.registry.address, "protocolTime@pending")
        if key not in self._calls:
            self._calls[key] = ViewCall(self.registry, "protocolTime", block="pending")
        try:
            return self._calls[key]()
        except Web3RPCError:  # an RPC without a pending block: its chain mines on its own, "latest" will do
            self._calls[key] = ViewCall(self.registry, "protocolTime")
            return self._calls[key]()

    # -- tasks ---------------------------------------------------------------------------------

    def task_count(self) -> int:
        return self.read(self.state, "taskCount")

    def task(self, task_id: int) -> TaskInfo:
        raw = self.read(self.state, "taskOf", task_id)._asdict()
        if raw["status"] == Status.NONE:
            raise TaskNotFound(f"task {task_id} not found (tasks 1..{self.task_count()} exist)")
        fields = {_snake(k): v for k, v in raw.items()}
        fields.update(status=Status(raw["status"]), phase=Phase(raw["phase"]), shares_bps=tuple(raw["sharesBps"]))
        return TaskInfo(task_id=task_id, **fields)

    def slots(self, task_id: int, role: Role | None = None) -> list[SlotInfo]:
        """Every slot of the task (of `role` if given), vacant ones with node None."""
        task = self.task(task_id)
        out = []
        for r in [role] if role is not None else list(Role):
            for i in range(task.slot_count(r)):
                s = self.read(self.state, "slotOf", task_id, r, i)
                node = None if s.node == ZERO_ADDRESS else s.node
                out.append(SlotInfo(Role(r), i, node, s.sinceRound, s.lockedStake))
        return out

    def membership(self, task_id: int, node: str) -> Membership:
        m = self.read(self.state, "membershipOf", task_id, node)
        return Membership(True, Role(m.role), m.slot) if m.assigned else Membership(False, None, None)

    def submissions(self, task_id: int, round_: int | None = None) -> list[SubmissionInfo]:
        """The samplers' and the trainer's submissions of a round (default: the current one)."""
        task = self.task(task_id)
        round_ = task.round if round_ is None else round_
        out = []
        for role in (Role.SAMPLER, Role.TRAINER):
            for i in range(task.slot_count(role)):
                s = self.read(self.state, "submissionOf", task_id, round_, role, i)
                node = None if s.node == ZERO_ADDRESS else s.node
                out.append(SubmissionInfo(role, i, node, s.commitment, s.root, s.revealed, Verdict(s.verdict), s.cid))
        return out

    # -- accounts ------------------------------------------------------------------------------

    def stake(self, account: str, role: Role) -> StakeInfo:
        s = self.read(self.stakes, "stakeOf", account, role)
        available = self.read(self.stakes, "availableStake", account, role)
        return StakeInfo(s.staked, s.locked, s.unbonding, s.unbondingReadyAt, available)

    def score(self, account: str) -> int:
        return self.read(self.reputation, "scoreOf", account)

    def claimable(self, account: str) -> int:
        return self.read(self.vault, "claimableOf", account)

    def eligibility(self, account: str, role: Role) -> Eligibility:
        role = Role(role)
        paused = self.read(self.stakes, "isNodePaused", account)
        available = self.read(self.stakes, "availableStake", account, role)
        required = self.read(self.stakes, "minStake", role)
        score = self.score(account)
        threshold = self.read(self.reputation, "threshold")
        name = role.name.lower()
        if paused:
            reason = "node paused (StakeManager.setNodePaused)"
        elif available < required:
            reason = f"stake too low: {_drl(available)} available for {name}, {_drl(required)} required"
        elif score < threshold:
            reason = f"reputation below threshold: score {score} < {threshold}"
        else:
            reason = None
        return Eligibility(account, role, reason is None, reason, paused, available, required, score, threshold)
