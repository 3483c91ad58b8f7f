"""workers.node.handlers.encrypted_inputs: the initial bundle a node builds from a decrypted policy is what
the roles start from: with the spec's own initial policy it trains exactly as no bundle does (only
`prev` differs), and a policy of another architecture is refused with a clear error."""

import pytest

from workers.node.handlers.encrypted_inputs import BadInputs, initial_bundle_of
from workers.rl.policy import to_bytes
from workers.roles.sampler import initial_policy, sample_shard
from workers.roles.trainer import round_start, train_round, unbundle_checkpoint
from workers.spec import DEMO_CARTPOLE, TaskSpec

SPEC = TaskSpec(steps_per_shard=128)


def test_initial_bundle_of_the_seed_policy_trains_like_no_bundle():
    bundle = initial_bundle_of(SPEC, 3, to_bytes(initial_policy(SPEC)))
    shard = sample_shard(SPEC, 3, 0, 0, unbundle_checkpoint(bundle).policy_bytes)
    assert shard.root == sample_shard(SPEC, 3, 0, 0, None).root
    shards = [(0, shard.root, shard.blob)]
    with_bundle = train_round(SPEC, 3, 0, bundle, shards, device="cpu")
    without = train_round(SPEC, 3, 0, None, shards, device="cpu")
    assert with_bundle.policy_bytes == without.policy_bytes
    assert with_bundle.train_state_bytes == without.train_state_bytes
    assert with_bundle.meta["prev"] == unbundle_checkpoint(bundle).root.hex() and without.meta["prev"] is None
    assert round_start(SPEC, bundle)[2] == unbundle_checkpoint(bundle).root


def test_initial_bundle_is_deterministic():
    policy = to_bytes(initial_policy(SPEC))
    assert initial_bundle_of(SPEC, 3, policy) == initial_bundle_of(SPEC, 3, policy)
    assert initial_bundle_of(SPEC, 3, policy) != initial_bundle_of(SPEC, 4, policy)


def test_policy_of_another_architecture_is_refused():
    other = TaskSpec(hidden_sizes=(8,))
    with pytest.raises(BadInputs, match="task 3: the encrypted initial policy cannot be used: .*architecture"):
        initial_bundle_of(DEMO_CARTPOLE, 3, to_bytes(initial_policy(other)))
