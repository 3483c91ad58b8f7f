"""Which parts of a submission a validator re-executes: derived from its secret challenge seed.

Item i of n scores keccak256(domain ++ challenge_seed ++ uint256(task_id) ++ uint256(round) ++
uint256(slot) ++ uint256(i)); the k = min(k, n) lowest scores (as big-endian integers) are
challenged: k distinct items, drawn without replacement, uniformly among the n-choose-k subsets
for a seed nobody else knows. The domain separates what is challenged: a sampler's episodes
(SAMPLER_DOMAIN, slot = the sampler's slot), the transitions of a trainer's trace
(TRAINER_STEPS_DOMAIN) and its pre-update data chunks (TRAINER_DATA_DOMAIN), both with slot 0.

The seed is each validator's own secret (os.urandom(32), kept in its secrets DB), so the prover
cannot know at commit time which items will be checked; SPECIFICATION.md "Verification" states
this source's limits and those of public alternatives.
"""

from __future__ import annotations

from workers.hashing import keccak256 as keccak

SAMPLER_DOMAIN = b"decentrl.challenge.v1"
TRAINER_STEPS_DOMAIN = b"decentrl.challenge.trainer.steps.v1"
TRAINER_DATA_DOMAIN = b"decentrl.challenge.trainer.data.v1"


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
