"""A metrics failure never breaks the node's work: with its multiprocess folder gone, a process
still stores content and runs its handler bookkeeping; the failure is logged once."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = """
import logging, sys
logging.basicConfig(level=logging.WARNING, stream=sys.stdout, format="%(name)s %(message)s")
from workers.node.observe import metrics
from workers.storage.store import EmbeddedStore

store = EmbeddedStore(sys.argv[1], observer=metrics.OBSERVER)
cid = store.put(b"work")                      # records decentrl_store_bytes: fails, store works
assert store.get(cid) == b"work"
with metrics.handler_running("sampler", "E", 0.0):
    pass
for _ in range(3):
    metrics.OBSERVER.tx_sent("commit")
print("work done")
"""


def test_the_work_goes_on_when_metrics_cannot_be_written(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "gone")}
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "store")], env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "work done"
    warnings = [x for x in lines if x.startswith("workers.node.observe.metrics metrics: ")]
    assert any("stored failed (FileNotFoundError" in x for x in warnings), lines
    assert sum("tx_sent failed" in x for x in warnings) == 1  # once per kind
    assert all("the node carries on without it" in x for x in warnings)


def test_reap_dead_marks_only_gone_processes(tmp_path):
    from workers.node.observe import metrics

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    for name in (f"gauge_livesum_{gone}.db", f"gauge_livesum_{os.getpid()}.db", f"counter_{gone}.db"):
        (tmp_path / name).write_bytes(b"")
    assert metrics.reap_dead(tmp_path) == [int(gone)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"gauge_livesum_{os.getpid()}.db",
                                                                 f"counter_{gone}.db"])
