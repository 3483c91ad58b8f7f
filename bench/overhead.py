"""What the network costs: the demo task through the network against the same PPO run locally.

    .venv/bin/python bench/overhead.py [--rounds 5]

Network: `decentrl demo`'s network (workers.demo.run: anvil, embedded Redis and store, 2 samplers,
1 trainer and 3 validators as Celery worker processes) runs the demo task (workers.spec.
DEMO_CARTPOLE, --rounds rounds). Its wall time is from the requester's submission to the event
that ends the task: claims, the validator draw, every round's commits, reveals, storage,
verification and attestations. The network's start-up (processes importing torch) and the demo's
evaluations of the checkpoints (10 episodes after each round, 100 at the end: display, not work
the task needs, and the local run does none) are not counted; the per-round one is not run at all
(live_eval=False), since it would take a core from the nodes and delay this observer's clock.

Local: the same rounds computed in this one process with the same code and no chain, Redis,
Celery or store: for each round, each sampler's shard (workers.roles.sampler.sample_shard) one
after the other, then the trainer's update (workers.roles.trainer.train_round) on them. Like a
node's worker, the process first warms its compute stack (workers.roles.warmup), uncounted. The
same task id and seeds, so it computes the very same checkpoints (checked: the final checkpoint
root must equal the network's). It runs twice, before the network starts and after it stopped,
and the reference is the mean of the two: a shared VM's speed drifts by a quarter over minutes,
and a reference taken on one side of the network's run only would carry that drift into the ratio.

Prints both wall times, where the network's time went (per phase, summed over rounds, with the
share of the machine's CPU time that stayed idle in it: /proc/stat, Linux only) and ends with
`RESULT overhead_ratio=<network / local>`. Goal (issue 3): <= 1.25.

Note: the validators (3 of them, sharing this machine's cores with everything else) replay the
challenged episodes of each shard and re-execute only the challenged transitions of the
trainer's trace (issue 4 §1: 16 of the demo's 320 gradient steps a round), not the whole update;
the trainer records its trace (80 states a round), which the local run also does, and stores it
in the node's content store, which the local run does not (each state written and fsync'd before
the commitment that binds it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workers.demo import run as demo_run  # noqa: E402
from workers.protocol import Status  # noqa: E402


class CpuIdle:
    """The machine's idle CPU time over time: /proc/stat's idle and iowait jiffies against all,
    sampled every `every_s` seconds in a thread while it runs (nothing where there is no
    /proc/stat)."""

    def __init__(self, every_s: float = 0.05):
        self.every_s = every_s
        self.samples: list[tuple[float, int, int]] = []  # (time.time(), idle jiffies, all jiffies)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="cpu idle sampler")

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while True:
            try:
                with open("/proc/stat") as stat:
                    jiffies = [int(v) for v in stat.readline().split()[1:]]
            except (OSError, ValueError):
                return
            self.samples.append((time.time(), jiffies[3] + jiffies[4], sum(jiffies)))
            if self._stop.wait(self.every_s):
                return

    def between(self, start: float, end: float) -> float | None:
        """The idle share of CPU time from `start` to `end` (time.time()), None with fewer than
        two samples in between."""
        inside = [s for s in self.samples if start <= s[0] <= end]
        if len(inside) < 2 or inside[-1][2] == inside[0][2]:
            return None
        return (inside[-1][1] - inside[0][1]) / (inside[-1][2] - inside[0][2])


def network_run(rounds: int, cpu: CpuIdle | None = None) -> tuple[float, float, object, bytes]:
    """(wall seconds, time.time() at the submission, the Demo, the final checkpoint root);
    `cpu` samples the machine's idle time while the task runs."""
    reports = Path(tempfile.mkdtemp(prefix="decentrl-overhead-"))  # the demo's report folder: unused here
    demo = demo_run.Demo(reports, keep=False, task={"num_rounds": rounds}, live_eval=False)
    try:
        demo.start_network()
        demo.start_nodes()
        started = time.time()
        demo.submit()
        with cpu or nullcontext():
            demo.follow(started)
        wall = demo.timeline[-1][0]  # the last event of the task: it ended there
        task = demo.dep.state.functions.taskOf(demo.task_id).call()
        if Status(task.status) != Status.COMPLETED:
            raise SystemExit(f"the network's task ended {Status(task.status).name.lower()}, not completed")
        return wall, started, demo, bytes(task.checkpointRoot)
    finally:
        demo.stop()
        shutil.rmtree(reports, ignore_errors=True)


def phase_spans(timeline: list) -> list[tuple[str, float, float]]:
    """(phase, start, end) in the timeline's seconds: the claims and draw until the first phase,
    then each phase from its start to the next state change."""
    marks = [(t, demo_run.PHASE_NAMES[int(a["phase"])]) for t, name, a in timeline if name == "PhaseStarted"]
    ends = [t for t, name, _ in timeline if name in ("PhaseStarted", "TaskStatusChanged")]
    spans = [("claims + draw", 0.0, marks[0][0] if marks else timeline[-1][0])]
    for t, phase in marks:
        later = [u for u in ends if u > t]
        spans.append((phase, t, later[0] if later else timeline[-1][0]))
    return spans


def phase_times(timeline: list) -> dict[str, float]:
    """Seconds spent from each phase's start to the next state change, summed over rounds."""
    out = defaultdict(float)
    for phase, start, end in phase_spans(timeline):
        out[phase] += end - start
    return dict(out)


def phase_idle(timeline: list, started: float, cpu: CpuIdle) -> dict[str, float]:
    """Each phase's idle share of CPU time over its rounds, weighted by their lengths (phases too
    short for two samples left out)."""
    idle, length = defaultdict(float), defaultdict(float)
    for phase, start, end in phase_spans(timeline):
        share = cpu.between(started + start, started + end)
        if share is not None:
            idle[phase] += share * (end - start)
            length[phase] += end - start
    return {phase: idle[phase] / length[phase] for phase in idle if length[phase] > 0}


def local_run(spec, task_id: int, rounds: int, samplers: int) -> tuple[float, bytes]:
    from workers.roles import warmup
    from workers.roles.local_round import run_rounds

    # The nodes' workers pay torch's first-use costs (~1.5 s, in the first update) while they
    # start, which the network's time does not count; this process pays them before its clock too.
    warmup.exercise()
    started = time.time()
    for done in run_rounds(spec, task_id, rounds, slots=range(samplers)):
        root = done.checkpoint.root
    return time.time() - started, root


FIRST_TASK_ID = 1
"""The id of a fresh deployment's first task, the network run's: the local run before it uses it."""


def main() -> int:
    from workers.spec import DEMO_CARTPOLE

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=demo_run.TASK["num_rounds"])
    args = parser.parse_args()

    samplers = demo_run.TASK["num_samplers"]
    before_wall, before_root = local_run(DEMO_CARTPOLE, FIRST_TASK_ID, args.rounds, samplers)
    cpu = CpuIdle()
    net_wall, started, demo, net_root = network_run(args.rounds, cpu)
    idle = phase_idle(demo.timeline, started, cpu)
    if (demo.spec, demo.task_id, demo.task["num_samplers"]) != (DEMO_CARTPOLE, FIRST_TASK_ID, samplers):
        raise SystemExit(f"the network ran task {demo.task_id} with {demo.task['num_samplers']} samplers, not "
                         f"the first task of the demo's spec with {samplers} that the local run before it computed")
    after_wall, local_root = local_run(demo.spec, demo.task_id, args.rounds, samplers)
    local_wall = (before_wall + after_wall) / 2
    same = local_root == net_root == before_root
    print(f"\nnetwork   {net_wall:7.1f} s  ({args.rounds} rounds, {samplers} samplers, 1 trainer, "
          f"{demo.task['num_validators']} validators; submission to settlement)")
    for phase, seconds in phase_times(demo.timeline).items():
        share = f"   CPU idle {idle[phase]:4.0%}" if phase in idle else ""
        print(f"  {phase:<14}{seconds:7.1f} s{share}")
    print(f"local     {local_wall:7.1f} s  (the same rounds in one process: {before_wall:.1f} s before the "
          f"network, {after_wall:.1f} s after it)")
    print(f"checkpoint roots {'equal' if same else 'DIFFER'}: network 0x{net_root.hex()[:16]}.., "
          f"local 0x{before_root.hex()[:16]}.. and 0x{local_root.hex()[:16]}..")
    if not same:
        print("the local run did not reproduce the network's checkpoints: the comparison is void")
        return 1
    print(f"RESULT overhead_ratio={net_wall / local_wall:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
