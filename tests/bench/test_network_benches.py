"""bench/latency.py and bench/overhead.py: their bookkeeping on synthetic event timelines, and
latency.py run for real on a small network (2 tasks) to the RESULT line (never the figures)."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]


def load(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


latency = load("latency")
overhead = load("overhead")


def ev(name, **args):
    return SimpleNamespace(name=name, args=args)


def test_dispatch_is_creation_to_first_claim_and_sync_reveal_to_quorum():
    events = [(10.0, ev("TaskCreated", taskId=1)), (10.5, ev("SlotAssigned", taskId=1, role=1)),
              (10.7, ev("SlotAssigned", taskId=1, role=0)),
              (20.0, ev("ResultRevealed", taskId=1, round=0, role=0)),  # a sampler's: not the result
              (30.0, ev("ResultRevealed", taskId=1, round=0, role=1)),  # the trainer's
              (30.2, ev("Attested", taskId=1, round=0)), (30.9, ev("Attested", taskId=1, round=0)),
              (31.5, ev("Attested", taskId=1, round=0))]
    dispatch, sync = latency.latencies(events, num_validators=3)
    assert dispatch == 0.5
    assert sync == [30.9 - 30.0]  # quorum: the 2nd of 3 attestations
    dispatch, sync = latency.latencies(events[:5] + events[5:6], num_validators=3)
    assert sync == []  # no quorum yet: no sample
    # a BLS aggregate carries each signer's vote: two signers reach the quorum of 3 validators at once
    aggregated = events[:5] + [(30.6, ev("AggregateAttested", taskId=1, round=0, signerBitmap=0b101))]
    assert latency.latencies(aggregated, num_validators=3)[1] == [30.6 - 30.0]
    assert latency.latencies(aggregated[:5] + [(30.6, ev("AggregateAttested", taskId=1, round=0, signerBitmap=0b100)),
                                               (31.0, ev("Attested", taskId=1, round=0))], num_validators=3)[1] == [1.0]


def test_the_bench_waits_for_every_task_to_reach_a_final_status():
    import threading
    import time

    endings = latency.Endings()
    endings.record(ev("TaskStatusChanged", taskId=1, status=3))  # Active: not an end
    endings.record(ev("SlotAssigned", taskId=2, status=4))  # not a status change
    assert endings.final == {}
    endings.record(ev("TaskStatusChanged", taskId=1, status=4))  # Completed
    assert endings.wait([1], timeout=0)
    started = time.monotonic()
    assert not endings.wait([1, 2], timeout=0.2)  # task 2 has not ended
    assert time.monotonic() - started >= 0.2
    threading.Timer(0.1, endings.record, [ev("TaskStatusChanged", taskId=2, status=6)]).start()  # Failed
    assert endings.wait([1, 2], timeout=10)
    assert endings.final == {1: latency.Status.COMPLETED, 2: latency.Status.FAILED}


def test_the_pace_of_creations_and_of_first_claims():
    tasks = [[(10.0 + i * 0.5, ev("TaskCreated", taskId=i)), (10.2 + i, ev("SlotAssigned", taskId=i)),
              (10.4 + i, ev("SlotAssigned", taskId=i))] for i in range(5)]
    assert latency.pace(tasks) == "created 5 over 2.00 s (2.0/s); first claims mined 5 over 4.00 s (1.0/s)"
    assert latency.pace([tasks[0]]) == "created 1 over 0.00 s; first claims mined 1 over 0.00 s"
    assert latency.pace([tasks[0][:1]]) == "no samples"


def test_summary_percentiles():
    out = latency.summary("x", [i / 1000 for i in range(1, 101)])  # 1..100 ms
    assert out == {"p50": 50.5, "p95": 95.0, "mean": 50.5}


def test_phase_times_sum_each_phase_over_rounds():
    timeline = [(1.0, "TaskStatusChanged", {"status": 1}), (3.0, "PhaseStarted", {"phase": 0}),
                (4.0, "PhaseStarted", {"phase": 1}), (4.5, "PhaseStarted", {"phase": 2}),
                (7.5, "PhaseStarted", {"phase": 3}), (8.0, "PhaseStarted", {"phase": 4}),
                (9.0, "PhaseStarted", {"phase": 0}), (9.5, "PhaseStarted", {"phase": 1}),
                (10.0, "PhaseStarted", {"phase": 2}), (12.0, "PhaseStarted", {"phase": 3}),
                (12.2, "PhaseStarted", {"phase": 4}), (13.0, "TaskStatusChanged", {"status": 3})]
    times = {k: round(v, 9) for k, v in overhead.phase_times(timeline).items()}
    assert times == {"claims + draw": 3.0, "sample-commit": 1.5, "sample-reveal": 1.0, "train-commit": 5.0,
                     "train-reveal": 0.7, "attest": 1.8}
    assert abs(sum(times.values()) - 13.0) < 1e-9


def test_phase_idle_weights_each_phase_by_its_rounds():
    timeline = [(1.0, "TaskStatusChanged", {"status": 1}), (3.0, "PhaseStarted", {"phase": 0}),
                (4.0, "PhaseStarted", {"phase": 2}), (7.0, "PhaseStarted", {"phase": 4}),
                (8.0, "PhaseStarted", {"phase": 0}), (9.0, "PhaseStarted", {"phase": 2}),
                (10.0, "PhaseStarted", {"phase": 4}), (12.0, "TaskStatusChanged", {"status": 3})]
    started, cpu = 100.0, overhead.CpuIdle()

    def share(t):  # the idle share at t: attest 0.5 in round 0 (1 s) and 0.8 in round 1 (2 s)
        phase = next((p for p, a, b in overhead.phase_spans(timeline) if a <= t < b), None)  # None: the end
        return {"train-commit": 1.0, "attest": 0.5 if t < 8 else 0.8}.get(phase, 0.25)

    idle = 0
    for k in range(121):  # a sample every 0.1 s, 10 jiffies apart
        cpu.samples.append((started + k / 10, idle, 10 * k))
        idle += 10 * share(k / 10)
    got = overhead.phase_idle(timeline, started, cpu)
    want = {"claims + draw": 0.25, "sample-commit": 0.25, "train-commit": 1.0, "attest": (0.5 + 2 * 0.8) / 3}
    assert got.keys() == want.keys() and all(abs(got[p] - want[p]) < 1e-9 for p in want), got
    assert cpu.between(started + 50, started + 60) is None  # no samples there


def test_latency_bench_runs_on_a_small_network():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "latency.py"), "--tasks", "2", "--requesters", "1",
                          "--samplers", "1", "--trainers", "1", "--validators", "3", "--timeout", "240"],
                         capture_output=True, text=True, timeout=420, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    assert "finished" in run.stdout and "{'completed': 2}" in run.stdout
    num = r"\d+\.\d"
    assert re.fullmatch(rf"RESULT dispatch_p50_ms={num} dispatch_mean_ms={num} sync_p50_ms={num} sync_mean_ms={num}",
                        lines[-1]), lines[-1]
