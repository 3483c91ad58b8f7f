"""Scripted protocol actors: a requester, samplers, a trainer and validators that play tasks on a
deployment exactly as real nodes would, with synthetic work instead of real rollouts and training.

Used by scripts/demo.py (narrated walk-through), bench/gas.py (gas of every step) and
tests/scripts/ (one full task on the test fixtures). Everything here is plain functions and small
classes over brownie contract objects; nothing is printed unless a `Narrator` is given.

Synthetic work:
* a sampler's rollout for (task, round) is a list of episode byte strings; it commits to the
  keccak Merkle root (workers/merkle.py) of the batch and "uploads" the batch to a `ContentStore`
  (a stand-in for IPFS) under a content id;
* the trainer's checkpoint is a few shards derived from the round's revealed sampler roots;
* a validator fetches each revealed batch by its id, recomputes its root and accepts the
  submissions whose roots match (and a checkpoint that is built on this round's sampler roots).

Forced errors (SPECIFICATION.md 5.5.3): a worker's reveal salt is its draw commitment for the next
round, and it opens that draw (openDraw) in the next round's AttestReveal. The synthetic work has
no plant to carry: a forced scripted worker publishes the same work, its validators accept it and
nobody answers "plant", so nobody is penalised for it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from brownie import chain, web3
from eth_utils import keccak

from scripts import brownie_patches
from workers.merkle import MerkleTree
from workers.protocol import (
    NO_PERMIT,
    Outcome,
    Phase,
    Role,
    Status,
    TaskParams,
    Verdict,
    attest_commitment,
    commitment,
    draw_commitment,
    sign_create_task,
)
from workers.protocol import sign_permit as protocol_sign_permit
from workers.storage import cid

brownie_patches.install()

TOKEN = 10**18
ROLE_LABEL = {Role.SAMPLER: "sampler", Role.TRAINER: "trainer", Role.VALIDATOR: "validator"}


# ---------------------------------------------------------------- content (in memory, real CIDs)


def content_id(blob: bytes) -> str:
    """The CID an IPFS node (kubo defaults, CIDv1 raw leaves) gives `blob`."""
    return cid.compute(blob)


class ContentStore:
    """Batches of items by CID, in memory: what the scripted nodes upload and validators fetch.
    (The off-chain network uses workers.storage instead.)"""

    def __init__(self):
        self._batches: dict[str, list[bytes]] = {}

    def put(self, items: list[bytes]) -> str:
        cid = content_id(b"".join(len(i).to_bytes(4, "big") + i for i in items))
        self._batches[cid] = list(items)
        return cid

    def get(self, cid: str) -> list[bytes] | None:
        return self._batches.get(cid)


def synthetic_episodes(task_id: int, round_: int, node: str, count: int, nonce: int = 0) -> list[bytes]:
    """`count` deterministic episode records (stand-ins for serialized rollouts)."""
    head = f"task={task_id} round={round_} sampler={node} nonce={nonce}".encode()
    return [head + b" ep=" + str(i).encode() + b" " + keccak(head + i.to_bytes(4, "big")) for i in range(count)]


def checkpoint_shards(task_id: int, round_: int, sampler_roots: list[bytes]) -> list[bytes]:
    """The trainer's synthetic checkpoint: a header naming the rollouts it trained on, plus shards."""
    header = b"checkpoint task=%d round=%d on=" % (task_id, round_) + b"".join(sampler_roots)
    return [header] + [keccak(header + bytes([i])) * 4 for i in range(4)]


def has_zero_byte(value: bytes) -> bool:
    return 0 in bytes(value)


# ---------------------------------------------------------------- the deployment and its narration


class Narrator:
    """Prints one line per protocol event: round, phase, who, what."""

    HIDDEN = {"Transfer", "Approval", "Credited", "StakeLocked", "StakeUnlocked", "Deposited"}

    def __init__(self, names: dict[str, str], printer: Callable[[str], None] = print):
        self.names = {k.lower(): v for k, v in names.items()}
        self.print = printer

    def name(self, address) -> str:
        return self.names.get(str(address).lower(), str(address)[:10])

    def line(self, when: str, phase: str, who: str, what: str) -> None:
        self.print(f"{when:<6}{phase:<14}{who:<12}{what}")

    def show(self, tx, sender: str, when: str, phase: str) -> None:
        for ev in tx.events:
            if ev.name in self.HIDDEN:
                continue
            who, what = self.describe(ev.name, dict(ev), tx)
            self.line(when, phase, who or sender, what)

    def describe(self, name: str, e: dict, tx) -> tuple[str | None, str]:
        n = self.name
        drl = fmt_drl
        subject = next((e[k] for k in ("node", "validator", "account", "requester") if k in e), None)
        who = n(subject) if subject is not None else None
        if name == "TaskCreated":
            return who, (f"TaskCreated #{e['taskId']}: bounty {drl(e['bounty'])}, {e['numSamplers']} samplers, "
                         f"{e['numValidators']} validators, {e['numRounds']} rounds")
        if name == "TaskStatusChanged":
            return None, f"task #{e['taskId']} status -> {Status(e['status']).name}"
        if name == "SlotAssigned":
            return who, f"assigned {ROLE_LABEL[Role(e['role'])]} slot {e['slot']} (works from R{e['sinceRound'] + 1})"
        if name == "SlotVacated":
            return who, f"REMOVED from {ROLE_LABEL[Role(e['role'])]} slot {e['slot']}: {Outcome(e['reason']).name}"
        if name == "DrawArmed":
            return None, f"validator draw armed on block {e['seedBlock']}"
        if name == "PhaseStarted":
            return None, (f"-> R{e['round'] + 1} {Phase(e['phase']).name} "
                          f"(deadline in {e['deadline'] - tx.timestamp}s)")
        if name == "ResultCommitted":
            return who, f"committed {short(e['commitment'])}"
        if name == "ResultRevealed":
            return who, f"revealed root {short(e['root'])} cid {e['cid'][:20]}..."
        if name == "Attested":
            return who, f"attested, accepts bitmap {e['acceptBitmap']:#b}"
        if name == "VerdictReached":
            return who, (f"verdict on {ROLE_LABEL[Role(e['role'])]} slot {e['slot']}: "
                         f"{Verdict(e['verdict']).name} ({e['accepts']} accept / {e['rejects']} reject)")
        if name == "RewardEarned":
            return who, f"earned {drl(e['amount'])} as {ROLE_LABEL[Role(e['role'])]}"
        if name == "RoundFinalized":
            return None, f"R{e['round'] + 1} finalized, checkpoint {short(e['checkpointRoot'])}"
        if name == "TaskSettled":
            paid = " / ".join(drl(x) for x in e["paidByRole"])
            return None, f"task settled {Status(e['status']).name}: paid S/T/V {paid}, refund {drl(e['refund'])}"
        if name == "Slashed":
            return who, f"SLASHED {drl(e['amount'])} of {ROLE_LABEL[Role(e['role'])]} stake -> {n(e['recipient'])}"
        if name == "ReputationChanged":
            return who, f"reputation {e['oldScore']} -> {e['newScore']} ({Outcome(e['outcome']).name})"
        if name == "Staked":
            return who, f"staked {drl(e['amount'])} as {ROLE_LABEL[Role(e['role'])]} (total {drl(e['totalStaked'])})"
        if name == "Withdrawn":
            return who, f"withdrew {drl(e['amount'])}"
        if name == "Refunded":
            return who, f"refund of {drl(e['amount'])} made claimable"
        if name == "Held":
            return who, f"{drl(e['amount'])} of R{e['round'] + 1} pay held for the round's dispute window"
        if name == "Reclaimed":
            return who, f"{drl(e['amount'])} of R{e['round'] + 1} pay reclaimed to {n(e['to'])} (not released)"
        if name == "PayReclaimed":
            return who, f"its R{e['round'] + 1} pay reclaimed ({drl(e['amount'])})"
        if name == "Dissented":
            return who, (f"dissented from the quorum (bitmap {bin(e['dissentBitmap'])}): unpaid unless a dispute "
                         "vindicates it")
        if name == "Released":
            return who, f"{drl(e['amount'])} of R{e['round'] + 1} pay released (window over): claimable"
        return who, f"{name} {e}"


def fmt_drl(amount: int) -> str:
    return f"{amount / TOKEN:,.4f} DRL"


def short(value) -> str:
    h = bytes(value).hex()
    return f"0x{h[:8]}..{h[-4:]}"


@dataclass
class Protocol:
    """The deployed contracts plus what every actor shares: the content store, a narrator and the
    record of every transaction sent (label, tx) for gas accounting."""

    dep: object  # scripts.deploy.Deployment
    store: ContentStore = field(default_factory=ContentStore)
    narrator: Narrator | None = None
    txs: list = field(default_factory=list)

    @property
    def registry(self):
        return self.dep.registry

    @property
    def state(self):
        """StateView: the task records the registry itself does not serve."""
        return self.dep.state

    def task(self, task_id: int) -> dict:
        return self.state.taskOf(task_id).dict()

    def send(self, label: str, sender, method, *args, task_id: int | None = None, phase: str = "setup"):
        """Sends `method(*args)` from `sender`, narrates its events, records (label, tx)."""
        when = "-"
        if task_id is not None:
            t = self.task(task_id)
            if t["status"] == Status.ACTIVE:
                when, phase = f"R{t['round'] + 1}", Phase(t["phase"]).name
            else:
                phase = Status(t["status"]).name
        tx = transact(sender, method, *args)
        self.txs.append((label, tx))
        if self.narrator:
            self.narrator.show(tx, self.narrator.name(sender), when, phase)
        return tx

    def gas(self, since: int = 0) -> int:
        return sum(tx.gas_used for _, tx in self.txs[since:])


def transact(sender, method, *args):
    """Sends `method(*args)` from `sender` without brownie's console output; returns the receipt."""
    return method.transact(*args, {"from": sender}, silent=True)


# ---------------------------------------------------------------- actors


class Node:
    """A staked node with one role."""

    role: Role

    def __init__(self, name: str, account, proto: Protocol):
        self.name, self.account, self.proto = name, account, proto
        self.salts: dict[tuple[int, int], tuple[bytes, str, bytes]] = {}  # (task, round) -> root, cid, salt
        self.draw_secrets: dict[tuple[int, int], bytes] = {}  # (task, round) -> the secret its draw opens with
        self.stable_calldata = False  # see _salt()

    @property
    def address(self) -> str:
        return self.account.address

    def stake(self, amount: int):
        dep = self.proto.dep
        transact(self.account, dep.token.approve, dep.stakes, amount)
        return self.proto.send("stake", self.account, dep.stakes.stake, self.role, amount)

    def withdraw(self):
        vault = self.proto.dep.vault
        amount = vault.claimableOf(self.address)
        return self.proto.send("withdraw", self.account, vault.withdraw, self.address, amount, phase="payout")

    def slot(self, task_id: int, t: dict) -> int | None:
        """My slot when I am expected to work in the task's current round, else None."""
        m = self.proto.state.membershipOf(task_id, self.address)
        if not m[0] or m[1] != self.role:
            return None
        since = self.proto.state.slotOf(task_id, self.role, m[2])[1]
        return m[2] if since <= t["round"] else None

    def act(self, task_id: int):
        """Does whatever is my turn in the task now; returns the tx or None."""
        raise NotImplementedError

    # commit–reveal shared by samplers and the trainer
    def _salt(self, task_id: int, round_: int, root: bytes, cid: str) -> bytes:
        """A fresh draw secret for the next round, kept; the salt is its draw commitment."""
        # With stable_calldata (bench/gas.py) secrets are drawn until the commitment, the salt and the
        # secret have no zero byte: calldata costs 4 gas per zero byte and 16 per other byte, which
        # would otherwise add noise.
        while True:
            secret = secrets.token_bytes(32)
            salt = draw_commitment(task_id, round_ + 1, self.address, secret)
            c = commitment(task_id, round_, self.address, root, cid, salt)
            if not self.stable_calldata or not (has_zero_byte(c) or has_zero_byte(salt) or has_zero_byte(secret)):
                self.draw_secrets[(task_id, round_ + 1)] = secret
                return salt

    def _commit(self, task_id: int, t: dict, items: list[bytes], label: str):
        root = MerkleTree(items).root
        cid = self.proto.store.put(items)
        salt = self._salt(task_id, t["round"], root, cid)
        self.salts[(task_id, t["round"])] = (root, cid, salt)
        c = commitment(task_id, t["round"], self.address, root, cid, salt)
        return self.proto.send(f"commit {label}", self.account, self.proto.registry.commit, task_id, c,
                               task_id=task_id)

    def _reveal(self, task_id: int, t: dict, label: str):
        root, cid, salt = self.salts[(task_id, t["round"])]
        return self.proto.send(f"reveal {label}", self.account, self.proto.registry.reveal, task_id, root, cid,
                               salt, task_id=task_id)

    def _open_draw(self, task_id: int, t: dict, slot: int):
        """AttestReveal: opens my draw of the round when my submission has one still to open."""
        r = t["round"]
        bit = 1 << (t["numSamplers"] if self.role == Role.TRAINER else slot)
        pending = self.proto.state.drawnMask(task_id, r) & ~self.proto.state.openedDrawMask(task_id, r)
        secret = self.draw_secrets.get((task_id, r))
        if not pending & bit or secret is None:
            return None
        return self.proto.send("openDraw", self.account, self.proto.registry.openDraw, task_id, r, secret,
                               task_id=task_id)

    def _my_submission(self, task_id: int, t: dict, slot: int):
        s = self.proto.state.submissionOf(task_id, t["round"], self.role, slot).dict()
        return any(bytes(s["commitment"])), s["revealed"]


class ScriptedSampler(Node):
    """Rolls out `episodes` synthetic episodes per round. `miss_commit_rounds`: rounds (0-based) in
    which it never commits (the protocol removes it at the deadline). `standby`: takes a vacant
    sampler slot of an active task when one opens up."""

    role = Role.SAMPLER

    def __init__(self, name, account, proto, episodes: int = 8, miss_commit_rounds: Iterable[int] = (),
                 standby: bool = False):
        super().__init__(name, account, proto)
        self.episodes = episodes
        self.miss_commit_rounds = set(miss_commit_rounds)
        self.standby = standby

    def claim(self, task_id: int):
        return self.proto.send("claimSlot sampler", self.account, self.proto.registry.claimSlot, task_id,
                               Role.SAMPLER, task_id=task_id)

    def rollout(self, task_id: int, round_: int) -> list[bytes]:
        nonce = 0
        while True:
            items = synthetic_episodes(task_id, round_, self.address, self.episodes, nonce)
            if not self.stable_calldata or not has_zero_byte(MerkleTree(items).root):
                return items
            nonce += 1  # a different batch header; see Node._salt

    def act(self, task_id: int):
        t = self.proto.task(task_id)
        if t["status"] != Status.ACTIVE:
            return None
        if self.standby and t["filledSamplers"] < t["numSamplers"] and \
                not self.proto.state.membershipOf(task_id, self.address)[0]:
            return self.claim(task_id)
        slot = self.slot(task_id, t)
        if slot is None:
            return None
        committed, revealed = self._my_submission(task_id, t, slot)
        if t["phase"] == Phase.SAMPLE_COMMIT and not committed and t["round"] not in self.miss_commit_rounds:
            return self._commit(task_id, t, self.rollout(task_id, t["round"]), "sampler")
        if t["phase"] == Phase.SAMPLE_REVEAL and committed and not revealed:
            return self._reveal(task_id, t, "sampler")
        if t["phase"] == Phase.ATTEST_REVEAL and revealed:
            return self._open_draw(task_id, t, slot)
        return None


class ScriptedTrainer(Node):
    """Trains on the round's revealed rollouts; commits to the checkpoint's Merkle root."""

    role = Role.TRAINER

    def claim(self, task_id: int):
        return self.proto.send("claimSlot trainer", self.account, self.proto.registry.claimSlot, task_id,
                               Role.TRAINER, task_id=task_id)

    def act(self, task_id: int):
        t = self.proto.task(task_id)
        if t["status"] != Status.ACTIVE:
            return None
        slot = self.slot(task_id, t)
        if slot is None:
            return None
        committed, revealed = self._my_submission(task_id, t, slot)
        if t["phase"] == Phase.TRAIN_COMMIT and not committed:
            return self._commit(task_id, t, self.checkpoint(task_id, t), "trainer")
        if t["phase"] == Phase.TRAIN_REVEAL and committed and not revealed:
            return self._reveal(task_id, t, "trainer")
        if t["phase"] == Phase.ATTEST_REVEAL and revealed:
            return self._open_draw(task_id, t, slot)
        return None

    def checkpoint(self, task_id: int, t: dict) -> list[bytes]:
        nonce = 0
        while True:
            shards = checkpoint_shards(task_id, t["round"], revealed_sampler_roots(self.proto, task_id, t))
            shards[0] += b" nonce=%d" % nonce
            if not self.stable_calldata or not has_zero_byte(MerkleTree(shards).root):
                return shards
            nonce += 1


def revealed_sampler_roots(proto: Protocol, task_id: int, t: dict) -> list[bytes]:
    subs = [proto.state.submissionOf(task_id, t["round"], Role.SAMPLER, i).dict() for i in range(t["numSamplers"])]
    return [bytes(s["root"]) for s in subs if s["revealed"]]


class ScriptedValidator(Node):
    """Checks every revealed submission against the content it names, seals its vote (Attest) and
    opens it (AttestReveal). `against_rounds`: rounds (0-based) in which it (dishonestly) rejects
    the trainer's checkpoint: outvoted, it dissents (SPECIFICATION.md 5.5)."""

    role = Role.VALIDATOR

    def __init__(self, name, account, proto, against_rounds: Iterable[int] = ()):
        super().__init__(name, account, proto)
        self.against_rounds = set(against_rounds)
        self.sealed: dict[tuple[int, int], tuple[int, bytes]] = {}  # (task, round) -> (bitmap, salt)

    def verdicts(self, task_id: int, t: dict) -> int:
        """The accept bitmap: bit i = sampler slot i, bit numSamplers = the trainer."""
        reg, store = self.proto.state, self.proto.store
        bitmap = 0
        for i in range(t["numSamplers"]):
            s = reg.submissionOf(task_id, t["round"], Role.SAMPLER, i).dict()
            items = store.get(s["cid"]) if s["revealed"] else None
            if items and MerkleTree(items).root == bytes(s["root"]):
                bitmap |= 1 << i
        s = reg.submissionOf(task_id, t["round"], Role.TRAINER, 0).dict()
        shards = store.get(s["cid"]) if s["revealed"] else None
        if shards and MerkleTree(shards).root == bytes(s["root"]):
            expected = checkpoint_shards(task_id, t["round"], revealed_sampler_roots(self.proto, task_id, t))[0]
            if shards[0].startswith(expected) and t["round"] not in self.against_rounds:
                bitmap |= 1 << t["numSamplers"]
        return bitmap

    def _vote_salt(self, task_id: int, round_: int, bitmap: int) -> bytes:
        # as _salt: with stable_calldata, no zero byte in the salt or the commitment
        while True:
            salt = secrets.token_bytes(32)
            c = attest_commitment(task_id, round_, self.address, bitmap, salt)
            if not self.stable_calldata or not (has_zero_byte(c) or has_zero_byte(salt)):
                return salt

    def act(self, task_id: int):
        t = self.proto.task(task_id)
        if t["status"] != Status.ACTIVE or t["phase"] not in (Phase.ATTEST, Phase.ATTEST_REVEAL):
            return None
        slot = self.slot(task_id, t)
        key = (task_id, t["round"])
        if slot is None or self.proto.registry.attestationOf(task_id, t["round"], slot)[0]:
            return None
        if t["phase"] == Phase.ATTEST:
            if key in self.sealed:
                return None
            bitmap = self.verdicts(task_id, t)
            self.sealed[key] = bitmap, salt = bitmap, self._vote_salt(task_id, t["round"], bitmap)
            sealed = attest_commitment(task_id, t["round"], self.account.address, bitmap, salt)
            return self.proto.send("commitAttestation", self.account, self.proto.registry.commitAttestation, task_id,
                                   t["round"], sealed, task_id=task_id)
        if key not in self.sealed:
            return None  # sealed nothing this round (joined after the commits)
        bitmap, salt = self.sealed[key]
        return self.proto.send("attest", self.account, self.proto.registry.attest, task_id, t["round"], bitmap, salt,
                               task_id=task_id)


# ---------------------------------------------------------------- the requester


def sign_permit(private_key, token, owner: str, spender: str, value: int, deadline: int) -> tuple:
    """An EIP-2612 permit for `token` as ITaskFront.Permit (deadline, v, r, s)."""
    return protocol_sign_permit(private_key, token.address, chain.id, owner, spender, value,
                                token.nonces(owner), deadline)


@dataclass
class SignedTask:
    """What a requester hands to a relayer: everything TaskFront.createTaskWithSig needs."""

    params: TaskParams
    requester: str
    deadline: int
    signature: bytes
    permit: tuple = NO_PERMIT

    def args(self) -> tuple:
        return (self.params.as_tuple(), self.requester, self.deadline, self.signature, self.permit)


def sign_task(private_key, requester: str, params: TaskParams, front, token=None, ttl: int = 3600) -> SignedTask:
    """Signs a CreateTask message for TaskFront `front` (and, with `token`, a permit for the bounty,
    whose spender is the registry) for a relayer."""
    deadline = chain[-1].timestamp + ttl
    signature = sign_create_task(private_key, params, requester, front.nonces(requester), deadline,
                                 web3.eth.chain_id, front.address)
    permit = NO_PERMIT if token is None else sign_permit(private_key, token, requester, front.registry(),
                                                         params.bounty, deadline)
    return SignedTask(params, requester, deadline, signature, permit)


def relay(proto: Protocol, relayer, signed: SignedTask, label: str = "createTaskWithSig") -> int:
    tx = proto.send(label, relayer, proto.dep.front.createTaskWithSig, *signed.args())
    return tx.events["TaskCreated"]["taskId"]


# ---------------------------------------------------------------- driving a task


def draw_validators(proto: Protocol, keeper, task_id: int):
    proto.send("drawValidators", keeper, proto.registry.drawValidators, task_id, task_id=task_id)


def play_round(proto: Protocol, task_id: int, nodes: list[Node], keeper, redraw: bool = True) -> int:
    """Plays the task's current round to its end and returns its gas. Every node acts when it is
    its turn; when nobody can act any more before a deadline, time passes and the keeper calls
    advance() (penalising whoever missed it). With `redraw`, the keeper also draws validators once
    when a validator slot fell vacant."""
    start = len(proto.txs)
    t = proto.task(task_id)
    round_ = t["round"]
    drew = False
    while t["status"] == Status.ACTIVE and t["round"] == round_:
        if redraw and not drew and t["seedBlock"] and t["filledValidators"] < t["numValidators"]:
            if web3.eth.block_number <= t["seedBlock"]:
                chain.mine()
            draw_validators(proto, keeper, task_id)
            drew = True
        elif not any(node.act(task_id) for node in nodes):
            wait = t["phaseDeadline"] - proto.registry.protocolTime() + 1
            chain.sleep(max(wait, 1))
            chain.mine()
            proto.send("advance", keeper, proto.registry.advance, task_id, task_id=task_id)
        t = proto.task(task_id)
    return proto.gas(start)


def fill_task(proto: Protocol, task_id: int, samplers: list[ScriptedSampler], trainer: ScriptedTrainer, keeper):
    """Claims the sampler and trainer slots, then draws the validators: the task becomes Active."""
    for s in samplers:
        s.claim(task_id)
    trainer.claim(task_id)
    chain.mine()  # the draw is seeded by a block mined after the slots filled
    draw_validators(proto, keeper, task_id)
