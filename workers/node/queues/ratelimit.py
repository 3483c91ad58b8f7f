"""A token bucket in Redis shared by all of a node's worker processes: how many new training
tasks the node takes on (claims) per second.

Celery's own `rate_limit='10/s'` is enforced by each worker process's consumer separately, so a
node with three role workers would start up to 30 tasks a second. The design value is 10 new tasks
per second per node, so every claim reserves a start time from one bucket in Redis. The bucket
refills at `rate` tokens per second up to `burst`; a caller that finds it empty still takes a
token (the count goes below zero) and is told how long to wait: its reserved start. Callers thus
queue up at exactly `rate` per second, each with its own start time, instead of all polling for
the next token. The refill uses Redis's clock, so workers on hosts with skewed clocks share one
rate.
"""
from __future__ import annotations

import redis

# KEYS[1] bucket hash; ARGV rate, burst[, now]. Returns the seconds until the reserved start (a
# string: Lua numbers become integers on the way out); "0" when a token was there.
_RESERVE = """
redis.replicate_commands()
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local s = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(s[1]) or burst
local ts = tonumber(s[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate) - 1
local wait = 0
if tokens < 0 then wait = -tokens / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate + wait) + 60)
return tostring(wait)
"""


class TokenBucket:
    def __init__(self, client: redis.Redis, key: str, rate: float, burst: int):
        self.client, self.key, self.rate, self.burst = client, key, float(rate), int(burst)
        self._reserve = client.register_script(_RESERVE)

    def reserve(self, now: float | None = None) -> float:
        """Take a token: 0.0 when one was there, else the seconds until the caller's reserved
        start (the caller must wait that long and then start without reserving again). `now`:
        the time to reserve at instead of Redis's clock (tests replay exact timings with it)."""
        args = [self.rate, self.burst] + ([repr(float(now))] if now is not None else [])
        return float(self._reserve(keys=[self.key], args=args))
