"""Node settings shared by the process that enqueues and the worker processes that run tasks.

Workers are separate `celery -A workers.node.processes.worker worker` processes: they read the same
NodeConfig from the environment variable DECENTRL_NODE_CONFIG (JSON), which the supervisor sets.
NodeConfig holds what the queues need; its `settings` (NodeSettings) what the protocol's handlers
and the watcher need: the chain, the store, the node's folder and account, each role's tuning.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields
from pathlib import Path

from workers.rl.config import DEVICES
from workers.roles.aggregation import AGGREGATE_WAIT_S, ATTEST_FALLBACK_S, MIN_AGGREGATE_SIGNERS, check_min_signers
from workers.storage.store import DEFAULT_TIMEOUT

ENV_VAR = "DECENTRL_NODE_CONFIG"

#: Role name -> Celery queue. `chain` is the node's chain-facing housekeeping queue.
ROLE_QUEUES = {"sampler": "sample", "trainer": "train", "validator": "validate", "chain": "chain"}

#: The claim lane: a node's handlers that take on new work (claims, dispatch.py) go to their role's
#: claim queue, served by one light worker of their own (no torch), so that a claim never waits
#: behind a rollout or a training step and a burst of claims never delays held work.
CLAIM_LANE = "claims"


#: How much lower the CPU priority of each role's compute worker is (nice(2) increment) than the
#: node's chain-facing processes (watcher, claim lane): on a busy host a new task's event is read
#: and claimed at once, while rollouts and verifications, whose deadlines are minutes away, yield.
#: The trainer's update does not: it is the one step of a round that every other role waits on
#: and nothing overlaps (docs/benchmarks.md measured the demo's rounds both ways).
COMPUTE_NICENESS = {"sampler": 10, "trainer": 0, "validator": 10}


def claim_queue(role: str) -> str:
    return f"{ROLE_QUEUES[role]}.claim"


QUEUES = tuple(ROLE_QUEUES.values()) + tuple(claim_queue(r) for r in ROLE_QUEUES)


LOCAL_POLL_S, REMOTE_POLL_S = 0.05, 2.0
"""The watcher's default polling interval: a chain on this machine (a local node, anvil) answers a
look in a millisecond; any other endpoint is someone's RPC service, which two requests every
0.05 s (3.5 million a day) would rate-limit, and whose chain makes a block every few seconds."""


def default_poll_interval(rpc_url: str) -> float:
    from workers.chain.rpc import is_local_url

    return LOCAL_POLL_S if is_local_url(rpc_url) else REMOTE_POLL_S


LOCAL_CONFIRMATIONS, REMOTE_CONFIRMATIONS = 0, 2
"""The watcher's default confirmation depth: a chain on this machine is not reorganised; a public
chain can replace its last block or two, and the watcher does not handle a reorganisation deeper
than its depth (an event of a replaced block would be acted on, one of its replacement missed)."""


def default_confirmations(rpc_url: str) -> int:
    from workers.chain.rpc import is_local_url

    return LOCAL_CONFIRMATIONS if is_local_url(rpc_url) else REMOTE_CONFIRMATIONS


@dataclass(frozen=True)
class NodeSettings:
    """What a node's handlers and its watcher work with, besides the queues: built by `decentrl node
    start` (or a local network) and carried to every process in NodeConfig.settings. Checked when
    made: a bad value is refused with what to change. The keystore password is not here: it comes
    from $DECENTRL_KEYSTORE_PASSWORD (workers.chain.keystore)."""

    rpc_url: str
    """HTTP RPC of the chain."""
    deployment: Path
    """The deployment record (deployments/<network>.json)."""
    node_dir: Path
    """The node's folder: keystore/, secrets.sqlite, the watcher's cursor, logs/."""
    store_dir: Path
    """Root of the EmbeddedStore (shared by every node on one machine), or the ledger folder of the
    IpfsStore when ipfs_api is set."""
    ws_url: str | None = None
    """Websocket endpoint for the watcher (None: it polls over HTTP)."""
    ipfs_api: str | None = None
    """Multiaddr of an IPFS node's RPC API (None: the embedded store)."""
    ipfs_timeout_s: float = DEFAULT_TIMEOUT
    """Seconds each call to the IPFS node may take: a fetch of content that no reachable peer
    gives in that time is tried again with its job, and is missing data after
    handlers.common.FETCH_DELIVERIES deliveries."""
    address: str | None = None
    """Which keystore of node_dir to use (None: its only one)."""
    confirmations: int = 0
    """Blocks that must sit on a block before the watcher delivers its events (default_confirmations)."""
    poll_interval: float = 0.05
    """Seconds between the watcher's looks at the chain while it polls (default_poll_interval)."""
    retention_s: float = 7 * 24 * 3600.0
    """How long the node's store keeps the unpinned intermediate results (rollouts, checkpoints)."""
    gc_interval_s: float = 3600.0
    """Seconds between the watcher's passes dropping results older than retention_s."""
    attest_relay: str | None = None
    """The Redis where the task's validators exchange BLS signatures (workers.node.handlers.relay):
    None is the node's own Redis; "ipfs" the node's own Redis filled over its IPFS node's pubsub
    (needs ipfs_api); "off" means always vote alone."""
    aggregate_wait_s: float = AGGREGATE_WAIT_S
    """How long a round's aggregator waits for the other validators' signatures (capped inside the
    Attest deadline: SPECIFICATION 5.5.2)."""
    attest_fallback_s: float = ATTEST_FALLBACK_S
    """How long after posting its signature a validator no aggregate covered waits before it votes
    alone (capped likewise)."""
    aggregate_min_signers: int = MIN_AGGREGATE_SIGNERS
    """The fewest validators that can join for which a round is aggregated; with fewer each votes
    alone, which costs less gas (workers.roles.aggregation.MIN_AGGREGATE_SIGNERS)."""
    trainer_device: str = "auto"
    """Where the trainer's update runs: "auto" (CUDA when torch sees one), "cpu" or "cuda". A CPU
    trace is re-executed bit for bit, a CUDA one within a tolerance (SPECIFICATION 12); small
    policies also train faster on the CPU (docs/benchmarks.md)."""
    keeper_turn_blocks: int = 0
    """Blocks each turn of the validator pool's keeper calls lasts (workers.node.handlers.keeper_turns;
    0: no turns, every validator sends when the call falls due)."""
    max_fee_per_gas: int | None = None
    """The node's fee cap in wei (workers.chain.sender; None: no cap)."""
    price_sampler: int = 0
    """Wei per 1,000 environment steps rolled out that a sampler slot must pay a round
    (workers.node.market.pricing; 0: any bounty)."""
    price_trainer: int = 0
    """Wei per 1,000 environment steps consumed by the round's update that the trainer slot must pay."""
    price_validator: int = 0
    """Wei per 1,000 steps re-executed (replayed steps and re-trained samples) a validator slot should
    pay; a validator cannot decline a draw, so this only flags drawn slots (workers.node.market.claims)."""
    feasibility_margin: float = 0.5
    """A slot is taken only when its round's work is estimated to take at most this fraction of
    its window (commit window; attest window for a validator) at the node's measured rates."""
    nudge_after_s: float | None = None
    """Seconds the chain's head may stand still while the node waits for a block it needs (a draw's
    seed block) before it mines one with an empty transaction (workers.chain.stalls: chains that
    mine only on transactions); 0: never. None: stalls.default_nudge_after_s of the RPC URL."""

    def __post_init__(self):
        for name in ("deployment", "node_dir", "store_dir"):
            object.__setattr__(self, name, Path(getattr(self, name)))
        if not self.rpc_url:
            raise ValueError("NodeSettings.rpc_url is empty: give the chain's HTTP RPC URL")
        if self.confirmations < 0:
            raise ValueError(f"confirmations must be >= 0 blocks, got {self.confirmations}")
        if self.poll_interval <= 0:
            raise ValueError(f"poll_interval must be > 0 seconds, got {self.poll_interval}")
        if self.retention_s <= 0 or self.gc_interval_s <= 0:
            raise ValueError(f"retention_s and gc_interval_s must be > 0 seconds, got {self.retention_s} and "
                             f"{self.gc_interval_s}")
        if self.ipfs_timeout_s <= 0:
            raise ValueError(f"ipfs_timeout_s must be > 0 seconds, got {self.ipfs_timeout_s}")
        if self.aggregate_wait_s < 0 or self.attest_fallback_s < 0:
            raise ValueError("aggregate_wait_s and attest_fallback_s must be >= 0")
        check_min_signers(self.aggregate_min_signers)
        from workers.node.handlers.relay import check_setting

        check_setting(self.attest_relay, self.ipfs_api)
        if self.trainer_device not in DEVICES:
            raise ValueError(f"trainer_device must be one of {', '.join(DEVICES)}, got {self.trainer_device!r}")
        if self.keeper_turn_blocks < 0:
            raise ValueError(f"keeper_turn_blocks must be >= 0, got {self.keeper_turn_blocks}")
        if self.nudge_after_s is None:
            from workers.chain.stalls import default_nudge_after_s

            object.__setattr__(self, "nudge_after_s", default_nudge_after_s(self.rpc_url))
        if self.nudge_after_s < 0:
            raise ValueError(f"nudge_after_s must be >= 0 seconds, got {self.nudge_after_s}")
        if self.max_fee_per_gas is not None and self.max_fee_per_gas <= 0:
            raise ValueError(f"max_fee_per_gas must be > 0 wei, got {self.max_fee_per_gas}")
        for role in ("sampler", "trainer", "validator"):
            if getattr(self, f"price_{role}") < 0:
                raise ValueError(f"price_{role} must be >= 0 wei per 1,000 steps, got {getattr(self, f'price_{role}')}")
        if not 0 < self.feasibility_margin <= 1:
            raise ValueError(f"feasibility_margin must be in (0, 1] (the share of a window the work may take), got "
                             f"{self.feasibility_margin}")

    def price_of(self, role) -> int:
        """The price (wei per 1,000 priced steps) of `role` (a workers.protocol.Role or its name)."""
        name = role if isinstance(role, str) else role.name.lower()
        return getattr(self, f"price_{name}")

    def to_dict(self) -> dict:
        """As JSON takes it (paths as strings)."""
        return {f.name: str(v) if isinstance(v := getattr(self, f.name), Path) else v for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict) -> NodeSettings:
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown NodeSettings fields {sorted(unknown)}")
        return cls(**data)


@dataclass(frozen=True)
class NodeConfig:
    """Everything a node's Celery processes need to agree on."""

    redis_url: str
    """Broker, result back-end and job records (redis://host:port/db)."""
    node_name: str = "node"
    """Namespace of this node's Redis keys (job records, rate bucket) and worker host names."""
    handler_modules: tuple[str, ...] = ()
    """Modules imported by every worker at start; they register handlers in dispatch.DISPATCH."""
    rate_per_s: float = 10.0
    """New training tasks the whole node takes on (claims) per second (a token bucket shared by all
    its workers); work on tasks it holds is not limited."""
    burst: int = 10
    """Token-bucket capacity: how many new tasks it may claim at once after an idle period."""
    retry_backoff: int = 1
    """First retry delay in seconds; doubles each retry (Celery retry_backoff)."""
    retry_backoff_max: int = 64
    """Longest retry delay in seconds (Celery retry_backoff_max)."""
    retry_jitter: bool = True
    """Randomise each delay in [0, delay] (Celery retry_jitter); False makes delays exact."""
    max_retries: int = 10
    """Retries after the first attempt (1+2+4+...+64+64... s: about 5 minutes in all)."""
    soft_time_limit: float = 300.0
    """Seconds before SoftTimeLimitExceeded is raised inside a handler."""
    time_limit: float = 330.0
    """Seconds before the pool process running a task is killed."""
    lease_s: float = 30.0
    """A running job's lease; renewed every lease_s/3 while the handler runs, so a duplicate
    delivery waits, and a job whose worker died can run again once the lease lapses."""
    visibility_timeout: float = 900.0
    """Seconds before Redis hands an unacknowledged message (its worker died) to another worker.
    Must exceed time_limit + retry_backoff_max: a retry waits in the worker unacknowledged."""
    restore_interval: float = 10.0
    """Seconds between a worker's sweeps for unacknowledged messages past visibility_timeout."""
    settings: NodeSettings | None = None
    """The protocol's handlers' and the watcher's settings; None for a node whose handler modules
    need none (a test's)."""

    def __post_init__(self):
        if self.time_limit <= self.soft_time_limit:
            raise ValueError(f"time_limit ({self.time_limit}) must exceed soft_time_limit "
                             f"({self.soft_time_limit}) so handlers see SoftTimeLimitExceeded first")
        if self.visibility_timeout <= self.time_limit + self.retry_backoff_max:
            raise ValueError(
                f"visibility_timeout ({self.visibility_timeout}) must exceed time_limit + "
                f"retry_backoff_max ({self.time_limit + self.retry_backoff_max}); otherwise Redis "
                "redelivers tasks that are still running or waiting for a retry")
        if self.rate_per_s <= 0 or self.burst < 1:
            raise ValueError("rate_per_s must be > 0 and burst >= 1")
        object.__setattr__(self, "handler_modules", tuple(self.handler_modules))

    def key(self, *parts: str) -> str:
        """A Redis key in this node's namespace."""
        return ":".join(("decentrl", self.node_name, *parts))

    def to_json(self) -> str:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["settings"] = None if self.settings is None else self.settings.to_dict()
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> NodeConfig:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown NodeConfig fields {sorted(unknown)}")
        if data.get("settings") is not None:
            data["settings"] = NodeSettings.from_dict(data["settings"])
        return cls(**data)

    @classmethod
    def from_env(cls) -> NodeConfig:
        text = os.environ.get(ENV_VAR)
        if not text:
            raise RuntimeError(f"{ENV_VAR} is not set: start workers through "
                               "workers.node.processes.supervisor, or export the node's config JSON")
        return cls.from_json(text)
