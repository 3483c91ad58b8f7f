"""A task told as the contracts tell it: the events of each protocol step, in the order the
contracts emit them (TaskRegistry with its libraries RoundLogic and SlotLogic, RewardVault,
StakeManager, Reputation; DisputeManager with JuryLogic; ProtocolConfig's parameters), for the
synthetic mapping tests. tests/subgraph/test_subgraph_replay.py checks the same against a real chain."""

from __future__ import annotations

from eth_utils import keccak
from subgraph_support import Scenario

from workers.protocol import Evidence, Outcome, Phase, Role, Status, Verdict

TOKEN = 10**18
MIN_STAKE = {Role.SAMPLER: 100 * TOKEN, Role.TRAINER: 500 * TOKEN, Role.VALIDATOR: 200 * TOKEN}
SHARES_BPS = {Role.TRAINER: 7000, Role.SAMPLER: 2000, Role.VALIDATOR: 1000}
START_SCORE = 70

ADMIN = "0x" + "ad" * 20
TREASURY = "0x" + "7e" * 20
REQUESTER = "0x" + "a0" * 20
SAMPLERS = ["0x" + "b0" * 20, "0x" + "b1" * 20]
TRAINER = "0x" + "c0" * 20
VALIDATORS = ["0x" + "d0" * 20, "0x" + "d1" * 20, "0x" + "d2" * 20]
DELTA = {Outcome.ACCEPTED: 2, Outcome.REJECTED: -20, Outcome.MISSED: -10, Outcome.AGAINST_QUORUM: -15,
         Outcome.WITHHELD: -20}


def word(n: int) -> bytes:
    return n.to_bytes(32, "big")


def role_id(name: str) -> bytes:
    """An AccessControl role's bytes32 id, e.g. keccak256("GOVERNOR_ROLE")."""
    return keccak(text=name)


ADMIN_ROLE = word(0)
# The role each contract's constructor (or the deploy's wiring, for the vault's escrow) grants
# besides DEFAULT_ADMIN_ROLE, and to whom.
ROLE_OF = {
    "ProtocolConfig": ("GOVERNOR_ROLE", ADMIN),
    "TaskRegistry": ("GUARDIAN_ROLE", ADMIN),
    "StakeManager": ("GOVERNOR_ROLE", ADMIN),
    "Reputation": ("GOVERNOR_ROLE", ADMIN),
    "RewardVault": ("ESCROW_ROLE", None),  # the TaskRegistry
}


class Story(Scenario):
    """One task with two samplers, a trainer and three validators, step by step."""

    def __init__(self, bounty: int = 1000 * TOKEN, rounds: int = 1, held_pay: bool = False):
        super().__init__()
        self.bounty = bounty
        self.rounds = rounds
        self.held_pay = held_pay  # a dispute manager is set: pay is held, not credited
        self.task_id = 1
        self.round = 0
        self.score = {}
        self.paid = {Role.SAMPLER: 0, Role.TRAINER: 0, Role.VALIDATOR: 0}
        self.escrow = 0
        self.deadline = 10_000

    # ------------------------------------------------------------ helpers

    def reputation(self, node: str, outcome: Outcome) -> None:
        old = self.score.get(node, START_SCORE)
        new = old if outcome == Outcome.RECOVERED else max(0, min(100, old + DELTA[outcome]))
        self.score[node] = new
        self.emit("Reputation", "ReputationChanged", node=node, oldScore=old, newScore=new, outcome=outcome)

    def phase(self, phase: Phase) -> None:
        self.deadline += 600
        self.emit("TaskRegistry", "PhaseStarted", taskId=self.task_id, round=self.round, phase=phase,
                  deadline=self.deadline)

    def pool_share(self, role: Role) -> int:
        slots = {Role.SAMPLER: len(SAMPLERS), Role.TRAINER: 1, Role.VALIDATOR: len(VALIDATORS)}[role]
        return self.bounty * SHARES_BPS[role] // 10_000 // self.rounds // slots

    # ------------------------------------------------------------ steps

    def stake_everyone(self) -> None:
        for nodes, role in ((SAMPLERS, Role.SAMPLER), ([TRAINER], Role.TRAINER), (VALIDATORS, Role.VALIDATOR)):
            for node in nodes:
                amount = 5 * MIN_STAKE[role]
                with self.tx(node):
                    self.emit("RLToken", "Transfer", **{"from": node, "to": self.addresses["StakeManager"],
                                                        "value": amount})
                    self.emit("StakeManager", "Staked", node=node, role=role, amount=amount, totalStaked=amount)

    def create_task(self) -> None:
        with self.tx(REQUESTER):
            self.emit("RLToken", "Transfer", **{"from": REQUESTER, "to": self.addresses["RewardVault"],
                                                "value": self.bounty})
            self.emit("RewardVault", "Deposited", taskId=self.task_id, amount=self.bounty)
            self.emit("TaskRegistry", "TaskCreated", taskId=self.task_id, requester=REQUESTER, specCid="bafyspec",
                      specDigest=word(0x11), bounty=self.bounty, numSamplers=len(SAMPLERS),
                      numValidators=len(VALIDATORS), numRounds=self.rounds)
            self.emit("TaskRegistry", "TaskStatusChanged", taskId=self.task_id, status=Status.OPEN)
        self.escrow = self.bounty

    def assign(self, node: str, role: Role, slot: int, since: int = 0) -> None:
        self.emit("StakeManager", "StakeLocked", node=node, role=role, amount=MIN_STAKE[role])
        self.emit("TaskRegistry", "SlotAssigned", taskId=self.task_id, node=node, role=role, slot=slot,
                  sinceRound=since)

    def fill(self, first_draws: bool = False) -> None:
        """Claims (each worker committing its round-0 draw if `first_draws`), the validator draw,
        activation: round 0 starts."""
        for i, s in enumerate(SAMPLERS):
            with self.tx(s):
                self.assign(s, Role.SAMPLER, i)
                if first_draws:
                    self.emit("TaskRegistry", "DrawCommitted", taskId=self.task_id, round=0, node=s,
                              commitment=word(0x700 + i))
        with self.tx(TRAINER):
            self.assign(TRAINER, Role.TRAINER, 0)
            if first_draws:
                self.emit("TaskRegistry", "DrawCommitted", taskId=self.task_id, round=0, node=TRAINER,
                          commitment=word(0x7FF))
            self.emit("TaskRegistry", "TaskStatusChanged", taskId=self.task_id, status=Status.DRAWING)
            self.emit("TaskRegistry", "DrawArmed", taskId=self.task_id, seedBlock=self.block + 1)
        with self.tx(TRAINER):
            for i, v in enumerate(VALIDATORS):
                self.assign(v, Role.VALIDATOR, i)
            self.emit("TaskRegistry", "TaskStatusChanged", taskId=self.task_id, status=Status.ACTIVE)
            self.phase(Phase.SAMPLE_COMMIT)

    def commit_and_reveal(self) -> None:
        r = self.round
        for i, s in enumerate(SAMPLERS):
            with self.tx(s):
                self.emit("TaskRegistry", "ResultCommitted", taskId=self.task_id, round=r, node=s, role=Role.SAMPLER,
                          slot=i, commitment=word(0x100 + i))
                if i == len(SAMPLERS) - 1:
                    self.phase(Phase.SAMPLE_REVEAL)
        for i, s in enumerate(SAMPLERS):
            with self.tx(s):
                self.emit("TaskRegistry", "ResultRevealed", taskId=self.task_id, round=r, node=s, role=Role.SAMPLER,
                          slot=i, root=word(0x200 + i), cid=f"bafysample{r}{i}")
                if i == len(SAMPLERS) - 1:
                    self.phase(Phase.TRAIN_COMMIT)
        with self.tx(TRAINER):
            self.emit("TaskRegistry", "ResultCommitted", taskId=self.task_id, round=r, node=TRAINER,
                      role=Role.TRAINER, slot=0, commitment=word(0x300))
            self.phase(Phase.TRAIN_REVEAL)
        with self.tx(TRAINER):
            self.emit("TaskRegistry", "ResultRevealed", taskId=self.task_id, round=r, node=TRAINER, role=Role.TRAINER,
                      slot=0, root=word(0x400 + r), cid=f"bafyckpt{r}")
            self.phase(Phase.ATTEST)

    def pay(self, node: str, role: Role) -> int:
        amount = self.pool_share(role)
        if self.held_pay:
            self.emit("RewardVault", "Held", taskId=self.task_id, round=self.round, account=node, amount=amount)
        else:
            self.emit("RewardVault", "Credited", taskId=self.task_id, account=node, amount=amount)
            self.escrow -= amount
        self.emit("TaskRegistry", "RewardEarned", taskId=self.task_id, round=self.round, node=node, role=role,
                  amount=amount)
        self.paid[role] += amount
        return amount

    def attest_all_accept(self, aggregate: bool = True) -> dict:
        """Every validator seals its vote (the last commit opens AttestReveal); V0 opens alone, V1
        and V2 in one BLS aggregate (sent by an outsider); everything is accepted, so the last vote
        finalizes the round in the same transaction."""
        r, accept = self.round, (1 << (len(SAMPLERS) + 1)) - 1
        for v, node in enumerate(VALIDATORS):
            with self.tx(node):
                self.emit("TaskRegistry", "AttestationCommitted", taskId=self.task_id, round=r, validator=node,
                          slot=v, commitment=word(0x500 + v))
                if v == len(VALIDATORS) - 1:
                    self.phase(Phase.ATTEST_REVEAL)
        with self.tx(VALIDATORS[0]):
            self.emit("TaskRegistry", "Attested", taskId=self.task_id, round=r, validator=VALIDATORS[0], slot=0,
                      acceptBitmap=accept)
        with self.tx("0x" + "0f" * 20) as tx:
            if aggregate:
                self.emit("TaskRegistry", "AggregateAttested", taskId=self.task_id, round=r, signerBitmap=0b110,
                          acceptBitmap=accept)
            else:
                for v in (1, 2):
                    self.emit("TaskRegistry", "Attested", taskId=self.task_id, round=r, validator=VALIDATORS[v],
                              slot=v, acceptBitmap=accept)
            self.finalize(accepted=[*SAMPLERS, TRAINER])
        return tx

    def finalize(self, accepted: list, unpaid: tuple = ()) -> None:
        """Verdicts, pay and the next round; validators in `unpaid` (an outvoted acceptance, a missed
        plant) earn nothing and keep their reputation."""
        r = self.round
        workers = [(s, Role.SAMPLER, i) for i, s in enumerate(SAMPLERS)] + [(TRAINER, Role.TRAINER, 0)]
        for node, role, slot in workers:
            ok = node in accepted
            self.emit("TaskRegistry", "VerdictReached", taskId=self.task_id, round=r, node=node, role=role, slot=slot,
                      verdict=Verdict.ACCEPTED if ok else Verdict.REJECTED, accepts=3 if ok else 0,
                      rejects=0 if ok else 3)
            self.reputation(node, Outcome.ACCEPTED if ok else Outcome.REJECTED)
        for node, role, _ in workers:
            if node in accepted:
                self.pay(node, role)
        for v in VALIDATORS:
            if v in unpaid:
                continue
            self.reputation(v, Outcome.ACCEPTED)
            self.pay(v, Role.VALIDATOR)
        self.emit("TaskRegistry", "RoundFinalized", taskId=self.task_id, round=r, checkpointRoot=word(0x400 + r),
                  checkpointCid=f"bafyckpt{r}")
        if r + 1 == self.rounds:
            self.settle(Status.COMPLETED)
        else:
            self.round += 1
            self.phase(Phase.SAMPLE_COMMIT)

    def settle(self, status: Status) -> None:
        self.emit("TaskRegistry", "TaskStatusChanged", taskId=self.task_id, status=status)
        for nodes, role in ((SAMPLERS, Role.SAMPLER), ([TRAINER], Role.TRAINER), (VALIDATORS, Role.VALIDATOR)):
            for node in nodes:
                self.emit("StakeManager", "StakeUnlocked", node=node, role=role, amount=MIN_STAKE[role])
        held = sum(self.paid.values()) if self.held_pay else 0
        refund = self.escrow - held
        self.emit("RewardVault", "Refunded", taskId=self.task_id, account=REQUESTER, amount=refund)
        self.escrow -= refund
        self.emit("TaskRegistry", "TaskSettled", taskId=self.task_id, status=status,
                  paidByRole=[self.paid[Role.SAMPLER], self.paid[Role.TRAINER], self.paid[Role.VALIDATOR]],
                  refund=refund)


# ---------------------------------------------------------------- whole stories

DISPUTER = "0x" + "e0" * 20
JURORS = ["0x" + "f0" * 20, "0x" + "f1" * 20, "0x" + "f2" * 20]
DISPUTE_MANAGER_SLASH = 10 * TOKEN  # slashBps (10%) of minStake(Sampler)
BOND = 100 * TOKEN


def lifecycle_story() -> Story:
    """One round, every submission accepted, pay credited; a sampler withdraws."""
    s = Story(bounty=1000 * TOKEN)
    s.stake_everyone()
    s.create_task()
    s.fill()
    s.commit_and_reveal()
    s.attest_all_accept()
    with s.tx(SAMPLERS[0]):
        s.emit("RewardVault", "Withdrawn", account=SAMPLERS[0], to=SAMPLERS[0], amount=s.pool_share(Role.SAMPLER))
    return s


def dispute_story() -> Story:
    """Pay held (dispute manager set); round 0 accepted; sampler 0's accepted shard is disputed, the
    jurors uphold it 2 to 1 (SPECIFICATION.md 13): the task fails, sampler 0 and every validator
    that accepted it are penalised and their held pay reclaimed; sampler 1's pay is released."""
    s = Story(bounty=1000 * TOKEN, rounds=2, held_pay=True)
    s.stake_everyone()
    s.create_task()
    s.fill()
    s.commit_and_reveal()
    s.attest_all_accept()
    dm = s.addresses["DisputeManager"]
    with s.tx(DISPUTER):
        s.emit("RLToken", "Transfer", **{"from": DISPUTER, "to": dm, "value": BOND})
        s.emit("DisputeManager", "DisputeOpened", disputeId=1, taskId=1, disputer=DISPUTER, round=0, role=Role.SAMPLER,
               slot=0, verdict=Verdict.ACCEPTED, bond=BOND)
        s.emit("DisputeManager", "EvidenceStated", disputeId=1, evidence=Evidence.EPISODE, item=2)
        s.emit("DisputeManager", "JurorDrawArmed", disputeId=1, seedBlock=s.block + 1)
    with s.tx(DISPUTER):
        for seat, juror in enumerate(JURORS):
            s.emit("StakeManager", "StakeLocked", node=juror, role=Role.VALIDATOR, amount=MIN_STAKE[Role.VALIDATOR])
            s.emit("DisputeManager", "JurorDrawn", disputeId=1, juror=juror, seat=seat,
                   lockedStake=MIN_STAKE[Role.VALIDATOR])
        s.emit("DisputeManager", "VotingStarted", disputeId=1, jurors=3, deadline=99_999)
    for commits, juror in enumerate(JURORS, 1):  # hidden votes first, then every one opened
        with s.tx(juror):
            s.emit("DisputeManager", "JurorCommitted", disputeId=1, juror=juror, commits=commits)
    for juror, uphold in zip(JURORS, (True, True, False)):
        with s.tx(juror):
            s.emit("DisputeManager", "JurorVoted", disputeId=1, juror=juror, uphold=uphold)
    with s.tx(DISPUTER):
        s.emit("DisputeManager", "Owed", disputeId=1, account=DISPUTER, amount=BOND)
        s.settle(Status.FAILED)  # failTask: the task was still Active
        pot = 0
        for node, role, outcome in [(SAMPLERS[0], Role.SAMPLER, Outcome.REJECTED),
                                    *((v, Role.VALIDATOR, Outcome.AGAINST_QUORUM) for v in VALIDATORS)]:
            held = s.pool_share(role)
            s.emit("RewardVault", "Reclaimed", taskId=1, round=0, account=node, to=REQUESTER, amount=held)
            s.emit("TaskRegistry", "PayReclaimed", taskId=1, round=0, node=node, role=role, amount=held)
            slashed = MIN_STAKE[role] // 10
            s.emit("StakeManager", "Slashed", node=node, role=role, amount=slashed, recipient=dm)
            s.reputation(node, outcome)
            s.emit("DisputeManager", "PartyPenalised", disputeId=1, node=node, role=role, slashed=slashed,
                   payReclaimed=held)
            pot += slashed
        for juror, with_majority in zip(JURORS, (True, True, False)):
            s.emit("StakeManager", "StakeUnlocked", node=juror, role=Role.VALIDATOR, amount=MIN_STAKE[Role.VALIDATOR])
            taken = 0
            if not with_majority:
                taken = MIN_STAKE[Role.VALIDATOR] // 10
                s.emit("StakeManager", "Slashed", node=juror, role=Role.VALIDATOR, amount=taken, recipient=dm)
                pot += taken
            s.reputation(juror, Outcome.ACCEPTED if with_majority else Outcome.AGAINST_QUORUM)
            s.emit("DisputeManager", "JurorReleased", disputeId=1, juror=juror, voted=True, withMajority=with_majority,
                   slashed=taken)
        each = pot * 5000 // 10_000 // 2
        for juror in JURORS[:2]:
            s.emit("DisputeManager", "Owed", disputeId=1, account=juror, amount=each)
        s.emit("DisputeManager", "Owed", disputeId=1, account=DISPUTER, amount=pot - 2 * each)
        s.emit("DisputeManager", "DisputeSettled", disputeId=1, taskId=1, outcome=3, upholdVotes=2, dismissVotes=1)
    s.pot, s.each = pot, each
    with s.tx(DISPUTER):
        s.emit("DisputeManager", "Withdrawn", account=DISPUTER, to=DISPUTER, amount=BOND + pot - 2 * each)
    with s.tx(SAMPLERS[1]):  # DisputeManager.releasePay once the window has passed
        s.emit("RewardVault", "Released", taskId=1, round=0, account=SAMPLERS[1], amount=s.pool_share(Role.SAMPLER))
    return s


def dissent_story() -> Story:
    """Pay held; in round 0 V2 rejects sampler 0, which V0 and V1 accept: V2 dissents (SPECIFICATION.md
    5.5: neither slashed nor vacated, its round pay held like the others')."""
    s = Story(bounty=1000 * TOKEN, rounds=1, held_pay=True)
    s.stake_everyone()
    s.create_task()
    s.fill()
    s.commit_and_reveal()
    r, accept = s.round, (1 << (len(SAMPLERS) + 1)) - 1
    for v in (0, 1):
        with s.tx(VALIDATORS[v]):
            s.emit("TaskRegistry", "Attested", taskId=s.task_id, round=r, validator=VALIDATORS[v], slot=v,
                   acceptBitmap=accept)
    with s.tx(VALIDATORS[2]):
        s.emit("TaskRegistry", "Attested", taskId=s.task_id, round=r, validator=VALIDATORS[2], slot=2,
               acceptBitmap=accept & ~1)
        s.emit("TaskRegistry", "Dissented", taskId=s.task_id, round=r, validator=VALIDATORS[2], slot=2, dissentBitmap=1)
        s.finalize(accepted=[*SAMPLERS, TRAINER])
    return s


def forced_story() -> Story:
    """Forced errors (SPECIFICATION.md 5.5.3): the workers commit their round-0 draws as they claim
    (commitDraw; the story leaves round 0's openings out); in round 1 the workers open their
    draws (sampler 0 forced), V1 and V2 answer "plant" on sampler 0 (bit 64) in one aggregate and V0
    accepts everything: it missed the plant and earns nothing that round; sampler 0 is accepted."""
    s = Story(bounty=1000 * TOKEN, rounds=2)
    s.stake_everyone()
    s.create_task()
    s.fill(first_draws=True)
    s.commit_and_reveal()
    s.attest_all_accept()
    s.commit_and_reveal()
    r, accept = s.round, (1 << (len(SAMPLERS) + 1)) - 1
    for v, node in enumerate(VALIDATORS):
        with s.tx(node):
            s.emit("TaskRegistry", "AttestationCommitted", taskId=s.task_id, round=r, validator=node, slot=v,
                   commitment=word(0x600 + v))
            if v == len(VALIDATORS) - 1:
                s.phase(Phase.ATTEST_REVEAL)
    workers = [(n, Role.SAMPLER, i) for i, n in enumerate(SAMPLERS)] + [(TRAINER, Role.TRAINER, 0)]
    for i, (node, role, slot) in enumerate(workers):
        with s.tx(node):
            s.emit("TaskRegistry", "DrawOpened", taskId=s.task_id, round=r, node=node, role=role, slot=slot,
                   forced=i == 0)
    with s.tx(VALIDATORS[0]):
        s.emit("TaskRegistry", "Attested", taskId=s.task_id, round=r, validator=VALIDATORS[0], slot=0,
               acceptBitmap=accept)
    with s.tx("0x" + "0f" * 20):
        s.emit("TaskRegistry", "AggregateAttested", taskId=s.task_id, round=r, signerBitmap=0b110,
               acceptBitmap=(accept & ~1) | (1 << 64))
        s.emit("TaskRegistry", "PlantMissed", taskId=s.task_id, round=r, node=VALIDATORS[0], validatorSlot=0,
               bitsMissed=1)
        s.finalize(accepted=[*SAMPLERS, TRAINER], unpaid=(VALIDATORS[0],))
    return s


def stake_story() -> Story:
    """One sampler's stake through every StakeManager event, with a slash that empties the active
    stake and bites into the unbonding one (StakeManager.slash)."""
    s = Story()
    node = SAMPLERS[0]
    with s.tx(node):
        s.emit("StakeManager", "Staked", node=node, role=Role.SAMPLER, amount=500 * TOKEN, totalStaked=500 * TOKEN)
    s.emit("StakeManager", "StakeLocked", node=node, role=Role.SAMPLER, amount=100 * TOKEN)
    s.emit("StakeManager", "UnstakeRequested", node=node, role=Role.SAMPLER, amount=300 * TOKEN, readyAt=5_000)
    s.emit("StakeManager", "Slashed", node=node, role=Role.SAMPLER, amount=250 * TOKEN, recipient=TREASURY)
    s.emit("StakeManager", "UnbondedWithdrawn", node=node, role=Role.SAMPLER, amount=250 * TOKEN)
    s.emit("StakeManager", "NodePauseSet", node=node, paused=True)
    pubkey = [2**256 - 1, 1, 2, 3]
    s.emit("StakeManager", "BlsKeyRegistered", node=VALIDATORS[0], keyHash=word(0xb15), pubkey=pubkey)
    s.pubkey = pubkey
    return s


def governance_story() -> Story:
    """Every parameter setter (ProtocolConfig's, the StakeManager's, the Reputation's, the
    registry's wiring), the AccessControl and pause events, the token's approval, the EIP-712
    domain events, a missed commit, a withheld reveal, a proven fault and a keyring."""
    s = Story()
    governor = role_id("GOVERNOR_ROLE")
    for source, (role, holder) in ROLE_OF.items():  # the constructors' grants and the deploy's wiring
        s.emit(source, "RoleGranted", role=ADMIN_ROLE, account=ADMIN, sender=ADMIN)
        s.emit(source, "RoleGranted", role=role_id(role), account=holder or s.addresses["TaskRegistry"],
               sender=ADMIN)
    s.emit("StakeManager", "RoleAdminChanged", role=governor, previousAdminRole=ADMIN_ROLE, newAdminRole=governor)
    s.emit("Reputation", "RoleRevoked", role=governor, account=ADMIN, sender=ADMIN)
    s.emit("ProtocolConfig", "RoleSharesSet", trainerBps=7000, samplerBps=2000, validatorBps=1000)
    s.emit("ProtocolConfig", "SlashBpsSet", bps=1000)
    s.emit("ProtocolConfig", "TreasurySet", treasury=TREASURY)
    s.emit("TaskRegistry", "TaskFrontSet", taskFront=s.addresses["TaskFront"])
    s.emit("TaskRegistry", "DisputeManagerSet", disputeManager=s.addresses["DisputeManager"])
    s.emit("TaskRegistry", "Paused", account=ADMIN)
    s.emit("TaskRegistry", "Unpaused", account=ADMIN)
    s.emit("TaskFront", "EIP712DomainChanged")
    s.emit("RLToken", "EIP712DomainChanged")
    for role, amount in MIN_STAKE.items():
        s.emit("StakeManager", "MinStakeSet", role=role, amount=amount)
    s.emit("StakeManager", "UnbondingPeriodSet", period=7 * 86400)
    s.emit("Reputation", "ThresholdSet", threshold=60)
    for outcome, delta in DELTA.items():
        s.emit("Reputation", "DeltaSet", outcome=outcome, delta=abs(delta))
    s.emit("Reputation", "RecoveryCooldownSet", cooldown=7 * 86400)
    s.emit("ProtocolConfig", "DisputeWindowSet", window=86400)
    s.emit("ProtocolConfig", "VoteWindowSet", window=86400)
    s.emit("ProtocolConfig", "MinBondSet", bond=BOND)
    s.emit("ProtocolConfig", "ForcedErrorBpsSet", bps=5000)
    s.emit("ProtocolConfig", "MinBountyPerSlotRoundSet", perSlotRound=TOKEN // 100)
    s.emit("RLToken", "Transfer", **{"from": "0x" + "00" * 20, "to": ADMIN, "value": 10**9 * TOKEN})
    s.emit("RLToken", "Approval", owner=REQUESTER, spender=s.addresses["TaskRegistry"], value=5 * TOKEN)
    s.emit("RLToken", "Approval", owner=REQUESTER, spender=s.addresses["TaskRegistry"], value=7 * TOKEN)
    # A task whose sampler 1 misses the commit and whose trainer withholds its reveal.
    s.stake_everyone()
    s.create_task()
    s.fill()
    with s.tx(REQUESTER):
        s.emit("KeyringBoard", "KeyringPosted", taskId=1, requester=REQUESTER, cid="bafykeyring")
    with s.tx(SAMPLERS[0]):
        s.emit("TaskRegistry", "ResultCommitted", taskId=1, round=0, node=SAMPLERS[0], role=Role.SAMPLER, slot=0,
               commitment=word(0x100))
    with s.tx(ADMIN):  # advance(): sampler 1 missed SampleCommit
        s.emit("StakeManager", "StakeUnlocked", node=SAMPLERS[1], role=Role.SAMPLER, amount=MIN_STAKE[Role.SAMPLER])
        s.reputation(SAMPLERS[1], Outcome.MISSED)
        s.emit("TaskRegistry", "SlotVacated", taskId=1, node=SAMPLERS[1], role=Role.SAMPLER, slot=1,
               reason=Outcome.MISSED)
        s.phase(Phase.SAMPLE_REVEAL)
    with s.tx(SAMPLERS[0]):
        s.emit("TaskRegistry", "ResultRevealed", taskId=1, round=0, node=SAMPLERS[0], role=Role.SAMPLER, slot=0,
               root=word(0x200), cid="bafysample00")
        s.phase(Phase.TRAIN_COMMIT)
    with s.tx(TRAINER):
        s.emit("TaskRegistry", "ResultCommitted", taskId=1, round=0, node=TRAINER, role=Role.TRAINER, slot=0,
               commitment=word(0x300))
        s.phase(Phase.TRAIN_REVEAL)
    with s.tx(ADMIN):  # advance(): the trainer committed and did not reveal
        s.emit("StakeManager", "StakeUnlocked", node=TRAINER, role=Role.TRAINER, amount=MIN_STAKE[Role.TRAINER])
        s.emit("StakeManager", "Slashed", node=TRAINER, role=Role.TRAINER, amount=50 * TOKEN, recipient=TREASURY)
        s.reputation(TRAINER, Outcome.WITHHELD)
        s.emit("TaskRegistry", "SlotVacated", taskId=1, node=TRAINER, role=Role.TRAINER, slot=0,
               reason=Outcome.WITHHELD)
        s.phase(Phase.ATTEST)
    with s.tx(DISPUTER):  # a sampler dispute settled by proof
        s.emit("DisputeManager", "DisputeOpened", disputeId=1, taskId=1, disputer=DISPUTER, round=0,
               role=Role.SAMPLER, slot=0, verdict=Verdict.ACCEPTED, bond=BOND)
        s.emit("DisputeManager", "FaultProven", disputeId=1, prover=DISPUTER, fault=4)
        s.emit("DisputeManager", "DisputeSettled", disputeId=1, taskId=1, outcome=3, upholdVotes=0, dismissVotes=0)
    return s


COUNCIL = "0x" + "c5" * 20


def roles_story() -> Story:
    """Every contract with roles hands its second role to a council, as a governance migration
    would: the admin grants it to the council, the role becomes its own admin, and the council
    revokes the first holder's."""
    s = Story()
    for source, (role, holder) in ROLE_OF.items():
        rid, holder = role_id(role), holder or s.addresses["TaskRegistry"]
        s.emit(source, "RoleGranted", role=rid, account=holder, sender=ADMIN)
        s.emit(source, "RoleGranted", role=rid, account=COUNCIL, sender=ADMIN)
        s.emit(source, "RoleAdminChanged", role=rid, previousAdminRole=ADMIN_ROLE, newAdminRole=rid)
        s.emit(source, "RoleRevoked", role=rid, account=holder, sender=COUNCIL)
    return s


STORIES = {"lifecycle": lifecycle_story, "dispute": dispute_story, "dissent": dissent_story,
           "stake": stake_story, "governance": governance_story, "roles": roles_story, "forced": forced_story}
