"""The same event enqueued twice (or again after it is done) runs its handler once."""
import time

from node_support import Event, notes

from tests.waiting import wait_for
from workers.node.queues import jobs
from workers.node.queues.tasks import node_state


def test_duplicate_enqueue_runs_handler_once(enqueue, rclient, config):
    store, _ = node_state(config)
    ev = Event("Count", {"batch": "idem", "sleep": 0.3})
    assert enqueue(ev) == ["sample", "validate"]
    assert enqueue(ev) == ["sample", "validate"]  # not done yet: sent again, must not rerun
    for role in ("sampler", "validator"):
        wait_for(lambda role=role: store.get(role, ev.key).status == jobs.DONE, timeout=15)
    time.sleep(1.5)  # let the duplicates (waiting out the lease, or already done) finish
    ran = notes(rclient, "ran", ev.key)
    assert sorted(n["role"] for n in ran) == ["sampler", "validator"]
    for role in ("sampler", "validator"):
        rec = store.get(role, ev.key)
        assert (rec.status, rec.attempts) == (jobs.DONE, 1)
    assert enqueue(ev) == []  # done for every role: nothing is sent
    time.sleep(0.3)
    assert len(notes(rclient, "ran", ev.key)) == 2
