"""The workers' warm-up pays torch.optim's first-step imports before the pool forks, leaves no
compute thread behind (forking a process with a live thread pool is unsafe), runs no backward
pass, and on a CUDA build of torch does nothing: a process forked after it must still train, on
the CPU and on CUDA where present (on an H200, a warm-up that initialized CUDA broke both)."""
import json
import subprocess
import sys

from workers.node.processes.supervisor import ROOT
from workers.roles import warmup

SCRIPT = """
import json, sys
import torch
import workers.roles.trainer
backwards = []
real_backward = torch.autograd.backward
torch.autograd.backward = lambda *a, **k: backwards.append(1) or real_backward(*a, **k)
def state():
    threads = int(open("/proc/self/status").read().split("Threads:")[1].split()[0])
    return {"dynamo": "torch._dynamo" in sys.modules, "threads": threads, "backwards": len(backwards)}
before = state()
from workers.roles import warmup
warmup.exercise()
print(json.dumps([before, state()]))
"""

FORKED_ROUND = """
import os, sys
from workers.roles import warmup
warmup.exercise()
pid = os.fork()
if pid == 0:  # a Celery pool process: one PPO round where a trainer node with "auto" would run it
    import dataclasses
    from workers.rl.envs import make_env, space_spec
    from workers.rl.policy import make_policy
    from workers.rl.ppo import PPOConfig, TrainState, train_round
    from workers.rl.rollout import rollout
    env = make_env("CartPole-v1")
    policy = make_policy(space_spec(env))
    env.close()
    episodes = rollout(policy, "CartPole-v1", task_seed=0, round_=0, shard=0, num_steps=64)
    for device in ("cpu", "auto"):
        _, stats = train_round(policy, episodes, PPOConfig(batch_size=32, update_epochs=1, device=device), TrainState())
        print(device, stats["device"], flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_warm_up_imports_the_optimizers_lazy_modules_and_starts_no_thread():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True)
    before, after = json.loads(out.stdout)
    assert not before["dynamo"] and after["threads"] == before["threads"] and after["backwards"] == 0
    assert after["dynamo"] == warmup.fork_safe()  # a CUDA build's workers do not warm up


def test_a_process_forked_after_the_warm_up_trains_on_the_cpu_and_on_cuda_if_present():
    out = subprocess.run([sys.executable, "-c", FORKED_ROUND], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.split()
    assert lines[:2] == ["cpu", "cpu"] and lines[2] == "auto" and lines[3] in ("cpu", "cuda"), out.stdout
