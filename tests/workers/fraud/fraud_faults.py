"""The dishonest variants of a node's work that the fraud matrix plays, each a drop-in for the
honest function it replaces (same signature). Every sampler fault the matrix plays touches every
episode of the shard, so each challenged episode exposes it: detection does not hinge on which
episodes a validator picks. The single-episode variants (`fabricated_rewards_in`,
`altered_observations_in`) are what bench/verify.py measures against SPECIFICATION.md's
detection formula."""
from __future__ import annotations

import dataclasses
import math
import random
import struct

from eth_utils import keccak

from workers.framing import canonical, frame
from workers.merkle import merkle_root
from workers.rl.policy import digest
from workers.rl.rollout import rollout
from workers.roles import sampler as sampler_role
from workers.roles import validator as validator_role
from workers.roles.determinism import single_thread

HONEST_SHARD = sampler_role.sample_shard
HONEST_VERIFY = validator_role.verify_round
SHARD = "workers.roles.sampler.sample_shard"
VERIFY = "workers.roles.validator.verify_round"


def _tampered(edit, pick=None, some=None):
    """A sample_shard that rolls out honestly, edits every episode (or only episode pick(n) of the
    n, or the episodes in the set some(n)) and re-bundles (so the blob matches the root it
    commits: the lie is in the content, not in the packaging)."""
    def sample_shard(spec, task_id, round_, shard, policy_bytes):
        honest = HONEST_SHARD(spec, task_id, round_, shard, policy_bytes)
        n = len(honest.episodes)
        chosen = range(n) if pick is None and some is None else {pick(n)} if some is None else some(n)
        return sampler_role.bundle_shard(task_id, round_, shard,
                                         [edit(ep) if i in chosen else ep for i, ep in enumerate(honest.episodes)])
    return sample_shard


def _doubled_rewards(ep):
    return dataclasses.replace(ep, rewards=ep.rewards * 2.0)


def _shifted_observations(ep):
    return dataclasses.replace(ep, obs=ep.obs + 0.01)


fabricated_rewards = _tampered(_doubled_rewards)
altered_observations = _tampered(_shifted_observations)


def fabricated_rewards_in(pick):
    """Doubles the rewards of episode pick(n) only."""
    return _tampered(_doubled_rewards, pick)


def altered_observations_in(pick):
    """Shifts the observations of episode pick(n) only."""
    return _tampered(_shifted_observations, pick)


def share_of(fraction: float, rng: random.Random):
    """some(n) for _tampered: ceil(fraction * n) of the n items, at least one, drawn with `rng`."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], not {fraction}")
    return lambda n: set(rng.sample(range(n), min(n, max(1, math.ceil(fraction * n)))))


def fabricated_rewards_of(fraction: float, rng: random.Random):
    """Doubles the rewards of a random `fraction` of the shard's episodes (at least one)."""
    return _tampered(_doubled_rewards, some=share_of(fraction, rng))


def altered_observations_of(fraction: float, rng: random.Random):
    """Shifts the observations of a random `fraction` of the shard's episodes (at least one)."""
    return _tampered(_shifted_observations, some=share_of(fraction, rng))


def off_policy_actions(spec, task_id, round_, shard, policy_bytes):
    """Rolls out with another policy (a different initialisation) and labels the episodes with
    the round's policy: actions that are not the seeded draws of the committed policy."""
    other = sampler_role.initial_policy(dataclasses.replace(spec, seed=spec.seed + 1))
    with single_thread():
        episodes = rollout(other, spec.env_id, task_seed=spec.seed, round_=round_, shard=shard,
                           num_steps=spec.steps_per_shard)
    label = digest(sampler_role.round_policy(spec, policy_bytes))
    return sampler_role.bundle_shard(task_id, round_, shard, [dataclasses.replace(ep, policy=label) for ep in episodes])


def stale_policy(spec, task_id, round_, shard, policy_bytes):
    """Rolls out honestly, but with the task's initial policy instead of the round's checkpoint."""
    return HONEST_SHARD(spec, task_id, round_, shard, None)


def root_of_nothing(spec, task_id, round_, shard, policy_bytes):
    """Stores the honest blob but commits a root that no Merkle proof from it can reach."""
    honest = HONEST_SHARD(spec, task_id, round_, shard, policy_bytes)
    return dataclasses.replace(honest, root=keccak(b"not the root of these episodes" + honest.root))


def undecodable_episode(spec, task_id, round_, shard, policy_bytes):
    """Rolls out honestly, then cuts the last episode's bytes short and stores the shard under the
    root of what it stores (blob and root agree; one episode does not decode): a sampler betting
    that a validator's or the trainer's parser crashes, so that they miss their deadlines."""
    honest = HONEST_SHARD(spec, task_id, round_, shard, policy_bytes)
    items = [*honest.episode_bytes[:-1], honest.episode_bytes[-1][:-7]]
    root = merkle_root(items)
    first = honest.episodes[0]
    header = {"env_id": first.env_id, "episodes": len(items), "format": sampler_role.FORMAT,
              "policy": first.policy.hex(), "root": root.hex(), "round": round_, "shard": shard,
              "steps": sum(ep.steps for ep in honest.episodes), "task_id": task_id, "task_seed": first.task_seed}
    blob = frame(sampler_role.MAGIC, sampler_role.VERSION, canonical(header),
                 *(struct.pack("<I", len(item)) + item for item in items))
    return sampler_role.ShardResult(task_id, round_, shard, honest.episodes, items, root, blob)


def accept_everything(*args, **kwargs):
    """A validator that checks as usual and then accepts every submission."""
    verdict = HONEST_VERIFY(*args, **kwargs)
    yes = validator_role.Judgement(True, "accepted without regard to the evidence")
    return validator_role.RoundVerdict({slot: yes for slot in verdict.samplers},
                                       None if verdict.trainer is None else yes)


def reject_everything(*args, **kwargs):
    """A validator that checks as usual and then rejects every submission."""
    verdict = HONEST_VERIFY(*args, **kwargs)
    no = validator_role.Judgement(False, "rejected without regard to the evidence")
    return validator_role.RoundVerdict({slot: no for slot in verdict.samplers},
                                       None if verdict.trainer is None else no)
