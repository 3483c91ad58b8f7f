"""Node settings shared by the process that enqueues and the worker processes that run tasks.

Workers are separate `celery -A workers.node.processes.worker worker` processes: they read the same
NodeConfig from the environment variable DECENTRL_NODE_CONFIG (JSON), which the supervisor sets.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields

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
    extra: dict = field(default_factory=dict)
    """Free-form settings for handler modules (they read it from the config)."""

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
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "NodeConfig":
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown NodeConfig fields {sorted(unknown)}")
        return cls(**data)

    @classmethod
    def from_env(cls) -> "NodeConfig":
        text = os.environ.get(ENV_VAR)
        if not text:
            raise RuntimeError(f"{ENV_VAR} is not set: start workers through "
                               "workers.node.processes.supervisor, or export the node's config JSON")
        return cls.from_json(text)
