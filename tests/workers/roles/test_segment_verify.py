"""workers/roles/validator.py verify_sampler on a task with snapshots: an honest shard is accepted
after replaying k segments (k * steps_per_snapshot env steps at most, whatever the episodes'
length); a tampered segment is rejected naming its episode and segment, and a dispute's segment is
replayed whatever the draw; a forced sampler's plant is found in every challenged segment;
episodes without the spec's snapshots are rejected unchallenged."""

import dataclasses

import pytest

from tests.workers.roles.conftest import SMALL, TASK_ID
from workers.protocol import Evidence
from workers.rl.episode import segment_bounds
from workers.rl.rollout import derive_seeds
from workers.roles import sampler
from workers.roles.challenges import challenged_segments, item_segment, segment_item
from workers.roles.plants import plant_shard
from workers.roles.validator import verify_sampler

SEED = b"\x07" * 32
SPEC = dataclasses.replace(SMALL, steps_per_snapshot=8, challenges_per_sampler=2)
ROUND, SLOT = 0, 1


@pytest.fixture(scope="module")
def shard():
    return sampler.sample_shard(SPEC, TASK_ID, ROUND, SLOT, None)


def judge(spec, root, blob, also=()):
    policy = sampler.round_policy(spec, None)
    return verify_sampler(spec, TASK_ID, ROUND, SLOT, root, blob, policy, SEED, also=also)[0]


def rebundled(shard, episodes):
    fake = sampler.bundle_shard(TASK_ID, ROUND, SLOT, episodes)
    return fake.root, fake.blob


def test_an_honest_shard_is_accepted_after_k_segments(shard):
    assert all(len(ep.snapshots) == ep.segments for ep in shard.episodes)
    j = judge(SPEC, shard.root, shard.blob)
    assert j.accepted and "2 replayed segments" in j.reason, j


def test_a_tampered_segment_is_rejected_naming_episode_and_segment(shard):
    picked = challenged_segments(SEED, TASK_ID, ROUND, SLOT, [ep.segments for ep in shard.episodes], 2)
    i, seg = picked[-1]
    episodes = list(shard.episodes)
    start, _ = segment_bounds(episodes[i], seg)
    rewards = episodes[i].rewards.copy()
    rewards[start] += 0.5
    episodes[i] = dataclasses.replace(episodes[i], rewards=rewards)
    j = judge(SPEC, *rebundled(shard, episodes))
    assert not j.accepted and not j.planted
    assert j.evidence == (Evidence.EPISODE, segment_item(i, seg)) and f"episode {i} segment {seg}" in j.reason


def test_a_disputes_segment_is_replayed_whatever_the_draw(shard):
    picked = set(challenged_segments(SEED, TASK_ID, ROUND, SLOT, [ep.segments for ep in shard.episodes], 2))
    i, seg = next((i, s) for i, ep in enumerate(shard.episodes) for s in range(ep.segments) if (i, s) not in picked)
    episodes = list(shard.episodes)
    logp = episodes[i].logp.copy()
    logp[segment_bounds(episodes[i], seg)[0]] -= 0.5
    episodes[i] = dataclasses.replace(episodes[i], logp=logp)
    root, blob = rebundled(shard, episodes)
    assert judge(SPEC, root, blob).accepted  # not drawn: unseen
    j = judge(SPEC, root, blob, also=(segment_item(i, seg),))
    assert not j.accepted and item_segment(j.evidence[1]) == (i, seg)


def test_a_forced_samplers_plant_is_found_in_every_challenged_segment(shard):
    planted = plant_shard(shard)
    j = judge(SPEC, planted.root, planted.blob)
    assert j.planted and not j.accepted and "last reward" in j.reason, j


def test_episodes_without_the_specs_snapshots_are_rejected(shard):
    plain = sampler.sample_shard(SMALL, TASK_ID, ROUND, SLOT, None)
    j = judge(dataclasses.replace(SPEC, challenges_per_sampler=SMALL.challenges_per_sampler), plain.root, plain.blob)
    assert not j.accepted and "snapshot every 0 steps" in j.reason
    j = judge(SMALL, shard.root, shard.blob)
    assert not j.accepted and "snapshot every 8 steps, the spec asks for 0" in j.reason


def test_an_empty_episode_is_rejected_unchallenged(shard):
    episodes = list(shard.episodes)
    first = episodes[0]
    seeds = derive_seeds(SPEC.seed, ROUND, SLOT, len(episodes))
    empty = dataclasses.replace(first, index=len(episodes), env_seed=seeds[0], sample_seed=seeds[1],
                                obs=first.obs[:1], actions=first.actions[:0],
                                rewards=first.rewards[:0], terminated=first.terminated[:0],
                                truncated=first.truncated[:0], logp=first.logp[:0], values=first.values[:0],
                                end="cut", snapshots=first.snapshots[:1])
    last = dataclasses.replace(episodes[-1], end="terminated")  # (a replay would see it; the headers do not)
    j = judge(SPEC, *rebundled(shard, [*episodes[:-1], last, empty]))
    assert not j.accepted and "has no steps" in j.reason


def test_a_validators_steps_do_not_grow_with_the_episodes(monkeypatch):
    """HalfCheetah-v5's 1000-step episodes: k = 4 challenged segments of 50 steps are 200 replayed
    steps of a 2000-step shard; whole-episode challenges replay all 2000."""
    from workers.roles import validator

    replayed = []

    def counted(real):
        def replay(*args, **kwargs):
            replayed.append(real(*args, **kwargs))
            return replayed[-1]
        return replay

    for name in ("replay_segment", "replay_episode"):
        monkeypatch.setattr(validator, name, counted(getattr(validator, name)))
    long = dataclasses.replace(SPEC, env_id="HalfCheetah-v5", steps_per_shard=2000, steps_per_snapshot=50,
                               challenges_per_sampler=4, target_return=0.0)
    for spec, most in ((long, 4 * 50), (dataclasses.replace(long, steps_per_snapshot=0), 2000)):
        shard = sampler.sample_shard(spec, TASK_ID, ROUND, SLOT, None)
        assert [ep.steps for ep in shard.episodes] == [1000, 1000]
        replayed.clear()
        assert judge(spec, shard.root, shard.blob).accepted
        assert sum(v.steps_checked for v in replayed) == most
