"""Which parts of a submission a validator re-executes: derived from its secret challenge seed.

Item i of n scores keccak256(domain ++ challenge_seed ++ uint256(task_id) ++ uint256(round) ++
uint256(slot) ++ uint256(i)); the k = min(k, n) lowest scores (as big-endian integers) are
challenged: k distinct items, drawn without replacement, uniformly among the n-choose-k subsets
for a seed nobody else knows. The domain separates what is challenged: a sampler's episodes
(SAMPLER_DOMAIN, slot = the sampler's slot), or, when the task's episodes carry snapshots, the
segments of a sampler's episodes (SAMPLER_SEGMENT_DOMAIN, `challenged_segments`: item i is the
i-th segment counting through the episodes in index order), the transitions of a trainer's trace
(TRAINER_STEPS_DOMAIN) and its pre-update data chunks (TRAINER_DATA_DOMAIN), both with slot 0.

A dispute names one item in a uint32 (IDisputeManager's evidence item): an episode i as i, a
segment j of episode i as `segment_item(i, j)` = i + j * 2**16 (segment 0 of episode i is i), so a
task with snapshots has at most 2**16 - 1 steps a shard (workers.spec).

The seed is each validator's own secret (os.urandom(32), kept in its secrets DB), so the prover
cannot know at commit time which items will be checked; SPECIFICATION.md "Verification" states
this source's limits and those of public alternatives.
"""

from __future__ import annotations

from workers.hashing import keccak256 as keccak

SAMPLER_DOMAIN = b"decentrl.challenge.v1"
TRAINER_STEPS_DOMAIN = b"decentrl.challenge.trainer.steps.v1"
TRAINER_DATA_DOMAIN = b"decentrl.challenge.trainer.data.v1"
SAMPLER_SEGMENT_DOMAIN = b"decentrl.challenge.segment.v1"
SEGMENT_SHIFT = 16


def _word(x: int) -> bytes:
    return int(x).to_bytes(32, "big")


def challenged_indices(challenge_seed: bytes, task_id: int, round_: int, slot: int, num_items: int, k: int,
                       domain: bytes = SAMPLER_DOMAIN, also: tuple[int, ...] = ()) -> list[int]:
    """The challenged items (module doc), ascending, with the items `also` (those a dispute names as
    its evidence: a juror re-executes them whatever its own draw) that exist."""
    prefix = domain + bytes(challenge_seed) + _word(task_id) + _word(round_) + _word(slot)
    scores = sorted((keccak(prefix + _word(i)), i) for i in range(num_items))
    drawn = {i for _, i in scores[:min(k, num_items)]}
    return sorted(drawn | {i for i in also if 0 <= i < num_items})


def segment_item(episode: int, segment: int) -> int:
    """The dispute item naming segment `segment` of episode `episode` (module doc)."""
    if not (0 <= episode < 1 << SEGMENT_SHIFT and 0 <= segment < 1 << SEGMENT_SHIFT):
        raise ValueError(f"episode {episode} and segment {segment} must each be below {1 << SEGMENT_SHIFT}")
    return episode | segment << SEGMENT_SHIFT


def item_segment(item: int) -> tuple[int, int]:
    """(episode, segment) a dispute item names (`segment_item`'s inverse)."""
    return item & ((1 << SEGMENT_SHIFT) - 1), item >> SEGMENT_SHIFT


def challenged_segments(challenge_seed: bytes, task_id: int, round_: int, slot: int, segments: list[int],
                        k: int, also: tuple[int, ...] = ()) -> list[tuple[int, int]]:
    """The challenged (episode, segment) pairs of a shard whose episode i has segments[i]
    segments: k of all its segments, drawn as `challenged_indices` draws items (module doc), with
    the segments the dispute items `also` name that exist; in episode, then segment order."""
    units = [(i, j) for i, n in enumerate(segments) for j in range(n)]
    position = {unit: n for n, unit in enumerate(units)}
    named = tuple(position[item_segment(x)] for x in also if item_segment(x) in position)
    return [units[n] for n in challenged_indices(challenge_seed, task_id, round_, slot, len(units), k,
                                                 SAMPLER_SEGMENT_DOMAIN, named)]
