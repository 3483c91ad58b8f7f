"""What a node's handlers work with, built once per process from its NodeConfig.

NodeConfig.extra carries the node's chain and storage settings (see `node_extra`):

    rpc_url      HTTP RPC of the chain (required)
    ws_url       websocket endpoint for the watcher (optional: HTTP polling without it)
    deployment   path of the deployment record (deployments/<network>.json)
    node_dir     the node's folder: keystore/, secrets.sqlite, watcher cursor, logs/
    store_dir    root of the EmbeddedStore (shared by every node on one machine), or the
                 ledger folder of the IpfsStore when ipfs_api is set
    ipfs_api     multiaddr of an IPFS node's RPC API (optional)
    attest_relay the attestation relay's Redis URL (workers.node.handlers.relay; default: redis_url; "off")
    aggregate_wait_s, attest_fallback_s   aggregation timing (workers.roles.aggregation.plan)
    aggregate_min_signers   the fewest validators that can join for which a round is aggregated
    trainer_device  where the trainer's update runs: "auto" (CUDA when available), "cpu", "cuda"
    address      which keystore of node_dir to use (optional when there is only one)
    confirmations, poll_interval   watcher settings (default 0 and 0.05 s)
    keeper_turn_blocks   blocks a turn of the pool's keeper calls lasts (workers.node.handlers.keeper_turns)

The keystore password comes from $DECENTRL_KEYSTORE_PASSWORD (workers.chain.keystore).

Secrets (`Secrets`, node_dir/secrets.sqlite): the salt, root and CID of each commitment, written
BEFORE the commit is sent, so a node that restarts between commit and reveal can still reveal;
a juror's vote and salt likewise (`save_juror_vote`) before its commitVote; plus a small JSON note per (task, round, role) with what the node computed (mean return, PPO
stats, verdict reasons) for the CLI and the demo to show.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis
from web3 import Web3

from workers.chain.deployment import Deployment, load_deployment
from workers.chain.keystore import find_keystore, load_account
from workers.chain.rpc import http_w3
from workers.chain.sender import TxSender
from workers.chain.view import ChainView
from workers.node.config import NodeConfig
from workers.node.observe.metrics import OBSERVER
from workers.rl.config import DEVICES
from workers.roles.aggregation import AGGREGATE_WAIT_S, ATTEST_FALLBACK_S, MIN_AGGREGATE_SIGNERS, check_min_signers
from workers.storage.store import ContentStore, open_store


def node_extra(*, rpc_url: str, deployment: str | Path, node_dir: str | Path, store_dir: str | Path,
               ws_url: str | None = None, ipfs_api: str | None = None, address: str | None = None,
               confirmations: int = 0, poll_interval: float = 0.05, retention_s: float = 7 * 24 * 3600.0,
               gc_interval_s: float = 3600.0, attest_relay: str | None = None,
               aggregate_wait_s: float = AGGREGATE_WAIT_S, attest_fallback_s: float = ATTEST_FALLBACK_S,
               aggregate_min_signers: int = MIN_AGGREGATE_SIGNERS, trainer_device: str = "auto",
               keeper_turn_blocks: int = 0, max_fee_per_gas: int | None = None) -> dict:
    """The NodeConfig.extra dict the handlers read (module doc). retention_s: how long the node's
    store keeps unpinned intermediate results (rollouts, checkpoints); the watcher drops older
    ones every gc_interval_s. attest_relay: the Redis where the task's validators exchange BLS
    signatures (None: the node's own Redis; "off": always vote alone); an aggregator waits up to
    aggregate_wait_s for the others' signatures, and a validator no aggregate covered within
    attest_fallback_s votes alone (both capped inside the Attest deadline: SPECIFICATION 5.5.2);
    a round with fewer than aggregate_min_signers validators that can join is voted alone (an
    aggregate would cost more gas: workers.roles.aggregation.MIN_AGGREGATE_SIGNERS).
    trainer_device: a CPU trace is re-executed bit for bit, a CUDA one within a tolerance
    (SPECIFICATION 12); for small policies the CPU is also the faster (docs/benchmarks.md).
    keeper_turn_blocks: how many blocks each turn of the validator pool's keeper calls lasts
    (workers.node.handlers.keeper_turns; 0: no turns, every validator sends when the call falls due).
    max_fee_per_gas: the node's fee cap in wei (workers.chain.sender; None: no cap)."""
    if aggregate_wait_s < 0 or attest_fallback_s < 0:
        raise ValueError("aggregate_wait_s and attest_fallback_s must be >= 0")
    check_min_signers(aggregate_min_signers)
    if trainer_device not in DEVICES:
        raise ValueError(f"trainer_device must be one of {', '.join(DEVICES)}, got {trainer_device!r}")
    if keeper_turn_blocks < 0:
        raise ValueError(f"keeper_turn_blocks must be >= 0, got {keeper_turn_blocks}")
    if max_fee_per_gas is not None and max_fee_per_gas <= 0:
        raise ValueError(f"max_fee_per_gas must be > 0 wei, got {max_fee_per_gas}")
    return {"rpc_url": rpc_url, "ws_url": ws_url, "deployment": str(deployment), "node_dir": str(node_dir),
            "store_dir": str(store_dir), "ipfs_api": ipfs_api, "address": address,
            "confirmations": confirmations, "poll_interval": poll_interval, "retention_s": retention_s,
            "gc_interval_s": gc_interval_s, "attest_relay": attest_relay, "aggregate_wait_s": aggregate_wait_s,
            "attest_fallback_s": attest_fallback_s, "aggregate_min_signers": aggregate_min_signers,
            "trainer_device": trainer_device, "keeper_turn_blocks": keeper_turn_blocks,
            "max_fee_per_gas": max_fee_per_gas}


@dataclass(frozen=True)
class Commitment:
    task_id: int
    round: int
    role: int
    salt: bytes
    root: bytes
    cid: str


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

    def save_commitment(self, task_id: int, round_: int, role: int, root: bytes, cid: str) -> Commitment:
        """Store (root, cid) with a fresh secret salt for (task, round, role), unless a commitment
        is stored already: then that one is returned unchanged (it may have been sent), and the
        caller commits to it. Atomic across processes."""
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO commitments VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (task_id, round_, int(role), os.urandom(32), bytes(root), cid, time.time()))
        return self.commitment(task_id, round_, role)

    def challenge_seed(self, task_id: int, round_: int) -> bytes:
        """A validator's secret challenge seed for a round, drawn once and kept."""
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO seeds VALUES (?, ?, ?)", (task_id, round_, os.urandom(32)))
            return bytes(db.execute("SELECT seed FROM seeds WHERE task=? AND round=?",
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
    w3: Web3
    deployment: Deployment
    sender: TxSender
    store: ContentStore
    view: ChainView
    node_dir: Path
    secrets: Secrets
    extra: dict = field(default_factory=dict)
    _specs: dict = field(default_factory=dict, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)
    """Per-process objects built on first use (the attestation relay, the BLS key)."""
    account: object = field(default=None, repr=False)
    """The node's LocalAccount (it opens the node's entry in a keyring of encrypted inputs)."""

    @property
    def address(self) -> str:
        return self.sender.address

    @classmethod
    def build(cls, config: NodeConfig, account=None) -> "NodeContext":
        """`account`: the node's account, already unlocked (else its keystore is decrypted)."""
        extra = config.extra
        missing = [k for k in ("rpc_url", "deployment", "node_dir", "store_dir") if not extra.get(k)]
        if missing:
            raise ValueError(f"NodeConfig.extra lacks {missing}: build it with workers.node.handlers.context.node_extra")
        node_dir = Path(extra["node_dir"])
        w3 = http_w3(extra["rpc_url"])
        deployment = load_deployment(w3, path=extra["deployment"])
        account = account or load_account(find_keystore(node_dir, extra.get("address")))
        client = redis.Redis.from_url(config.redis_url)
        sender = TxSender(w3, account, client, max_fee_per_gas=extra.get("max_fee_per_gas"), observer=OBSERVER)
        store = open_store(extra.get("ipfs_api"), extra["store_dir"], observer=OBSERVER)
        return cls(config, w3, deployment, sender, store, ChainView(deployment), node_dir,
                   Secrets(node_dir / "secrets.sqlite"), dict(extra), account=account)

    @classmethod
    def current(cls) -> "NodeContext":
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


_current: dict = {}
