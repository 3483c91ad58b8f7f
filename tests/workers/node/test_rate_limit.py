"""At most rate_per_s new tasks a second per node (plus the burst), across worker processes: here
the sampler's and the validator's claims run on the claim lane's two pool processes and share
one bucket. The bucket's bound holds exactly for the starts it reserves; a handler starts at its
reserved time or, when its pool process is busy or starved of CPU, later (runs delayed together
can then start closer together than the rate; they never start before their reservation)."""
import json
import time

from node_support import Event

from tests.waiting import wait_for


def test_node_rate_limit_holds_across_workers(enqueue, rclient, config):
    batch = f"rate-{time.time()}"
    events = [Event("Count", {"batch": batch}) for _ in range(30)]
    for ev in events:
        enqueue(ev)  # 60 tasks: each event goes to the sampler and the validator queue
    key = f"test:starts:{batch}"
    wait_for(lambda: rclient.llen(key) == 60, timeout=30, interval=0.1)
    starts = sorted((json.loads(x) for x in rclient.lrange(key, 0, -1)), key=lambda s: s["t"])
    ts = [s["t"] for s in starts]
    t0 = ts[0]
    per_second = [sum(1 for t in ts if k <= t - t0 < k + 1) for k in range(int(ts[-1] - t0) + 1)]
    print(f"\nstarts per second {per_second}; workers "
          f"{sorted({s['worker'] for s in starts})}; pool processes {len({s['pid'] for s in starts})}")
    assert {s["worker"] for s in starts} == {"claims@testnode"}
    assert len({s["pid"] for s in starts}) == 2
    # a token bucket lets at most burst + rate*T starts be reserved in any window of T seconds
    reserved = sorted(s["reserved"] for s in starts)
    bound = config.burst + config.rate_per_s * 1.0 + 1  # +1: the worker's clock vs Redis's clock
    for i, t in enumerate(reserved):
        in_window = sum(1 for u in reserved[i:] if u < t + 1.0)
        assert in_window <= bound, (i, in_window)
    late = [s["t"] - s["reserved"] for s in starts]
    print(f"starts after their reservation by {min(late):.3f} .. {max(late):.3f} s")
    assert min(late) >= -0.05, min(late)  # never early (Celery's ETA timer: a few ms)
    span = reserved[-1] - reserved[0]
    floor = (60 - config.burst - 1) / config.rate_per_s  # ~5.4 s
    assert floor * 0.95 < span < floor + 1.0, span  # the reservations run at the rate, no slower
    assert ts[-1] - t0 < floor + 2.5, ts[-1] - t0  # and the starts follow them
