"""Honest rounds in one process: the samplers' and the trainer's work of a round, without chain,
store or Celery.

This is what the network computes for a task, so it is the reference the benchmarks compare the
network against (bench/overhead.py: same checkpoints, by root) and what the validators' tests
and benchmarks verify (each round carries what a validator is given: the revealed shards, the
checkpoint and its stored blobs by CID)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from workers.roles import sampler, trainer
from workers.spec import TaskSpec
from workers.storage import cid as cids


@dataclass(frozen=True)
class LocalRound:
    """One round's honest work."""

    round: int
    prev: bytes | None = field(repr=False)
    """The checkpoint bundle the round started from (None: round 0, the spec's initial policy)."""
    shards: dict[int, sampler.ShardResult] = field(repr=False)
    """By sampler slot."""
    checkpoint: trainer.CheckpointResult

    @property
    def revealed(self) -> list[tuple[int, bytes, bytes]]:
        """(slot, root, blob) of every shard, by slot: what the samplers reveal and the trainer
        and validators are given."""
        return [(slot, s.root, s.blob) for slot, s in sorted(self.shards.items())]

    @cached_property
    def fetch(self) -> Callable[[str], bytes | None]:
        """The trainer's stored blobs (trace states and trace) by CID, as a store's `get` (their CIDs
        computed once: a bench asks for it once per validator)."""
        return {cids.compute(b): b for b in self.checkpoint.stored}.get


def run_round(spec: TaskSpec, task_id: int, round_: int, prev: bytes | None,
              slots: Iterable[int] = (0, 1), device: str = "cpu") -> LocalRound:
    """Samples every slot's shard under the round's policy (from `prev`, the previous checkpoint
    bundle) and trains the round on them (`device` as trainer.train_round)."""
    policy_bytes = None if prev is None else trainer.unbundle_checkpoint(prev).policy_bytes
    shards = {slot: sampler.sample_shard(spec, task_id, round_, slot, policy_bytes) for slot in slots}
    checkpoint = trainer.train_round(spec, task_id, round_, prev,
                                     [(slot, s.root, s.blob) for slot, s in shards.items()], device=device)
    return LocalRound(round_, prev, shards, checkpoint)


def run_rounds(spec: TaskSpec, task_id: int, rounds: int, slots: Iterable[int] = (0, 1),
               device: str = "cpu") -> Iterator[LocalRound]:
    """Rounds 0..rounds-1, each starting from the previous one's checkpoint."""
    slots, prev = tuple(slots), None
    for round_ in range(rounds):
        done = run_round(spec, task_id, round_, prev, slots, device)
        prev = done.checkpoint.bundle
        yield done
