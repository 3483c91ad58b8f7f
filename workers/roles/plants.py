"""The forced-error plant (SPECIFICATION.md 5.5.3): a known, one-ulp change a forced worker makes
to its work, so that a validator that really re-executes the work finds it and one that accepts
without checking cannot tell it is there.

The plant on a float32 is `plant_float32`: the lowest mantissa bit flipped (`bits ^ 1`), an
involution. It is training-neutral (one ulp of one value) and visible only to re-execution:

* Sampler: in every episode of its shard, element 0 of the LAST observation (obs[-1][0]) is
  planted (`plant_episode`, `plant_shard`). No step acts on the last observation, so actions,
  log-probs and values are unchanged; only replaying the episode in the env to its end shows it.
  The trainer trains on what was published, planted or not.
* Trainer: after every leaf of gradient steps, element 0 of the policy's first parameter tensor is
  planted in the live model and training continues from it (`plant_policy_`), so every stored
  trace state j >= 1 (the checkpoint included) is planted. Re-executing transition j from stored
  state j then gives stored state j + 1 except exactly that element: `planted_policy_bytes` of
  the re-run's policy bytes is stored state j + 1's policy (the train state is untouched).

The float32 and episode plants are workers.rl.plants' (the replay that recognises them is in that
layer); recognition is in workers.rl.replay (`is_planted_obs`) and workers.roles.trace_check.
"""

from __future__ import annotations

import torch

from workers.rl.plants import plant_episode
from workers.rl.policy import ActorCritic, from_bytes, to_bytes


def plant_shard(shard):
    """The ShardResult (workers.roles.sampler) of `shard`'s episodes, each planted (`plant_episode`):
    a new root and blob, what a forced sampler commits, stores and reveals instead."""
    from workers.roles.sampler import bundle_shard  # sampler imports more of the roles than this needs

    return bundle_shard(shard.task_id, shard.round, shard.shard, [plant_episode(ep) for ep in shard.episodes])


def _first_parameter(policy: ActorCritic) -> torch.Tensor:
    return next(policy.parameters())


def plant_policy_(policy: ActorCritic) -> ActorCritic:
    """Plants element 0 of the policy's first parameter tensor in place (on whatever device it is;
    the optimizer's reference to it stays valid, so training continues from the planted value).
    A forced trainer calls it after every leaf of gradient steps. Returns `policy`."""
    with torch.no_grad():
        flat = _first_parameter(policy).data.view(-1)
        flat[:1].view(torch.int32).bitwise_xor_(1)
    return policy


def planted_policy_bytes(policy_bytes: bytes) -> bytes:
    """The policy bytes (workers.rl.policy.to_bytes) of `policy_bytes`'s policy with
    `plant_policy_` applied. Malformed if they are not a policy's."""
    return to_bytes(plant_policy_(from_bytes(policy_bytes)))


def inconsistent_plant(what: str, planted: list[int], exact: list[int]) -> tuple[str, int]:
    """(reason, item to name as evidence) for work whose challenged items are partly planted and
    partly exact: the first item of the fewer kind (a juror's own challenges most likely draw
    the other kind, so it sees the mix whatever its draw)."""
    item = planted[0] if len(planted) <= len(exact) else exact[0]
    return (f"inconsistent plant: {what} {planted} carry the forced-error plant, {what} {exact} "
            f"re-execute exactly (a forced worker plants in every item, an unforced one in none)"), item
