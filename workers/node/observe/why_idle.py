"""Why no work arrives at a node: every reason that holds now, each with a code and a sentence.

The chain decides eligibility (paused, then stake, then reputation: ChainView.eligibility reports
the first); here every one is checked on its own, so an operator sees all that must be fixed:

    chain-down          the chain cannot be read (the RPC is unreachable or not the deployment's
                        chain): no event reaches the node and nothing can be sent
    not-running         the node's processes are not running (`decentrl node start`)
    paused              the node paused itself (StakeManager.setNodePaused)
    stake-too-low       available stake below the role's minimum (one reason per role)
    reputation-low      score below the threshold: no new work for any role
    rate-limited        the node's claim bucket is empty: its next claim waits (queues/ratelimit.py)
    redis-down          (while running) its Redis does not answer: no event reaches its workers
    store-down          (while running) its content store failed the last health check: no spec,
                        shard or checkpoint can be fetched or stored
    fee-cap             (while running) the chain's base fee is above the node's --max-fee-gwei:
                        it sends nothing, claims included, until the fee falls
    no-open-tasks       no recent task has a vacant slot of the node's roles (validators are drawn,
                        so for them: no task is waiting for a draw)
    passed-over         in the last hour the node passed over tasks it saw: their pay was below its
                        price, or their work would not fit their windows at its speed
                        (workers.node.market; `node status` lists them under PASSED OVER)
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from workers.chain.errors import gwei
from workers.protocol import Role, Status

SCAN_TASKS = 200
"""How many of the most recent tasks are looked at for vacant slots."""


@dataclass(frozen=True)
class Reason:
    code: str
    text: str


def _drl(wei: int) -> str:
    return f"{Decimal(wei) / 10**18:,.4f}".rstrip("0").rstrip(".") + " DRL"


def chain_reasons(view, address: str, roles) -> list[Reason]:
    reasons = []
    if view.stakes.functions.isNodePaused(address).call():
        reasons.append(Reason("paused", "node paused: it asked not to be given work (StakeManager.setNodePaused); "
                                        "unpause it to take work again"))
    for name in roles:
        role = Role[name.upper()]
        available = view.stakes.functions.availableStake(address, role).call()
        required = view.stakes.functions.minStake(role).call()
        if available < required:
            reasons.append(Reason("stake-too-low", f"stake too low for {name}: {_drl(available)} available, "
                                                   f"{_drl(required)} required (`decentrl node stake --role {name}`)"))
    score, threshold = view.score(address), view.reputation.functions.threshold().call()
    if score < threshold:
        reasons.append(Reason("reputation-low", f"reputation below threshold: score {score} < {threshold}; no new "
                                                "work until it recovers"))
    return reasons


def open_slots(view, address: str, roles, scan: int = SCAN_TASKS) -> dict[str, int]:
    """Role -> how many of the last `scan` tasks (not the node's own) could use it now: a vacant
    sampler/trainer slot of an open or active task, or a validator draw pending."""
    count = view.task_count()
    found = {name: 0 for name in roles}
    for task_id in range(count, max(0, count - scan), -1):
        task = view.task(task_id)
        if task.requester == address or task.status not in (Status.OPEN, Status.DRAWING, Status.ACTIVE):
            continue
        vacant = {"sampler": task.status in (Status.OPEN, Status.ACTIVE) and task.filled_samplers < task.num_samplers,
                  "trainer": task.status in (Status.OPEN, Status.ACTIVE) and not task.trainer_filled,
                  "validator": task.filled_validators < task.num_validators and task.status != Status.OPEN}
        for name in roles:
            found[name] += int(vacant[name])
    return found


def rate_limit_wait(redis_url: str, node_name: str, rate: float, burst: int) -> float:
    """Seconds until the node's claim bucket holds a whole token again (0 when it does), computed
    as ratelimit's script does, on Redis's clock; nothing is taken from the bucket."""
    import redis

    client = redis.Redis.from_url(redis_url, socket_connect_timeout=2, socket_timeout=2)
    try:
        tokens, ts = client.hmget(f"decentrl:{node_name}:rate", "tokens", "ts")
        seconds, micros = client.time()
    finally:
        client.close()
    if tokens is None:
        return 0.0
    now = seconds + micros / 1e6
    level = min(burst, float(tokens) + max(0.0, now - float(ts)) * rate)
    return 0.0 if level >= 1 else (1 - level) / rate


NOT_RUNNING = Reason("not-running", "the node is not running: `decentrl node start`")

PASSED_OVER_WINDOW_S = 3600.0


def passed_over_reasons(node_dir, now: float | None = None) -> list[Reason]:
    """passed-over when the node's market book recorded slots it did not take in the last hour."""
    import time

    from workers.node.market.book import FILE, MarketBook

    if not (Path(node_dir) / FILE).exists():
        return []
    since = (time.time() if now is None else now) - PASSED_OVER_WINDOW_S
    recent = [p for p in MarketBook(node_dir).passed_over() if p.at >= since and not p.code.startswith("drawn-")]
    if not recent:
        return []
    counts = {code: sum(p.code == code for p in recent) for code in sorted({p.code for p in recent})}
    what = ", ".join(f"{n} {code}" for code, n in counts.items())
    return [Reason("passed-over", f"the node passed over {len(recent)} task slot{'s' if len(recent) != 1 else ''} "
                                  f"in the last hour ({what}): see PASSED OVER above; lower its --price-* or give "
                                  "it more speed (--feasibility-margin, faster hardware)")]


def store_reasons(running: dict | None, health: dict | None) -> list[Reason]:
    """store-down while the node runs and its last health check (health.json) found the store failing."""
    store = (health or {}).get("services", {}).get("store")
    if not running or not store or store.get("ok"):
        return []
    return [Reason("store-down", f"the node's content store failed its last check ({store.get('detail', '')}): no "
                                 "spec, shard or checkpoint can be fetched or stored; see the health lines above")]


def offline_reasons(chain_error: str, running: dict | None, health: dict | None) -> list[Reason]:
    """What can be said while the chain cannot be read."""
    return ([Reason("chain-down", f"the chain cannot be read ({chain_error}): no event reaches the node and it can "
                                  "send nothing; check --rpc and the chain node")]
            + ([] if running else [NOT_RUNNING]) + store_reasons(running, health))


def why_no_work(view, address: str, roles, running: dict | None, scan: int = SCAN_TASKS,
                health: dict | None = None) -> list[Reason]:
    """Every reason that holds now. running: the node's record (node.json) while it runs, with its
    redis URL, node name and rate settings; None when it is not running. health: its last health
    check (health.json), if any."""
    reasons = [] if running else [NOT_RUNNING]
    reasons += chain_reasons(view, address, roles)
    reasons += store_reasons(running, health)
    if running and running.get("rate"):
        rate = running["rate"]
        try:
            wait = rate_limit_wait(running["redis"], running["node_name"], rate["per_s"], rate["burst"])
        except Exception as exc:  # noqa: BLE001 - Redis down is the health check's news
            wait = None
            reasons.append(Reason("redis-down", f"the node's Redis is unreachable ({type(exc).__name__}): no event "
                                                "reaches its workers; see the health lines above"))
        if wait:
            reasons.append(Reason("rate-limited", f"rate limit hit: claims are booked {wait:.1f} s ahead "
                                                  f"({rate['per_s']:g} new tasks/s, burst {rate['burst']})"))
    cap = running.get("max_fee_per_gas") if running else None
    if cap:
        base = view.deployment.w3.eth.get_block("latest")["baseFeePerGas"]
        if base > cap:
            reasons.append(Reason("fee-cap", f"the chain's base fee is {gwei(base)} gwei, above the node's fee cap of "
                                             f"{gwei(cap)} gwei (--max-fee-gwei): it sends nothing, claims included, "
                                             "until the base fee falls under the cap; raise the cap to send now"))
    slots = open_slots(view, address, roles, scan)
    idle = [name for name in roles if not slots[name]]
    if idle:
        what = ", ".join(idle)
        reasons.append(Reason("no-open-tasks", f"no open tasks for {what}: none of the last "
                                               f"{min(scan, view.task_count())} tasks has a vacant slot for it"))
    return reasons
