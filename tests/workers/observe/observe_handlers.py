"""Test handlers run by the observability tests' real Celery workers (NodeConfig.handler_modules,
this folder on their PYTHONPATH). "Rollout" does real work, as a sampler does: CartPole-v1 steps
with gymnasium, episode returns, the rollout's bytes written to the node's content store; each
run records its pid and figures in Redis (obs:ran:<key>) for the test to compare with the scrape."""
import json
import logging
import os
import time

import redis

from workers.node.config import NodeConfig
from workers.node.observe import metrics
from workers.node.queues.dispatch import DISPATCH, HandledEvent

log = logging.getLogger("observe_handlers")
_state = {}


def _redis() -> redis.Redis:
    if _state.get("pid") != os.getpid():
        _state.update(pid=os.getpid(), r=redis.Redis.from_url(NodeConfig.from_env().redis_url))
    return _state["r"]


def _store():
    from workers.storage.store import open_store

    # observe_support.STORE_ENV (not imported: it would load web3 into every worker), set by the test
    return open_store(None, os.environ["OBSERVE_STORE_DIR"], observer=metrics.OBSERVER)


@DISPATCH.on("Rollout", "sampler")
def rollout(ev: HandledEvent) -> None:
    import gymnasium as gym

    started = time.time()
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=int(ev.args["seed"]))
    steps, ret, returns, trace = 0, 0.0, [], []
    while steps < int(ev.args["steps"]):
        obs, reward, terminated, truncated, _ = env.step(steps % 2)
        steps, ret = steps + 1, ret + float(reward)
        trace.append(float(obs[0]))
        if terminated or truncated:
            returns.append(ret)
            ret = 0.0
            obs, _ = env.reset(seed=int(ev.args["seed"]) + len(returns))
    env.close()
    blob = json.dumps({"key": ev.key, "trace": trace}).encode()
    _store().put(blob)
    time.sleep(float(ev.args.get("hold", 0)))  # keeps this pool process busy: the other takes the next
    metrics.rolled_out("sampler", "CartPole-v1", steps, time.time() - started, returns)
    log.info("rolled out %d steps, %d episodes", steps, len(returns))
    _redis().rpush(f"obs:ran:{ev.key}", json.dumps({"pid": os.getpid(), "steps": steps, "episodes": len(returns),
                                                    "bytes": len(blob)}))


# Event names unique to this module: DISPATCH is one registry per process, shared (under
# pytest-xdist) with tests/workers/node/node_handlers.py, whose "Flaky" and "Broken" differ.
@DISPATCH.on("FlakyObserved", "sampler")
def flaky(ev: HandledEvent) -> None:
    """Times out on its first run (a retryable error), succeeds on the retry."""
    if _redis().incr(f"obs:flaky:{ev.key}") == 1:
        raise TimeoutError("chain call timed out")


@DISPATCH.on("BrokenObserved", "sampler")
def broken(ev: HandledEvent) -> None:
    log.error("cannot handle this event")
    raise ValueError("bad input")


def idle_watcher(enqueue) -> None:
    """A stand-in for the chain watcher (Supervisor's watcher entry point): runs until killed."""
    while True:
        time.sleep(1)
