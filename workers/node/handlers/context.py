"""What a node's handlers work with (NodeContext), built once per process from its NodeConfig
and its NodeSettings (workers.node.config), and passed to each handler (common.on).

Secrets (`Secrets`, node_dir/secrets.sqlite): the salt, root and CID of each commitment, written
BEFORE the commit is sent, so a node that restarts between commit and reveal can still reveal;
a worker's draw secret of each round (`draw_secret`), written before the salt that commits to it;
a validator's sealed vote (accept bitmap and salt, `save_vote`) before its commitAttestation, and
a juror's vote and salt likewise (`save_juror_vote`) before its commitVote; plus a small JSON note
per (task, round, role) with what the node computed (mean return, PPO stats, verdict reasons) for
the CLI and the demo to show.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from web3 import Web3

from workers.chain.deployment import Deployment, load_deployment
from workers.chain.keystore import find_keystore, load_account
from workers.chain.rpc import http_w3
from workers.chain.sender import TxSender
from workers.chain.view import ChainView
from workers.node.config import NodeConfig, NodeSettings
from workers.node.observe.metrics import OBSERVER
from workers.node.queues.transient import OUTAGE_S, redis_client
from workers.protocol import Role
from workers.storage.store import ContentStore, open_store


@dataclass(frozen=True)
class Commitment:
    task_id: int
    round: int
    role: int
    salt: bytes
    root: bytes
    cid: str


@dataclass(frozen=True)
class SealedVote:
    """A validator's vote of one round as it sealed it (workers.protocol.attest_commitment)."""

    bitmap: int
    salt: bytes


VALIDATOR_ROLE = int(Role.VALIDATOR)  # a validator's vote is its role's row
VOTE_CID = "vote"  # the commitments row's cid for a vote (its root holds the bitmap)


class Secrets:
    """The node's commit secrets and result notes (SQLite, WAL; safe across processes)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # the salts are secret until each reveal: readable by the node's user only (SQLite gives
        # its -wal and -shm files the database file's mode)
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        with self._db() as db:
            db.execute("CREATE TABLE IF NOT EXISTS commitments (task INTEGER, round INTEGER, role INTEGER, "
                       "salt BLOB, root BLOB, cid TEXT, created REAL, PRIMARY KEY (task, round, role))")
            db.execute("CREATE TABLE IF NOT EXISTS notes (task INTEGER, round INTEGER, role INTEGER, "
                       "kind TEXT, data TEXT, created REAL, PRIMARY KEY (task, round, role, kind))")
            db.execute("CREATE TABLE IF NOT EXISTS seeds (task INTEGER, round INTEGER, seed BLOB, "
                       "PRIMARY KEY (task, round))")
            db.execute("CREATE TABLE IF NOT EXISTS draws (task INTEGER, round INTEGER, secret BLOB, "
                       "PRIMARY KEY (task, round))")
            db.execute("CREATE TABLE IF NOT EXISTS juror_votes (dispute INTEGER PRIMARY KEY, uphold INTEGER, "
                       "salt BLOB, created REAL)")

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # a salt must survive a crash right after the commit
        return db

    def commitment(self, task_id: int, round_: int, role: int) -> Commitment | None:
        with self._db() as db:
            row = db.execute("SELECT salt, root, cid FROM commitments WHERE task=? AND round=? AND role=?",
                             (task_id, round_, int(role))).fetchone()
        return Commitment(task_id, round_, int(role), bytes(row[0]), bytes(row[1]), row[2]) if row else None

    def save_commitment(self, task_id: int, round_: int, role: int, root: bytes, cid: str,
                        salt: bytes | None = None) -> Commitment:
        """Store (root, cid) with `salt` (default: fresh secret bytes) for (task, round, role),
        unless a commitment is stored already: then that one is returned unchanged (it may have
        been sent), and the caller commits to it. Atomic across processes."""
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO commitments VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (task_id, round_, int(role), os.urandom(32) if salt is None else bytes(salt),
                        bytes(root), cid, time.time()))
        return self.commitment(task_id, round_, role)

    def save_vote(self, task_id: int, round_: int, bitmap: int) -> SealedVote:
        """Store a validator's accept bitmap with a fresh secret salt, unless a vote of the round
        is stored already: then that one is returned unchanged (it may have been committed), and
        the caller commits to it. Kept in the commitments table as the validator role's row."""
        stored = self.save_commitment(task_id, round_, VALIDATOR_ROLE, int(bitmap).to_bytes(32, "big"), VOTE_CID)
        return SealedVote(int.from_bytes(stored.root, "big"), stored.salt)

    def vote(self, task_id: int, round_: int) -> SealedVote | None:
        """The vote `save_vote` stored for the round, or None."""
        stored = self.commitment(task_id, round_, VALIDATOR_ROLE)
        return None if stored is None else SealedVote(int.from_bytes(stored.root, "big"), stored.salt)

    def challenge_seed(self, task_id: int, round_: int) -> bytes:
        """A validator's secret challenge seed for a round, drawn once and kept."""
        return self._drawn_once("seeds", "seed", task_id, round_)

    def draw_secret(self, task_id: int, round_: int) -> bytes:
        """A worker's secret draw of a round (SPECIFICATION.md 12.4), drawn once and kept: its
        commitment is the salt of the previous round's result, and it is opened in the round's
        AttestReveal."""
        return self._drawn_once("draws", "secret", task_id, round_)

    def _drawn_once(self, table: str, column: str, task_id: int, round_: int) -> bytes:
        with self._db() as db:
            db.execute(f"INSERT OR IGNORE INTO {table} VALUES (?, ?, ?)", (task_id, round_, os.urandom(32)))
            return bytes(db.execute(f"SELECT {column} FROM {table} WHERE task=? AND round=?",
                                    (task_id, round_)).fetchone()[0])

    def juror_vote(self, dispute_id: int) -> tuple[bool, bytes] | None:
        """(uphold, salt) of this node's vote in the dispute, or None."""
        with self._db() as db:
            row = db.execute("SELECT uphold, salt FROM juror_votes WHERE dispute=?", (dispute_id,)).fetchone()
        return (bool(row[0]), bytes(row[1])) if row else None

    def save_juror_vote(self, dispute_id: int, uphold: bool) -> tuple[bool, bytes]:
        """Store the vote with a fresh secret salt, unless one is stored already: then that one is
        returned unchanged (it may have been committed), and the caller commits to it."""
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO juror_votes VALUES (?, ?, ?, ?)",
                       (dispute_id, int(bool(uphold)), os.urandom(32), time.time()))
        return self.juror_vote(dispute_id)

    def note(self, task_id: int, round_: int, role: int, kind: str, data: dict) -> None:
        with self._db() as db:
            db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?, ?)",
                       (task_id, round_, int(role), kind, json.dumps(data, sort_keys=True), time.time()))

    def notes(self, task_id: int | None = None) -> list[dict]:
        """Every note (of `task_id`), oldest first: {task, round, role, kind, data, created}."""
        query = "SELECT task, round, role, kind, data, created FROM notes"
        args: tuple = ()
        if task_id is not None:
            query, args = query + " WHERE task=?", (task_id,)
        with self._db() as db:
            rows = db.execute(query + " ORDER BY created", args).fetchall()
        return [{"task": t, "round": r, "role": ro, "kind": k, "data": json.loads(d), "created": c}
                for t, r, ro, k, d, c in rows]


@dataclass
class NodeContext:
    """One process's connections for a node (see module doc); `NodeContext.current()` builds it."""

    config: NodeConfig
    settings: NodeSettings
    w3: Web3
    deployment: Deployment
    sender: TxSender
    store: ContentStore
    view: ChainView
    node_dir: Path
    secrets: Secrets
    _specs: dict = field(default_factory=dict, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)
    """Per-process objects built on first use (the attestation relay, the BLS key)."""
    account: object = field(default=None, repr=False)
    """The node's LocalAccount (it opens the node's entry in a keyring of encrypted inputs)."""

    @property
    def address(self) -> str:
        return self.sender.address

    @classmethod
    def build(cls, config: NodeConfig, account=None, chain: tuple[Web3, Deployment] | None = None) -> NodeContext:
        """`account`: the node's account, already unlocked (else its keystore is decrypted).
        `chain`: (w3, deployment) already loaded from the node's rpc_url and deployment record
        (binding every contract's ABI costs ~0.1 s: an in-process driver of many nodes' handlers
        loads it once)."""
        settings = config.settings
        if settings is None:
            raise ValueError(f"node {config.node_name}'s NodeConfig has no settings: the protocol's handlers need "
                             "its NodeSettings (workers.node.config), as workers.node.run.node_config gives them")
        node_dir = settings.node_dir
        w3, deployment = chain or load_chain(settings)
        account = account or load_account(find_keystore(node_dir, settings.address))
        client = redis_client(config.redis_url)  # rides out a Redis restart (the nonce lives there)
        sender = TxSender(w3, account, client, max_fee_per_gas=settings.max_fee_per_gas, observer=OBSERVER)
        store = open_store(settings.ipfs_api, settings.store_dir, observer=OBSERVER, outage_s=OUTAGE_S,
                           timeout=settings.ipfs_timeout_s)
        return cls(config, settings, w3, deployment, sender, store, ChainView(deployment), node_dir,
                   Secrets(node_dir / "secrets.sqlite"), account=account)

    @classmethod
    def current(cls) -> NodeContext:
        """This process's context for NodeConfig.from_env(), built on first use after a fork. A
        context of the same config built before the fork (a worker's warm-up, before it forks its
        pool) lends the new one its unlocked account: connections are not fork-safe, but an
        account is plain data, and decrypting the keystore again is the costly part (scrypt at
        its default cost: about half a second and 256 MB in every pool process)."""
        if _current.get("pid") != os.getpid():
            config, before = NodeConfig.from_env(), _current.get("ctx")
            account = before.account if before is not None and before.config == config else None
            _current.update(pid=os.getpid(), ctx=cls.build(config, account=account))
        return _current["ctx"]


def load_chain(settings: NodeSettings) -> tuple[Web3, Deployment]:
    """The node's RPC connection and its deployment's contracts bound to it."""
    w3 = http_w3(settings.rpc_url)
    return w3, load_deployment(w3, path=settings.deployment)


_current: dict = {}
