"""The claim lane: claims go to their role's claim queue, a claim starts while every process of its
role's worker is busy with held work, only roles that claim get a lane, and compute workers yield
the CPU to it."""
import os
import subprocess
import sys
import time

from node_support import Event, notes

from tests.waiting import wait_for
from workers.node.config import COMPUTE_NICENESS
from workers.node.processes.supervisor import ROOT
from workers.node.queues.celery_app import HANDLE_EVENT, route_task


def test_claims_are_routed_to_their_roles_claim_queue(enqueue):
    # `enqueue` loaded node_handlers: Count takes on new work, Ping and Busy do not
    assert route_task(HANDLE_EVENT, (), {"role": "sampler", "event_name": "Count"}, {}) == {"queue": "sample.claim"}
    assert route_task(HANDLE_EVENT, (), {"role": "validator", "event_name": "Count"}, {}) == {"queue": "validate.claim"}
    assert route_task(HANDLE_EVENT, (), {"role": "sampler", "event_name": "Busy"}, {}) == {"queue": "sample"}


def test_a_claim_does_not_wait_behind_held_work(enqueue, rclient):
    busy = [Event("Busy", {"sleep": 3}) for _ in range(2)]  # both sampler pool processes (time limit 4 s)
    for ev in busy:
        enqueue(ev)
    wait_for(lambda: all(notes(rclient, "started", ev.key) for ev in busy), timeout=15)
    batch = f"lane-{time.time()}"
    claim = Event("Count", {"batch": batch})
    sent = time.time()
    enqueue(claim)
    wait_for(lambda: rclient.llen(f"test:starts:{batch}") == 2, timeout=15)  # sampler's and validator's
    ran = notes(rclient, "ran", claim.key)
    assert {r["worker"] for r in ran} == {"claims@testnode"}
    wait_for(lambda: all(notes(rclient, "completed", ev.key) for ev in busy), timeout=15)
    first_done = min(n["t"] for ev in busy for n in notes(rclient, "completed", ev.key))
    assert max(r["t"] for r in ran) < first_done, "the claim should have run while the held work was still running"
    print(f"\nclaim ran {max(r['t'] for r in ran) - sent:.3f} s after it was queued, behind held work")


def test_a_vote_goes_ahead_of_the_jobs_queued_before_it(enqueue, rclient):
    # both validator pool processes, freed 1.5 s apart: the first free one must take the vote
    # (two freed at once take the vote and a Ping together, and either may note its start first)
    holds = [Event("Hold", {"sleep": s}) for s in (1.5, 3)]
    for ev in holds:
        enqueue(ev)
    wait_for(lambda: all(notes(rclient, "started", ev.key) for ev in holds), timeout=15)
    later = [Event("Ping", {}) for _ in range(4)]  # what a validator's queue fills with under a burst
    for ev in later:
        enqueue(ev)
    vote = Event("Vote", {})
    enqueue(vote)
    wait_for(lambda: notes(rclient, "ran", vote.key) and all(
        any(n["role"] == "validator" for n in notes(rclient, "ran", ev.key)) for ev in later), timeout=30)
    voted = notes(rclient, "ran", vote.key)[0]["t"]
    pinged = [n["t"] for ev in later for n in notes(rclient, "ran", ev.key) if n["role"] == "validator"]
    assert voted < min(pinged), "the vote should have been taken before the jobs queued ahead of it"


def test_only_claiming_roles_get_a_claim_lane(tmp_path):
    # A fresh interpreter: this one's dispatch table also holds the test handlers. With the node's
    # own handlers, samplers and trainers claim slots and validators are drawn.
    script = f"""
from workers.node.config import NodeConfig
from workers.node.handlers.table import HANDLER_MODULES
from workers.node.processes.supervisor import Supervisor
config = NodeConfig(redis_url="redis://127.0.0.1:1/0", node_name="lanes", handler_modules=HANDLER_MODULES)
for roles in [("validator",), ("sampler", "trainer", "validator")]:
    sup = Supervisor(config, {str(tmp_path)!r}, roles)
    claims = sup.children.get("claims")
    print(sorted(sup.children), claims and claims.argv[claims.argv.index("-Q") + 1],
          claims and claims.argv[claims.argv.index("-n") + 1])
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "['validator'] None None",
        "['claims', 'sampler', 'trainer', 'validator'] sample.claim,train.claim claims@lanes",
    ]


def test_samplers_and_validators_yield_the_cpu_to_the_claim_lane_and_the_trainer_does_not(node):
    def niceness(name):
        return os.getpriority(os.PRIO_PROCESS, node.children[name].pid)

    def session_niceness(name):
        """Its autogroup's nice value (Linux's scheduler shares the CPU between sessions first,
        and each worker is a session of its own), None on a kernel without autogroups."""
        try:
            with open(f"/proc/{node.children[name].pid}/autogroup") as autogroup:
                return int(autogroup.read().split()[-1])
        except FileNotFoundError:
            return None

    lowered = {"sampler": 10, "trainer": 0, "validator": 10}
    assert COMPUTE_NICENESS == lowered
    for role in ("sampler", "trainer", "validator"):
        assert niceness(role) == niceness("claims") + lowered[role], role
        if session_niceness("claims") is not None:
            assert session_niceness(role) == session_niceness("claims") + lowered[role], role


def test_the_claim_lane_and_the_watcher_load_no_torch():
    # What a claim lane and a watcher import (the handler modules, the node's context) and what a
    # claim computes (the task's spec, parsed and checked) must not load torch: ~2 s of CPU and
    # ~200 MB in each of those processes, on every node.
    script = """
import sys
from workers.node.handlers.table import HANDLER_MODULES
import importlib
for name in HANDLER_MODULES + ("workers.node.handlers.context", "workers.node.processes.watcher_runner"):
    importlib.import_module(name)
from workers.spec import DEMO_CARTPOLE, parse
parse(DEMO_CARTPOLE.to_bytes(), digest=DEMO_CARTPOLE.digest())
print("torch" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
