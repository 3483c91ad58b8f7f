"""The watcher plugs in as an import path: the supervisor runs it in its own process with an
enqueue(event) sink, and stops it by pid."""
import json
import uuid

from node_support import HERE, notes

from tests.waiting import wait_for
from workers.node.processes.supervisor import Supervisor


def test_watcher_entry_point_enqueues_into_the_node(node, config, rclient, tmp_path):
    key = "0x" + uuid.uuid4().hex * 2 + ":3"
    sup = Supervisor(config, tmp_path, roles=("validator",), watcher="node_handlers:watch",
                     env={"PYTHONPATH": str(HERE), "TEST_WATCHER_EVENT_KEY": key})
    # only the watcher: the session node's workers serve the queues
    del sup.children["validator"]
    with sup:
        queued = wait_for(lambda: rclient.lrange(f"test:watcher:{key}", 0, -1), timeout=20)
        assert json.loads(queued[0]) == ["validate"]  # the watcher's node runs validator only
        ran = wait_for(lambda: notes(rclient, "ran", key), timeout=10)
        assert [n["role"] for n in ran] == ["validator"]
        watcher = sup.children["watcher"]
        assert sup.health()["watcher"]["alive"]
    assert not watcher.alive() and watcher.returncode is not None
