"""The workers' warm-up pays torch.optim's first-step imports before the pool forks, and leaves
no compute thread behind (forking a process with a live thread pool is unsafe)."""
import json
import subprocess
import sys

from workers.node.supervisor import ROOT

SCRIPT = """
import json, sys
import workers.roles.trainer
def state():
    threads = int(open("/proc/self/status").read().split("Threads:")[1].split()[0])
    return {"dynamo": "torch._dynamo" in sys.modules, "threads": threads}
before = state()
from workers.roles import warmup
warmup.exercise()
print(json.dumps([before, state()]))
"""


def test_warm_up_imports_the_optimizers_lazy_modules_and_starts_no_thread():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True)
    before, after = json.loads(out.stdout)
    assert not before["dynamo"] and after["dynamo"]
    assert after["threads"] == before["threads"]
