"""The Celery-free parts: config checks, routing by task name, dispatch table, token bucket."""
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from node_support import Event

from workers.node.config import NodeConfig, NodeSettings
from workers.node.queues import dispatch, jobs
from workers.node.queues.celery_app import HANDLE_EVENT, PING, create_app, route_task
from workers.node.queues.ratelimit import TokenBucket
from workers.node.queues.tasks import make_enqueue


def test_config_round_trips_and_refuses_unsafe_timeouts(config):
    assert NodeConfig.from_json(config.to_json()) == config
    with pytest.raises(ValueError, match="visibility_timeout"):
        NodeConfig(redis_url="redis://x", time_limit=600, soft_time_limit=500,
                   visibility_timeout=600)
    with pytest.raises(ValueError, match="soft_time_limit"):
        NodeConfig(redis_url="redis://x", time_limit=10, soft_time_limit=10)


def test_routing_by_task_name():
    assert route_task(HANDLE_EVENT, (), {"role": "trainer"}, {}) == {"queue": "train"}
    assert route_task(HANDLE_EVENT, (), {"role": "validator"}, {}) == {"queue": "validate"}
    assert route_task("decentrl.sample.prefetch_policy", (), {}, {}) == {"queue": "sample"}
    assert route_task("decentrl.chain.withdraw", (), {}, {}) == {"queue": "chain"}
    assert route_task(PING, (), {"queue": "train", "sent_at": 0}, {}) == {"queue": "train"}


def test_app_is_json_only_acks_late_prefetch_one(app):
    c = app.conf
    assert c.accept_content == ["json"] and c.task_serializer == "json"
    assert c.task_acks_late and c.task_reject_on_worker_lost
    assert c.worker_prefetch_multiplier == 1
    task = app.tasks[HANDLE_EVENT]
    assert task.autoretry_for == (dispatch.RetryableError,)
    assert (task.retry_backoff, task.retry_backoff_max, task.max_retries) == (1, 2, 3)


def test_dispatch_table_refuses_a_second_handler_and_unknown_roles():
    table = dispatch.DispatchTable()
    table.register("E", "sampler", print)
    table.register("E", "sampler", print)  # same handler: re-import is fine
    with pytest.raises(ValueError, match="already registered"):
        table.register("E", "sampler", repr)
    with pytest.raises(ValueError, match="unknown role"):
        table.register("E", "miner", print)
    with pytest.raises(dispatch.UnknownHandler, match="handler_modules"):
        table.handler("E", "trainer")


def test_a_table_says_which_jobs_go_first():
    table = dispatch.DispatchTable()
    table.register("Claim", "sampler", print, new_task=True)
    table.register("Phase", "validator", print, urgent=lambda args: args["phase"] == 4)
    table.register("Record", "validator", print)
    assert table.priority("Claim", "sampler", {}) == dispatch.URGENT  # alone on its claim queue anyway
    assert table.priority("Phase", "validator", {"phase": 4}) == dispatch.URGENT
    assert table.priority("Phase", "validator", {"phase": 2}) == dispatch.LATER
    assert table.priority("Record", "validator", {}) == dispatch.LATER
    assert dispatch.URGENT < dispatch.LATER  # kombu's Redis transport takes the lower number first


def test_the_events_a_nodes_roles_take(config):
    table = dispatch.DispatchTable()
    table.register("E", "sampler", print)
    table.register("F", "validator", print)
    table.register("G", "chain", print)
    assert table.events_for(["sampler", "trainer"]) == {"E"}
    assert table.events_for(None) == {"E", "F", "G"}
    # the watcher's sink says what it can queue, so that the watcher skips the rest
    assert make_enqueue(create_app(config), roles=["validator"], table=table).events == {"F"}


def test_enqueue_sends_one_task_per_handling_role_of_the_node(rclient):
    table = dispatch.DispatchTable()
    table.register("E", "sampler", print)
    table.register("E", "validator", print)
    store = jobs.JobStore(rclient, "decentrl:unit-" + uuid.uuid4().hex)
    sent = []
    ev = Event("E", {"root": b"\x01\xff", "ids": (1, 2)})
    queues = dispatch.enqueue(ev, lambda role, kw: sent.append(kw), store, table,
                              roles=["sampler", "trainer"])
    assert queues == ["sample"]
    assert sent == [{"event_key": ev.key, "event_name": "E", "args": {"root": "0x01ff",
                     "ids": [1, 2]}, "block": 1, "role": "sampler"}]
    assert store.get("sampler", ev.key).status == jobs.QUEUED
    _, lease = store.acquire("sampler", ev.key, ttl_s=30)
    lease.release(store.job_key("sampler", ev.key), jobs.DONE)
    assert dispatch.enqueue(ev, lambda role, kw: sent.append(kw), store, table) == ["validate"]


def test_unfinished_events_are_the_queued_and_running_event_jobs(rclient):
    store = jobs.JobStore(rclient, "decentrl:unit-" + uuid.uuid4().hex)
    event = ["0x" + f"{i:064x}" + ":3" for i in range(4)]
    for key in event:
        store.mark_queued("sampler", key, "PhaseStarted")
    store.start_attempt("sampler", event[1], "PhaseStarted")
    for key, outcome in ((event[2], (jobs.DONE,)), (event[3], (jobs.FAILED, "gave up"))):
        _, lease = store.acquire("sampler", key, ttl_s=30)
        lease.release(store.job_key("sampler", key), *outcome)
    store.mark_queued("validator", event[3], "PhaseStarted")
    store.mark_queued("validator", "deadline:7:0:2", "DeadlineCheck")  # a scheduled check, due later
    assert sorted(store.unfinished_events()) == [("sampler", event[0]), ("sampler", event[1]),
                                                 ("validator", event[3])]


def test_token_bucket_allows_burst_then_reserves_starts_at_the_rate(rclient):
    bucket = TokenBucket(rclient, "decentrl:unit-bucket-" + uuid.uuid4().hex, rate=20, burst=4)
    t = 1_000_000.0  # the bucket's clock, given: the arithmetic is exact whatever the machine's load
    assert [bucket.reserve(now=t) for _ in range(4)] == [0.0] * 4
    # each later caller gets its own start, 1/rate after the previous one: t + 0.05, t + 0.10, ...
    assert [bucket.reserve(now=t) for _ in range(10)] == pytest.approx([k / 20 for k in range(1, 11)])
    assert bucket.reserve(now=t + 0.3) == pytest.approx(0.55 - 0.3)  # later callers queue behind them
    # once every reserved start has passed, the bucket refills at the rate, up to the burst
    assert bucket.reserve(now=t + 0.55 + 1 / 20) == 0.0
    assert bucket.reserve(now=t + 0.55 + 1 / 20) == pytest.approx(1 / 20)
    assert [bucket.reserve(now=t + 100) for _ in range(5)] == pytest.approx([0.0] * 4 + [1 / 20])


def test_token_bucket_runs_on_redis_s_clock(rclient):
    bucket = TokenBucket(rclient, "decentrl:unit-bucket-" + uuid.uuid4().hex, rate=1, burst=2)
    before = time.time()
    assert [bucket.reserve(), bucket.reserve()] == [0.0, 0.0]
    wait = bucket.reserve()  # a token a second: the third start is 1 s after the first call
    assert 1.0 - (time.time() - before) - 0.01 <= wait <= 1.0, wait  # 0.01: Redis's clock read apart
    time.sleep(wait + 1.0)  # that start passed and one token came back
    assert bucket.reserve() == 0.0


def test_only_new_task_handlers_are_rate_limited(rclient):
    table = dispatch.DispatchTable()
    ran, reserved = [], {}

    def handler(ev):
        ran.append(ev.name)
        reserved[ev.name] = ev.reserved_start

    table.register("TaskCreated", "sampler", handler, new_task=True)
    table.register("PhaseStarted", "sampler", handler)
    store = jobs.JobStore(rclient, "decentrl:unit-rate-" + uuid.uuid4().hex)
    reserve = iter([0.25]).__next__  # the bucket is empty: start reserved 0.25 s from now

    def run(name, **kw):
        return dispatch.run_event(store, reserve, "sampler", f"0xab:{name}", name, {}, 1, final_attempt=False,
                                  lease_s=5, max_attempts=5, table=table, **kw)

    assert run("PhaseStarted") == "done"  # never asks the bucket (the iterator would be spent)
    before = time.time()
    with pytest.raises(dispatch.RateLimited) as limited:
        run("TaskCreated")
    assert limited.value.wait == 0.25 and ran == ["PhaseStarted"]
    assert before + 0.25 <= limited.value.start <= time.time() + 0.25  # the reserved start, as a time
    assert store.get("sampler", "0xab:TaskCreated").attempts == 0  # deferring uses no attempt
    assert run("TaskCreated", reserved=limited.value.start) == "done"  # that start: no second reservation
    assert ran == ["PhaseStarted", "TaskCreated"]
    assert reserved == {"PhaseStarted": None, "TaskCreated": limited.value.start}  # what the handler sees


def test_a_handler_that_defers_leaves_its_job_queued_and_its_lease_free(rclient):
    table = dispatch.DispatchTable()
    runs = []

    def keeper(ev):
        runs.append(ev.attempt)
        if ev.attempt == 1:
            raise dispatch.Deferred(4.0, "not my turn")

    table.register("DrawArmed", "validator", keeper)
    store = jobs.JobStore(rclient, "decentrl:unit-defer-" + uuid.uuid4().hex)

    def run():
        return dispatch.run_event(store, lambda: pytest.fail("a keeper takes no token"), "validator", "0xab:1",
                                  "DrawArmed", {}, 1, final_attempt=False, lease_s=30, max_attempts=5, table=table)

    with pytest.raises(dispatch.Deferred, match="not my turn: run again in 4.000 s") as later:
        run()
    assert later.value.wait == 4.0 and not isinstance(later.value, dispatch.RateLimited)
    record = store.get("validator", "0xab:1")
    assert (record.status, record.attempts, record.last_error) == (jobs.QUEUED, 1, "")
    assert rclient.get(store.lease_key("validator", "0xab:1")) is None  # the rerun is not held off
    assert run() == "done" and runs == [1, 2]


def test_each_app_keeps_its_own_retry_settings():
    """Two nodes' apps in one process: neither inherits the other's handle_event (Celery shares
    tasks between apps unless told not to)."""
    first = create_app(NodeConfig(redis_url="redis://127.0.0.1:1/0", node_name="first"))
    second = create_app(NodeConfig(redis_url="redis://127.0.0.1:1/0", node_name="second",
                                   retry_backoff_max=4, max_retries=2))
    assert (first.tasks[HANDLE_EVENT].retry_backoff_max, first.tasks[HANDLE_EVENT].max_retries) == (64, 10)
    assert (second.tasks[HANDLE_EVENT].retry_backoff_max, second.tasks[HANDLE_EVENT].max_retries) == (4, 2)


def test_claiming_roles_count_only_the_nodes_own_handler_modules():
    # one process may hold several nodes' handlers (tests do): a role claims only by its own modules
    table = dispatch.DispatchTable()
    table.register("TaskCreated", "validator", lambda ev: None, new_task=True)
    table.register("PhaseStarted", "sampler", lambda ev: None)
    assert table.claims_for("validator") and table.claims_for("validator", [__name__])
    assert not table.claims_for("validator", ["workers.node.handlers.table"])
    assert not table.claims_for("sampler", [__name__])


SETTINGS = dict(rpc_url="http://127.0.0.1:1", deployment="d.json", node_dir="n", store_dir="s")


def test_the_aggregate_minimum_is_a_node_setting_of_two_or_more():
    from workers.roles.aggregation import MIN_AGGREGATE_SIGNERS

    assert NodeSettings(**SETTINGS).aggregate_min_signers == MIN_AGGREGATE_SIGNERS
    assert NodeSettings(**SETTINGS, aggregate_min_signers=2).aggregate_min_signers == 2
    with pytest.raises(ValueError, match="aggregate_min_signers must be >= 2"):
        NodeSettings(**SETTINGS, aggregate_min_signers=1)


def test_a_fee_cap_is_a_node_setting_and_reaching_it_retries_the_job_later():
    import workers.node.handlers.common  # noqa: F401 - declares the chain's retryable errors
    from workers.chain.errors import FeeCapExceeded

    assert NodeSettings(**SETTINGS).max_fee_per_gas is None  # no cap
    assert NodeSettings(**SETTINGS, max_fee_per_gas=50 * 10**9).max_fee_per_gas == 50 * 10**9
    with pytest.raises(ValueError, match="max_fee_per_gas must be > 0 wei, got 0"):
        NodeSettings(**SETTINGS, max_fee_per_gas=0)
    assert issubclass(FeeCapExceeded, dispatch.retryable_errors())


def test_the_trainer_device_is_the_nodes_choice(monkeypatch):
    from types import SimpleNamespace

    from workers.node.handlers import round_handlers
    from workers.roles import trainer

    assert NodeSettings(**SETTINGS).trainer_device == "auto"
    with pytest.raises(ValueError, match="trainer_device must be one of auto, cpu, cuda, got 'tpu'"):
        NodeSettings(**SETTINGS, trainer_device="tpu")
    used = []
    monkeypatch.setattr(trainer, "train_round", lambda *args, device, forced: used.append((device, forced)) or "ckpt")
    monkeypatch.setattr(round_handlers, "_revealed_samplers",
                        lambda ctx, task, rnd: [SimpleNamespace(slot=0, root=b"r", cid="c")])
    for device in ("cpu", "cuda"):
        ctx = SimpleNamespace(store=SimpleNamespace(get=lambda cid: b"blob"),
                              settings=NodeSettings(**SETTINGS, trainer_device=device))
        assert round_handlers._train_on_revealed(ctx, None, 1, 0, None, False)[:2] == ("ckpt", [])  # and its time
    assert used == [("cpu", False), ("cuda", False)]


def test_a_trainer_leaves_out_a_shard_it_cannot_fetch_only_after_a_few_deliveries(monkeypatch):
    """Its sampler was the only holder and has gone: validators reject the shard as missing data
    after FETCH_DELIVERIES, and the trainer, which fetches it the same way, leaves it out."""
    from types import SimpleNamespace

    from workers.node.handlers import round_handlers
    from workers.node.handlers.common import FETCH_DELIVERIES
    from workers.roles import trainer
    from workers.storage import ContentNotFound

    trained_on = []
    monkeypatch.setattr(trainer, "train_round", lambda spec, t, r, prev, shards, device, forced:
                        trained_on.append([s[0] for s in shards]) or "ckpt")
    monkeypatch.setattr(round_handlers, "_revealed_samplers", lambda ctx, task, rnd: [
        SimpleNamespace(slot=0, root=b"r0", cid="held"), SimpleNamespace(slot=1, root=b"r1", cid="gone")])

    def get(cid):
        if cid == "gone":
            raise ContentNotFound(cid)
        return b"blob"

    ctx = SimpleNamespace(store=SimpleNamespace(get=get), settings=NodeSettings(**SETTINGS, trainer_device="cpu"))
    for attempt in range(1, FETCH_DELIVERIES):
        with pytest.raises(ContentNotFound):  # retried: the holder may be back
            round_handlers._train_on_revealed(ctx, None, 1, 0, None, False, attempt)
    assert trained_on == []
    assert round_handlers._train_on_revealed(ctx, None, 1, 0, None, False, FETCH_DELIVERIES)[:2] == ("ckpt", [1])
    assert trained_on == [[0]]


def test_node_settings_say_what_to_fix():
    for bad, message in [(dict(rpc_url=""), "rpc_url is empty: give the chain's HTTP RPC URL"),
                         (dict(confirmations=-1), "confirmations must be >= 0 blocks, got -1"),
                         (dict(poll_interval=0), "poll_interval must be > 0 seconds, got 0"),
                         (dict(retention_s=0), "retention_s and gc_interval_s must be > 0 seconds"),
                         (dict(aggregate_wait_s=-1), "aggregate_wait_s and attest_fallback_s must be >= 0"),
                         (dict(keeper_turn_blocks=-1), "keeper_turn_blocks must be >= 0, got -1")]:
        with pytest.raises(ValueError, match=message):
            NodeSettings(**{**SETTINGS, **bad})


def test_node_settings_travel_to_the_workers_in_the_config_json(monkeypatch):
    """The supervisor hands its children NodeConfig as JSON (DECENTRL_NODE_CONFIG): the settings
    come back equal, paths as paths; a field this version does not know is refused."""
    import json

    from workers.node.config import ENV_VAR

    settings = NodeSettings(**SETTINGS, ws_url="ws://127.0.0.1:1", ipfs_api="/ip4/127.0.0.1/tcp/5001/http",
                            address="0x" + "ab" * 20, confirmations=2, poll_interval=2.0, attest_relay="off",
                            aggregate_min_signers=3, trainer_device="cpu", keeper_turn_blocks=2,
                            max_fee_per_gas=10**9)
    config = NodeConfig(redis_url="redis://127.0.0.1:1/0", node_name="n", handler_modules=("a", "b"),
                        settings=settings)
    monkeypatch.setenv(ENV_VAR, config.to_json())
    back = NodeConfig.from_env()
    assert back == config and back.settings.node_dir == Path("n") and back.handler_modules == ("a", "b")
    assert NodeConfig.from_json(NodeConfig(redis_url="redis://x").to_json()).settings is None
    data = json.loads(config.to_json())
    data["settings"]["extra"] = 1
    with pytest.raises(ValueError, match=r"unknown NodeSettings fields \['extra'\]"):
        NodeConfig.from_json(json.dumps(data))


def test_a_handler_is_given_its_context(monkeypatch):
    """A protocol handler registered with common.on is a plain function of (context, event): a
    worker's dispatch passes it this process's NodeContext."""
    from workers.node.handlers import common
    from workers.node.handlers.context import NodeContext

    seen = []

    @common.on("ContextProbe", "trainer")
    def probe(ctx, ev):
        seen.append((ctx, ev))

    monkeypatch.setattr(NodeContext, "current", classmethod(lambda cls: "the context"))
    event = dispatch.HandledEvent("k", "ContextProbe", {}, 1, "trainer", 1)
    dispatch.DISPATCH.handler("ContextProbe", "trainer")(event)
    probe("another", event)
    assert seen == [("the context", event), ("another", event)]
    assert dispatch.DISPATCH.handler("ContextProbe", "trainer").__module__ == __name__


def test_enqueue_skips_a_role_whose_when_refuses_the_args(rclient):
    table = dispatch.DispatchTable()
    table.register("Phase", "sampler", print, when=lambda args: args["phase"] in (0, 1))
    table.register("Phase", "validator", print)
    store = jobs.JobStore(rclient, "decentrl:unit-" + uuid.uuid4().hex)
    sent = []
    other, own = Event("Phase", {"phase": 4}), Event("Phase", {"phase": 1})
    assert dispatch.enqueue(other, lambda role, kw: sent.append(kw["role"]), store, table) == ["validate"]
    assert dispatch.enqueue(own, lambda role, kw: sent.append(kw["role"]), store, table) == ["sample", "validate"]
    assert sent == ["validator", "sampler", "validator"]
    assert store.get("sampler", other.key).status is None  # no job record either
    assert table.roles_for("Phase") == ["sampler", "validator"]  # without args: every handler


def test_each_role_s_own_phase_work_goes_first():
    from workers.node.handlers import table as handlers  # noqa: F401 - registers the node's handlers
    from workers.protocol import Phase

    table = dispatch.DISPATCH
    urgent = {role: {phase for phase in Phase
                     if role in table.roles_for("PhaseStarted", {"phase": int(phase)})
                     and table.priority("PhaseStarted", role, {"phase": int(phase)}) == dispatch.URGENT}
              for role in ("sampler", "trainer", "validator")}
    # a sampler's rollout ahead at Attest too: the next round's commit takes it; the draws'
    # openings at AttestReveal: the round ends on them
    assert urgent == {"sampler": {Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL, Phase.ATTEST, Phase.ATTEST_REVEAL},
                      "trainer": {Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL, Phase.ATTEST_REVEAL},
                      # the early sampler checks too: a vote must not overtake its own round's
                      "validator": {Phase.TRAIN_COMMIT, Phase.ATTEST, Phase.ATTEST_REVEAL}}
    assert table.priority("TaskCreated", "sampler", {}) == dispatch.URGENT  # a claim
    assert table.priority("DrawArmed", "validator", {"taskId": 1}) == dispatch.URGENT  # the task starts on it
    for name, role in [("TaskCreated", "validator"), ("SlotAssigned", "sampler"), ("RewardEarned", "trainer")]:
        assert table.priority(name, role, {}) == dispatch.LATER


def test_samplers_and_trainers_are_queued_only_their_own_phases():
    from workers.node.handlers import table as handlers  # noqa: F401 - registers the node's handlers
    from workers.protocol import Phase

    queued = {phase: dispatch.DISPATCH.roles_for("PhaseStarted", {"phase": int(phase)}) for phase in Phase}
    assert queued == {
        Phase.SAMPLE_COMMIT: ["sampler", "validator"], Phase.SAMPLE_REVEAL: ["sampler", "validator"],
        Phase.TRAIN_COMMIT: ["trainer", "validator"], Phase.TRAIN_REVEAL: ["trainer", "validator"],
        Phase.ATTEST: ["sampler", "validator"],  # samplers roll out the next round's shard
        Phase.ATTEST_REVEAL: ["sampler", "trainer", "validator"]}  # the workers open their draws


def test_warm_loads_what_a_first_round_imports_lazily():
    # checkpoint_bundle and a sampler's round import these inside the handler (the claim lane
    # never needs them); unwarmed, every worker paid the import in its first round (the relay is
    # imported with the handlers: its errors are caught by name)
    lazy = ("workers.node.handlers.encrypted_inputs", "workers.node.handlers.sample_ahead")
    code = ("import sys; from workers.node.handlers import table; "
            f"print(sum(m in sys.modules for m in {lazy!r})); "
            "table.NodeContext.current = staticmethod(lambda: None); table.warm(); "
            f"print(sum(m in sys.modules for m in {lazy!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[3])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", str(len(lazy))]


def test_held_results_stay_within_a_count_and_a_byte_budget():
    from workers.node.handlers.held import Held

    held = Held(max_items=3, max_bytes=100, size=len)
    for key in "abcd":
        held.put(key, bytes(10))
    assert held.keys() == ["b", "c", "d"]  # the oldest past the count went
    held.put("e", bytes(85))
    assert held.keys() == ["d", "e"]  # b went (the count), then c (10 + 10 + 85 > 100)
    held.put("d", bytes(5))
    assert held.keys() == ["e", "d"]  # a replaced entry is the newest
    assert held.pop("e") == bytes(85) and held.pop("e") is None and held.get("d") == bytes(5)
    held.put("g", bytes(95))
    assert held.keys() == ["d", "g"]  # e's bytes went with it: 5 + 95 fit
    held.put("f", bytes(101))
    assert held.keys() == []  # larger than the budget alone: nothing is kept


def test_early_sampler_checks_count_the_blobs_of_the_shards_they_parsed():
    from types import SimpleNamespace

    from workers.node.handlers import validator_handlers

    shards = [SimpleNamespace(blob=bytes(10)), None, SimpleNamespace(blob=bytes(35))]  # None: not parsed
    checks = SimpleNamespace(judged={slot: (b"root", None, shard) for slot, shard in enumerate(shards)})
    assert validator_handlers._judged_bytes(checks) == 45
    assert validator_handlers._SAMPLER_CHECKS.max_items == validator_handlers.SAMPLER_CHECKS_KEPT
    assert validator_handlers._SAMPLER_CHECKS.max_bytes == validator_handlers.SAMPLER_CHECKS_MAX_BYTES


def test_a_context_built_before_a_fork_lends_its_account_to_the_next(monkeypatch):
    # A pool process rebuilds its context (connections do not cross a fork) but must not decrypt
    # the keystore again: the context its worker built before forking lends its account, and
    # only a context of the same config does.
    from types import SimpleNamespace

    from workers.node.config import ENV_VAR
    from workers.node.handlers import context

    config = NodeConfig(redis_url="redis://127.0.0.1:1/0", node_name="lender")
    monkeypatch.setenv(ENV_VAR, config.to_json())
    monkeypatch.setattr(context.NodeContext, "build", classmethod(
        lambda cls, cfg, account=None: SimpleNamespace(config=cfg, account=account or "decrypted")))

    def current_after_fork(before):
        monkeypatch.setattr(context, "_current", {"pid": -1, "ctx": before})  # built in another process
        return context.NodeContext.current().account

    assert current_after_fork(SimpleNamespace(config=config, account="unlocked")) == "unlocked"
    other = NodeConfig(redis_url=config.redis_url, node_name="other")
    assert current_after_fork(SimpleNamespace(config=other, account="theirs")) == "decrypted"
    assert current_after_fork(None) == "decrypted"


def test_a_scheduled_check_reaches_its_worker_ahead_of_later_jobs(monkeypatch):
    """A check waits in its worker until due; sent LATER, it would reach the worker only after a
    burst's queued records, and be late."""
    from types import SimpleNamespace

    import celery

    from workers.node.handlers import common
    from workers.node.queues import celery_app

    sent = []
    ctx = SimpleNamespace(config=SimpleNamespace(visibility_timeout=3600), deployment=SimpleNamespace(registry="r"),
                          view=SimpleNamespace(protocol_time=lambda: 1_000))
    monkeypatch.setattr(celery, "current_task", SimpleNamespace(app="app"))
    monkeypatch.setattr(celery_app, "send_event", lambda app, kwargs, **options: sent.append((app, kwargs, options)))
    common.schedule_check(ctx, "DeadlineReached", "k", {"taskId": 1, "deadline": 1_010})
    common.schedule_check(ctx, "ClaimDeadlineReached", "k2", {"taskId": 1}, countdown=10_000)
    assert [options for _, _, options in sent] == [{"countdown": 11.0, "priority": dispatch.URGENT},
                                                   {"countdown": 1800.0, "priority": dispatch.URGENT}]
    assert sent[0][1] == {"event_key": "k", "event_name": "DeadlineReached", "block": 0, "role": "validator",
                          "args": {"taskId": 1, "deadline": 1_010}}


def test_a_lease_outlives_a_renewal_that_fails(rclient, monkeypatch):
    """A handler runs for many TTLs; one renewal lost to a Redis error must not let its lease lapse
    under it (a redelivered copy would then start beside it)."""
    import redis

    store = jobs.JobStore(rclient, f"test-lease-{uuid.uuid4().hex}")
    real_renew, renewals = store._renew, []

    def renew(**kwargs):
        renewals.append(1)
        if len(renewals) == 1:
            raise redis.ConnectionError("Redis is loading the dataset in memory")
        return real_renew(**kwargs)

    monkeypatch.setattr(store, "_renew", renew)
    _, lease = store.acquire("trainer", "0xabc:0", ttl_s=0.3)
    time.sleep(1.2)  # four TTLs
    assert rclient.get(lease.key) == lease.token.encode() and rclient.pttl(lease.key) > 0
    lease.release()
    assert len(renewals) >= 3 and rclient.get(lease.key) is None


def test_a_run_starts_and_ends_in_one_round_trip_each(rclient):
    """acquire: a done job takes no lease, a held one says for how long, else the record is read
    under the new lease; release with an outcome records it and drops the lease, together."""
    store = jobs.JobStore(rclient, f"test-acquire-{uuid.uuid4().hex}")
    key = "0x" + "cd" * 32 + ":1"
    commands = []
    real = rclient.execute_command

    def counting(*args, **kwargs):
        commands.append(args[0])
        return real(*args, **kwargs)

    store._acquire(keys=["warm", "up"], args=["t", 1000, jobs.DONE])  # load the scripts first
    store._finish(keys=["warm", "up"], args=["t"])
    rclient.execute_command = counting
    try:
        store.start_attempt("sampler", key, "TaskCreated")
        commands.clear()
        record, lease = store.acquire("sampler", key, ttl_s=30)
        assert commands == ["EVALSHA"] and (record.status, record.attempts) == (jobs.RUNNING, 1)
        assert rclient.get(lease.key) == lease.token.encode()
        with pytest.raises(jobs.LeaseHeld, match=r"is held for another (29|30)\.\d s"):
            store.acquire("sampler", key, ttl_s=30)
        commands.clear()
        lease.release(store.job_key("sampler", key), jobs.DONE)
        assert commands == ["EVALSHA"]
    finally:
        rclient.execute_command = real
    assert store.get("sampler", key).status == jobs.DONE and rclient.get(lease.key) is None
    assert store.acquire("sampler", key, ttl_s=30) == (None, None)  # done: no lease taken
    assert rclient.get(lease.key) is None

    other = "0x" + "ce" * 32 + ":2"
    record, mine = store.acquire("validator", other, ttl_s=30)
    assert record == jobs.JobRecord(None, 0, "", "")  # a job with no record yet
    rclient.set(mine.key, "someone else's token")  # the lease lapsed and another delivery took it
    mine.release(store.job_key("validator", other), jobs.QUEUED, "RetryableError: later")
    assert rclient.get(mine.key) == b"someone else's token"  # not ours to drop
    assert store.get("validator", other) == jobs.JobRecord(jobs.QUEUED, 0, "RetryableError: later", "")


def test_a_rounds_transaction_that_meets_an_ended_task_is_not_a_failure():
    """Between a handler's check and its send, the other nodes' votes may complete the task (a
    validator's attest then reverts WrongStatus): nothing is owed any more, so the job is done,
    where it used to be recorded failed. Other reverts still propagate."""
    from types import SimpleNamespace

    from workers.chain.errors import DecodedError, TxReverted
    from workers.node.handlers.common import or_task_ended, send

    def reverting(name):
        def build(call, estimate_at=None):
            raise TxReverted(DecodedError(name))
        return SimpleNamespace(sender=SimpleNamespace(build=build))

    call = SimpleNamespace(fn_name="attest", args=(2, 0, 7, b"salt"))
    assert send(reverting("WrongStatus"), call, done=or_task_ended("AlreadyAttested")) is None
    assert send(reverting("AlreadyAttested"), call, done=or_task_ended("AlreadyAttested")) is None
    with pytest.raises(TxReverted):
        send(reverting("WrongStatus"), call, done=("AlreadyAttested",))
    with pytest.raises(TxReverted):
        send(reverting("NotAValidator"), call, done=or_task_ended("AlreadyAttested"))
