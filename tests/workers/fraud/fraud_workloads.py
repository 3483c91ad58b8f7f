"""The fraud matrix's workloads beyond classic control, and their cheats: one reduced preset of each
environment family's shipped ones, each verified segment by segment from committed snapshots.

HALFCHEETAH: the HalfCheetah-v5 preset (MuJoCo; observation and reward normalisation carried by
the checkpoint and the train state), reduced to 200 steps a shard: its episodes run 1,000 steps,
so each shard is one cut episode of 8 segments of 25 steps, each verified from its committed
snapshot. MINATAR: the MinAtar Breakout preset (10x10x4 uint8 planes, the MinAtar CNN), reduced
the same way; its episodes are short, so a shard holds several. HOPPER: the Hopper-v5 preset
reduced the same way; it falls within a hundred steps, so a shard holds several episodes that
end inside or at the end of a segment. ATARI: the Atari Breakout preset (ale-py, its
preprocessing and frame-stack wrappers, the Nature CNN), reduced further (its round is the
costliest: env resets load the ROM, the CNN is large).

Each cheat here tampers with every segment (or every training step, or the statistics every state
carries), so any challenge a validator draws exposes it; cheats confined to one segment are what
SPECIFICATION.md's detection table and bench/verify.py cover."""
from __future__ import annotations

import dataclasses

from fraud_faults import _tampered
from fraud_trainer_faults import HONEST_TRAIN

from tests.workers.roles.trace_fakes import rebundle
from workers.rl.policy import digest, from_bytes, to_bytes
from workers.rl.rollout import rollout
from workers.roles import sampler as sampler_role
from workers.roles.determinism import single_thread
from workers.roles.trainer import round_start
from workers.spec import preset_spec


def _reduced(env_id: str, steps_per_shard: int = 200, steps_per_snapshot: int = 25, batch_size: int = 50,
             update_epochs: int = 2):
    spec = preset_spec(env_id, seed=11)
    return dataclasses.replace(spec, steps_per_shard=steps_per_shard, steps_per_snapshot=steps_per_snapshot,
                               challenges_per_sampler=2, challenges_per_trainer=2, steps_per_leaf=2,
                               ppo=dataclasses.replace(spec.ppo, batch_size=batch_size, update_epochs=update_epochs))


HALFCHEETAH = _reduced("HalfCheetah-v5")
"""16 gradient steps a round (2 x 200 samples / 50 x 2 epochs) in 8 leaves of 2, 2 re-executed."""
MINATAR = _reduced("MinAtar/Breakout-v1")
HOPPER = _reduced("Hopper-v5")
"""Hopper falls within 20 to 90 steps under the initial policy, so each 200-step shard of task seeds
0-2 holds 4 to 7 episodes of 1 to 4 segments: each ended by the fall (seed 2's second shard once
right at a segment's end, step 25), the last one cut by the budget; the episode boundaries that
a validator's segment draw and the snapshot joins must respect."""
ATARI = dataclasses.replace(_reduced("ALE/Breakout-v5", steps_per_shard=64, steps_per_snapshot=16, batch_size=32,
                                     update_epochs=1), hidden_sizes=(32,), challenges_per_sampler=1)
"""The preset's Atari Breakout (atari_preprocessing, 4 stacked 84x84 frames, clipped rewards) through
the Nature CNN's three convolutions, with 32 hidden units after them where the preset has 512: a
trace state of ~2 MB rather than ~20 MB. 4 segments of 16 steps a shard (one cut episode), one
replayed by each validator (a segment's replay makes an ALE env and resets it with its seed: two
ROM loads, ~0.2 s); 4 gradient steps a round (2 x 64 samples / 32) in 2 leaves of 2, both
re-executed. A round writes ~10 MB (2 shards of 2 MB, trace states, checkpoint)."""
WORKLOADS = {"halfcheetah": HALFCHEETAH, "minatar": MINATAR, "hopper": HOPPER, "atari": ATARI}


def _shifted_joints(ep):
    return dataclasses.replace(ep, obs=ep.obs + 0.01)


def _flipped_pixels(ep):
    obs = ep.obs.copy()
    obs[..., 0] ^= 255  # the first plane (MinAtar's paddle) inverted in every frame
    return dataclasses.replace(ep, obs=obs)


def _inverted_newest_frame(ep):
    obs = ep.obs.copy()
    obs[..., -1] ^= 255  # the newest frame of every stack inverted
    return dataclasses.replace(ep, obs=obs)


def _snapshots_reversed(ep):
    return dataclasses.replace(ep, snapshots=tuple(reversed(ep.snapshots)))


altered_observations = _tampered(_shifted_joints)
"""MuJoCo observations off by 0.01 at every step, the snapshots as rolled."""
flipped_pixels = _tampered(_flipped_pixels)
"""A plane of every MinAtar frame inverted, the snapshots as rolled."""
inverted_frames = _tampered(_inverted_newest_frame)
"""The newest frame of every Atari frame stack inverted, the snapshots as rolled."""
forged_snapshots = _tampered(_snapshots_reversed)
"""Every committed snapshot but a middle one moved to another segment (the steps as rolled): each
segment starts from a state it did not start from, or ends off its successor's snapshot."""


def off_policy_actions(spec, task_id, round_, shard, policy_bytes):
    """Rolls out (snapshots included) with another initialisation of the policy and labels the
    episodes with the round's policy."""
    other = sampler_role.initial_policy(dataclasses.replace(spec, seed=spec.seed + 1))
    with single_thread():
        episodes = rollout(other, spec.env_config(), task_seed=spec.seed, round_=round_, shard=shard,
                           num_steps=spec.steps_per_shard, steps_per_snapshot=spec.steps_per_snapshot)
    label = digest(sampler_role.round_policy(spec, policy_bytes))
    return sampler_role.bundle_shard(task_id, round_, shard, [dataclasses.replace(ep, policy=label) for ep in episodes])


def stale_observation_statistics(spec, task_id, round_, prev_bundle, shards, **kwargs):
    """Trains honestly, then ships a checkpoint whose observation statistics are the ones the
    round started with (not updated by the round's observations): the next round's samplers
    would normalise with them."""
    honest = HONEST_TRAIN(spec, task_id, round_, prev_bundle, shards, **kwargs)
    policy = from_bytes(honest.policy_bytes)
    policy.set_obs_stats_(round_start(spec, prev_bundle)[0].obs_stats())
    return dataclasses.replace(rebundle(honest, policy_bytes=to_bytes(policy)), stats=honest.stats)
