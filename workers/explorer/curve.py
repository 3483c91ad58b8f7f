"""A task's learning curve, from what its nodes published to the content store (IPFS or the
embedded store), each object checked against its CID by the store and against the root the chain
holds for it:

- rollout return: per round, the mean return of the finished episodes in the samplers' revealed
  shards (verified against each revealed root). Round r's samplers roll out the checkpoint of
  round r-1 (round 0: the spec's initial policy), so this is the policy's return before the round.
- eval return: per round, the checkpoint the round finalized (verified against its
  checkpointRoot), evaluated for `eval_episodes` deterministic episodes (seed 10000, as the demo
  does); skipped when `eval_episodes` is 0 or the round kept the previous checkpoint.

What cannot be read or does not verify is left out of the curve and named in `errors`. Results
are cached by CID (content never changes), so a refreshing explorer evaluates each checkpoint once."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from workers.explorer.history import TaskHistory
from workers.protocol import Role

EVAL_SEED = 10_000


@dataclass
class CurvePoint:
    round: int
    env_steps: int  # the samplers' environment steps up to and including this round
    rollout_return: float | None
    episodes: int  # finished episodes behind rollout_return
    eval_return: float | None = None
    checkpoint_cid: str | None = None


@dataclass
class Curve:
    task_id: int
    env_id: str | None
    target_return: float | None
    eval_episodes: int
    points: list[CurvePoint] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


FAILED_FETCH_TTL_S = 60.0
"""How long a blob the store could not give is not asked for again: the page asks every 3 s, and
an IPFS node that lacks a blob takes its whole timeout (30 s) to say so, with the explorer's
other requests waiting."""


class CurveCache:
    """Shard summaries and checkpoint evaluations by CID, shared across requests, and the blobs
    the store could not give lately."""

    def __init__(self, clock=time.monotonic):
        # (cid, root) -> (steps, finished returns, the shard's (task, round, slot))
        self.shards: dict[tuple[str, bytes], tuple[int, list[float], tuple[int, int, int]]] = {}
        self.evals: dict[tuple[str, int], float] = {}  # (cid, episodes) -> mean return
        self.eval_lock = threading.Lock()  # one evaluation at a time: torch on one thread
        self.failed: dict[str, tuple[float, Exception]] = {}  # cid -> (when, the store's error)
        self.clock = clock

    def fetch(self, store, cid: str) -> bytes:
        """store.get(cid), except that a CID the store failed to give within FAILED_FETCH_TTL_S
        fails again at once with the same error."""
        from workers.storage import StorageError

        known = self.failed.get(cid)
        if known is not None and self.clock() - known[0] < FAILED_FETCH_TTL_S:
            raise known[1]
        try:
            blob = store.get(cid)
        except StorageError as error:
            self.failed[cid] = (self.clock(), error)
            raise
        self.failed.pop(cid, None)
        return blob


def learning_curve(history: TaskHistory, store, eval_episodes: int = 10, cache: CurveCache | None = None) -> Curve:
    from workers.spec import SpecError, parse
    from workers.storage import StorageError

    cache = cache or CurveCache()
    try:
        spec = parse(cache.fetch(store, history.spec_cid), digest=history.spec_digest)
    except (StorageError, SpecError, ValueError) as exc:  # ValueError: not a CID at all
        return Curve(history.task_id, None, None, eval_episodes, errors=[f"spec {history.spec_cid}: {exc}"])
    curve = Curve(history.task_id, spec.env_id, spec.target_return, eval_episodes)
    steps, last_checkpoint = 0, None
    for r in history.rounds:
        returns, read_any = [], False
        for sub in r.submissions:
            if sub.role != Role.SAMPLER or not sub.revealed:
                continue
            try:
                shard_steps, finished = _shard(store, cache, sub.cid, sub.root, (history.task_id, r.round, sub.slot))
            except Exception as exc:  # noqa: BLE001 - one unreadable shard is named, the rest still count
                curve.errors.append(f"round {r.round + 1} sampler {sub.slot} shard {sub.cid}: {exc}")
                continue
            read_any = True
            steps += shard_steps
            returns += finished
        if not read_any and not r.finalized:
            continue
        point = CurvePoint(r.round + 1, steps, sum(returns) / len(returns) if returns else None, len(returns))
        if r.finalized and r.checkpoint_cid and r.checkpoint_cid != last_checkpoint:
            last_checkpoint = point.checkpoint_cid = r.checkpoint_cid
            if eval_episodes:
                try:
                    point.eval_return = _evaluate(store, cache, spec, r.checkpoint_cid, r.checkpoint_root,
                                                  eval_episodes)
                except Exception as exc:  # noqa: BLE001 - named in the curve's errors
                    curve.errors.append(f"round {r.round + 1} checkpoint {r.checkpoint_cid}: {exc}")
        curve.points.append(point)
    return curve


def _shard(store, cache: CurveCache, cid: str, root: bytes, where: tuple[int, int, int]) -> tuple[int, list[float]]:
    """(steps, finished returns) of the shard revealed as (cid, root) for (task, round, slot): the
    blob must match the root and be that task's, round's and slot's shard, as the trainer checks
    before it trains on it (a copied or replayed shard is not counted)."""
    known = cache.shards.get((cid, bytes(root)))
    if known is None:
        from workers.roles.sampler import verify_shard

        shard = verify_shard(cache.fetch(store, cid), root)
        known = (shard.steps, [ep.total_reward for ep in shard.episodes if ep.end != "cut"],
                 (shard.task_id, shard.round, shard.shard))
        cache.shards[(cid, bytes(root))] = known
    steps, returns, coordinates = known
    if coordinates != where:
        raise ValueError(f"the shard is task {coordinates[0]} round {coordinates[1] + 1} slot {coordinates[2]}'s, "
                         f"not task {where[0]} round {where[1] + 1} slot {where[2]}'s")
    return steps, returns


def _evaluate(store, cache: CurveCache, spec, cid: str, root: bytes, episodes: int) -> float:
    with cache.eval_lock:
        known = cache.evals.get((cid, episodes))
        if known is not None:
            return known
        import torch

        from workers.rl.evaluate import evaluate
        from workers.roles.sampler import round_policy
        from workers.roles.trainer import verify_checkpoint

        torch.set_num_threads(1)
        result = verify_checkpoint(cache.fetch(store, cid), root)
        mean = evaluate(round_policy(spec, result.policy_bytes), spec.env_config(), episodes=episodes,
                        seed=EVAL_SEED).mean_return
        cache.evals[(cid, episodes)] = mean
        return mean
