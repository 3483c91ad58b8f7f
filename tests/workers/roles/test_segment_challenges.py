"""workers/roles/challenges.py with snapshots: a challenge draws segments across the shard's
episodes, k of them whatever the episodes' lengths, and a dispute item names episode and segment."""

import collections

import pytest

from workers.roles.challenges import (
    SAMPLER_DOMAIN,
    challenged_indices,
    challenged_segments,
    item_segment,
    segment_item,
)

SEGMENTS = [10, 1, 4, 3]  # segments of each episode of a shard (18 in all)


def test_k_distinct_existing_segments_are_drawn():
    picked = challenged_segments(b"s" * 32, 1, 2, 3, SEGMENTS, 4)
    assert len(picked) == len(set(picked)) == 4 and picked == sorted(picked)
    assert all(0 <= j < SEGMENTS[i] for i, j in picked)
    assert challenged_segments(b"s" * 32, 1, 2, 3, SEGMENTS, 4) == picked  # deterministic in the seed
    assert len(challenged_segments(b"s" * 32, 1, 2, 3, SEGMENTS, 100)) == sum(SEGMENTS)


def test_every_segment_is_equally_likely_whatever_its_episode():
    counts = collections.Counter()
    draws = 600
    for n in range(draws):
        counts.update(challenged_segments(n.to_bytes(32, "big"), 1, 2, 3, SEGMENTS, 2))
    expected = draws * 2 / sum(SEGMENTS)  # 66.7
    assert len(counts) == sum(SEGMENTS)
    assert all(0.6 * expected < c < 1.4 * expected for c in counts.values()), counts


def test_segment_draws_are_not_the_episode_draws():
    seed = b"q" * 32
    episodes = challenged_indices(seed, 1, 2, 3, 18, 4, SAMPLER_DOMAIN)
    flat = [sum(SEGMENTS[:i]) + j for i, j in challenged_segments(seed, 1, 2, 3, SEGMENTS, 4)]
    assert flat != episodes  # another domain


def test_a_named_segment_is_added_to_the_draw():
    picked = challenged_segments(b"s" * 32, 1, 2, 3, SEGMENTS, 1)
    named = (2, 3) if (2, 3) not in picked else (0, 9)
    also = challenged_segments(b"s" * 32, 1, 2, 3, SEGMENTS, 1, also=(segment_item(*named), segment_item(1, 5)))
    assert also == sorted(picked + [named])  # (1, 5) does not exist: ignored


def test_dispute_items_name_episode_and_segment():
    assert segment_item(7, 0) == 7  # segment 0 is the episode's own item
    assert item_segment(segment_item(65535, 65535)) == (65535, 65535)
    assert segment_item(3, 2) < 2**32
    with pytest.raises(ValueError):
        segment_item(2**16, 0)
