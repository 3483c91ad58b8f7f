"""workers/spec.py verification.steps_per_snapshot: absent from the canonical bytes at 0 (every
existing spec keeps its digest), written and read back when set, refused with a reason when bad."""

import json

import pytest

from workers.spec import DEMO_CARTPOLE, SpecError, TaskSpec, from_dict, parse


def test_zero_is_not_written():
    assert b"steps_per_snapshot" not in TaskSpec().to_bytes()
    assert b"steps_per_snapshot" not in DEMO_CARTPOLE.to_bytes()


def test_a_set_interval_is_written_and_read_back():
    spec = TaskSpec(steps_per_snapshot=50)
    assert json.loads(spec.to_bytes())["verification"]["steps_per_snapshot"] == 50
    assert parse(spec.to_bytes()).steps_per_snapshot == 50 and parse(spec.to_bytes()).digest() == spec.digest()
    d = spec.to_dict()
    d["verification"]["steps_per_snapshot"] = 0
    assert from_dict(d).digest() == TaskSpec().digest()  # an explicit 0 is the default


@pytest.mark.parametrize("value,problem", [(-1, "must be in"), (1.5, "must be an integer"), (True, "integer"),
                                           ("50", "integer")])
def test_bad_intervals_are_refused(value, problem):
    d = TaskSpec().to_dict()
    d["verification"]["steps_per_snapshot"] = value
    with pytest.raises(SpecError, match=problem) as error:
        from_dict(d)
    assert error.value.path == "verification.steps_per_snapshot"


def test_snapshots_bound_the_shard_so_dispute_items_name_episode_and_segment():
    with pytest.raises(SpecError, match="steps_per_shard at most 65535"):
        TaskSpec(steps_per_snapshot=50, steps_per_shard=65536)
    assert TaskSpec(steps_per_snapshot=50, steps_per_shard=65535).steps_per_shard == 65535
    assert TaskSpec(steps_per_shard=65536).steps_per_shard == 65536  # no bound without snapshots
