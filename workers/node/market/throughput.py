"""A node's rates per kind of work (rollout, replay, update) for a spec's env (its configuration
included: env_of) and architecture: a calibration the first time (workers.node.market.calibrate),
then a moving average of its own finished jobs (MarketBook.observe), kept in
NODE_DIR/market.sqlite."""
from __future__ import annotations

import hashlib
import json
import logging
import time

from workers.node.market.book import MarketBook

log = logging.getLogger(__name__)


def arch_of(spec) -> str:
    """The policy architecture a rate holds for ("64x64-tanh"; a CNN's kind first: "nature_cnn-512-relu")."""
    sizes = "x".join(str(h) for h in spec.hidden_sizes) + f"-{spec.activation}"
    return sizes if spec.policy_kind == "mlp" else f"{spec.policy_kind}-{sizes}"


def env_of(spec) -> str:
    """The environment a rate holds for: the bare id, or, when the spec sets kwargs, wrappers or
    snapshots, the id with its wrappers' names and a digest of the whole configuration
    ("ALE/Breakout-v5 atari_preprocessing+frame_stack+clip_reward #1a2b3c4d"). Each changes the work
    a step costs (a stack of 8 frames copies twice the pixels of 4; a snapshot every 8 steps
    serialises the simulator 32 times a 256-step shard), so a rate measured for one configuration
    never prices another: a requester cannot have a node claim heavy work at a light one's speed."""
    env = spec.env_config()
    if not (env.kwargs or env.wrappers or spec.steps_per_snapshot):
        return spec.env_id
    config = {"kwargs": dict(env.kwargs), "wrappers": [w.to_dict() for w in env.wrappers],
              "steps_per_snapshot": spec.steps_per_snapshot}
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:8]
    names = "+".join(env.wrapper_names())
    return f"{spec.env_id} {names} #{digest}" if names else f"{spec.env_id} #{digest}"


def book(ctx) -> MarketBook:
    if "market_book" not in ctx._cache:
        ctx._cache["market_book"] = MarketBook(ctx.node_dir)
    return ctx._cache["market_book"]


def rates(ctx, spec, kinds, calibrate: bool = True) -> dict[str, float] | None:
    """kind -> per second for `spec`'s env (env_of) and architecture; the missing ones calibrated
    first (without `calibrate`: None then)."""
    the_book, env, arch = book(ctx), env_of(spec), arch_of(spec)
    found = {kind: the_book.rate(kind, env, arch) for kind in kinds}
    missing = [kind for kind, per_s in found.items() if per_s is None]
    if missing:
        if not calibrate:
            return None
        from workers.node.market.calibrate import calibrate

        started = time.perf_counter()
        measured = calibrate(spec, missing)  # only these: each costs seconds on a heavy env
        log.info("calibrated %s %s in %.3f s: %s", env, arch, time.perf_counter() - started,
                 ", ".join(f"{k} {v:,.0f}/s" for k, v in measured.items()))
        for kind, per_s in measured.items():
            the_book.calibrated(kind, env, arch, per_s)
        found = {kind: the_book.rate(kind, env, arch) for kind in kinds}
    return found


def observe(ctx, kind: str, spec, amount: float, seconds: float) -> None:
    """A finished job's `amount` steps (samples) of `kind` in `seconds` refine the node's rate. A
    metrics-like record: a failure to write it is logged, never the job's failure."""
    try:
        book(ctx).observe(kind, env_of(spec), arch_of(spec), amount, seconds)
    except Exception as exc:  # noqa: BLE001 - the rate stays as it was; the work is done
        log.warning("could not record the %s rate: %s: %s", kind, type(exc).__name__, exc)
