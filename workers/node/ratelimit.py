"""A token bucket in Redis shared by all of a node's worker processes.

Celery's own `rate_limit='10/s'` is enforced by each worker process's consumer separately, so a
node with three role workers would start up to 30 tasks a second. The design value is 10 per
second per node, so every worker takes a token from one bucket in Redis before it starts a task.
The bucket refills at `rate` tokens per second up to `burst`; the refill uses Redis's clock, so
workers on hosts with skewed clocks still share one rate.
"""
from __future__ import annotations

import time

import redis

# KEYS[1] bucket hash; ARGV rate, burst. Returns seconds to wait (string: Lua numbers become
# integers on the way out), "0" when a token was taken.
_TAKE = """
redis.replicate_commands()
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local s = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(s[1]) or burst
local ts = tonumber(s[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 60)
return tostring(wait)
"""


class TokenBucket:
    def __init__(self, client: redis.Redis, key: str, rate: float, burst: int):
        self.client, self.key, self.rate, self.burst = client, key, float(rate), int(burst)
        self._take = client.register_script(_TAKE)

    def try_take(self) -> float:
        """Take a token if one is there: 0.0, else the seconds until one will be."""
        return float(self._take(keys=[self.key], args=[self.rate, self.burst]))

    def take(self, timeout: float | None = None) -> float:
        """Block until a token is taken; returns the seconds waited. TimeoutError past timeout."""
        start = time.monotonic()
        while True:
            wait = self.try_take()
            waited = time.monotonic() - start
            if wait == 0.0:
                return waited
            if timeout is not None and waited + wait > timeout:
                raise TimeoutError(f"no rate token within {timeout} s ({self.key})")
            time.sleep(wait)
