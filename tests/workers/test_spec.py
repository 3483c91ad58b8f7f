"""workers/spec.py: canonical bytes and digest, round trips, and a SpecError naming the field for
every way a spec can be wrong."""

import dataclasses
import json

import pytest
from eth_utils import keccak

from workers.rl.ppo import PPOConfig
from workers.rl.presets import CARTPOLE
from workers.spec import DEMO_CARTPOLE, SpecError, TaskSpec, from_dict, parse


def spec_dict(**changes):
    """The demo spec as a dict, with `changes` applied at dotted paths ("ppo.gamma")."""
    d = json.loads(DEMO_CARTPOLE.to_bytes())
    for path, value in changes.items():
        *parents, key = path.split("__")
        node = d
        for p in parents:
            node = node[p]
        node[key] = value
    return d


def error_of(d):
    with pytest.raises(SpecError) as info:
        from_dict(d)
    return info.value


def test_round_trip_and_canonical_bytes():
    data = DEMO_CARTPOLE.to_bytes()
    assert parse(data) == DEMO_CARTPOLE
    assert parse(data).to_bytes() == data
    assert data == json.dumps(json.loads(data), sort_keys=True, separators=(",", ":")).encode()
    assert b" " not in data and b'"device"' not in data
    assert b'"final_learning_rate":0.00025' in data and b'"target_return":475.0' in data


def test_digest_is_keccak_of_the_bytes_and_stable():
    assert DEMO_CARTPOLE.digest() == keccak(DEMO_CARTPOLE.to_bytes())
    # pinned: a change to the canonical form or the demo spec must be deliberate
    assert DEMO_CARTPOLE.digest().hex() == "68d315a507172806d6313324d99894573d3f9658a6b3b9955139d10e638bafaa"
    assert dataclasses.replace(DEMO_CARTPOLE, seed=2).digest() != DEMO_CARTPOLE.digest()


def test_one_value_one_spelling():
    a = dataclasses.replace(DEMO_CARTPOLE, target_return=475, logp_tolerance=1e-5)
    d = spec_dict(evaluation__target_return=475, verification__logp_tolerance=0.00001)
    assert parse(json.dumps(d, indent=2).encode()) == a
    assert b'"logp_tolerance":1e-05' in a.to_bytes() and b'"target_return":475.0' in a.to_bytes()


def test_defaults_carry_the_design_ppo_values():
    spec = TaskSpec()
    assert spec.ppo == PPOConfig() and parse(spec.to_bytes()).ppo == PPOConfig()
    assert (spec.ppo.batch_size, spec.ppo.learning_rate, spec.ppo.final_learning_rate) == (256, 1e-4, 1e-5)


def test_ppo_keys_may_be_omitted_for_defaults():
    d = spec_dict()
    d["ppo"] = {"batch_size": 64}
    assert from_dict(d).ppo == PPOConfig(batch_size=64)


def test_demo_is_built_on_the_cartpole_preset():
    s = DEMO_CARTPOLE
    assert (s.env_id, s.hidden_sizes, s.activation) == \
        (CARTPOLE.env_id, CARTPOLE.policy.hidden_sizes, CARTPOLE.policy.activation)
    assert s.ppo == dataclasses.replace(CARTPOLE.ppo, update_epochs=20, clip_coef=0.3)
    assert s.policy_config().seed == s.seed


def test_parse_checks_the_digest_first():
    data = DEMO_CARTPOLE.to_bytes()
    assert parse(data, digest=DEMO_CARTPOLE.digest()) == DEMO_CARTPOLE
    with pytest.raises(SpecError, match=r"^\(bytes\): keccak256 is .* specDigest is 11"):
        parse(data + b" ", digest=DEMO_CARTPOLE.digest()[:0] + bytes.fromhex("11" * 32))


@pytest.mark.parametrize("data, message", [
    (b"\xff", "not valid UTF-8 JSON"),
    (b"{", "not valid UTF-8 JSON"),
    (b'{"seed": NaN}', "NaN is not allowed"),
    (b"[]", "^the spec must be a JSON object"),
    (b"[" * 100_000 + b"]" * 100_000, "nests deeper than 16 levels"),
    (b'{"a": "' + b"[" * 100 + b'"}', "^a: unknown key"),  # brackets in a string do not nest
    (b" " * (1 << 20) + b"{}", "a spec is at most 1,048,576"),
])
def test_bytes_that_are_not_a_json_object(data, message):
    with pytest.raises(SpecError, match=message):
        parse(data)


def test_unknown_env_id_names_close_matches():
    e = error_of(spec_dict(env_id="CartPole-v9"))
    assert e.path == "env_id" and "unknown environment id 'CartPole-v9'" in str(e) and "CartPole-v1" in str(e)


def test_wrong_version():
    assert "reads spec version 1, got 2" in str(error_of(spec_dict(version=2)))
    assert error_of(spec_dict(version=True)).path == "version"


def test_unknown_and_missing_keys():
    d = spec_dict()
    d["bounty"] = 5
    assert str(error_of(d)).startswith("bounty: unknown key; allowed keys: version, env_id")
    e = error_of(spec_dict(ppo__device="cuda"))
    assert e.path == "ppo.device" and "each trainer node picks its own device" in str(e)
    e = error_of(spec_dict(evaluation__extra=1))
    assert e.path == "evaluation.extra"
    d = spec_dict()
    del d["rollout"]["steps_per_shard"]
    assert str(error_of(d)) == "rollout.steps_per_shard: missing"


@pytest.mark.parametrize("path, value, message", [
    ("seed", "1", "must be an integer, got str '1'"),
    ("seed", 1.0, "must be an integer, got float"),
    ("seed", -1, "must be in [0, 9007199254740992), got -1"),
    ("seed", 2**53, "must be in [0"),
    ("policy__hidden_sizes", [], "must be a non-empty list"),
    ("policy__hidden_sizes", 64, "must be a non-empty list"),
    ("policy__activation", "gelu", "must be one of relu, tanh, got 'gelu'"),
    ("policy__activation", 3, "must be a string"),
    ("policy__init_log_std", "0", "must be a number, got str"),
    ("rollout__steps_per_shard", 0, "must be in [1, 10000001), got 0"),
    ("ppo__batch_size", 0, "batch_size must be a positive integer, got 0"),
    ("ppo__batch_size", True, "must be an integer, got bool"),
    ("ppo__gamma", 1.5, "gamma and gae_lambda must be in [0, 1]"),
    ("ppo__learning_rate", 0, "learning_rate must be > 0"),
    ("ppo__target_kl", -0.1, "target_kl must be > 0 or None"),
    ("ppo__clip_vloss", 1, "must be true or false, got 1"),
    ("ppo__vf_coef", None, "must be a number, got NoneType"),
    ("evaluation__episodes", 0, "must be in [1, 10001), got 0"),
    ("evaluation__target_return", 1e999, "must be finite"),
    ("verification__challenges_per_sampler", 0, "must be in [1, 10001)"),
    ("verification__logp_tolerance", 0.0, "must be in (0, 0.1], got 0.0"),
    ("verification__logp_tolerance", 1.0, "must be in (0, 0.1]"),
    ("verification__challenges_per_trainer", 0, "must be in [1, 10001)"),
    ("verification__steps_per_leaf", 0, "must be in [1, 10001), got 0"),
    ("verification__steps_per_leaf", 1.5, "must be an integer, got float"),
    ("policy__hidden_sizes", [65536, 65536, 65536], "8,589,934,592 weights between the hidden layers"),
    ("ppo__update_epochs", 1001, "must be at most 1000, got 1001"),
    ("ppo__learning_rate", 1e300, "must be at most 1.0"),
    ("ppo__final_learning_rate", 2.0, "must be at most 1.0"),
])
def test_bad_values_name_the_field(path, value, message):
    e = error_of(spec_dict(**{path: value}))
    dotted = path.replace("__", ".")
    assert e.path.startswith(dotted) and message in str(e), str(e)


def test_hidden_size_error_names_the_index():
    assert error_of(spec_dict(policy__hidden_sizes=[64, 0])).path == "policy.hidden_sizes[1]"


def test_constructor_validates_too():
    with pytest.raises(SpecError, match=r'^ppo.device: is chosen by each trainer node; leave it "auto"'):
        TaskSpec(ppo=PPOConfig(device="cpu"))
    with pytest.raises(SpecError, match="^steps_per_shard|^rollout.steps_per_shard"):
        TaskSpec(steps_per_shard=0)
    with pytest.raises(SpecError, match="^env_id: unknown environment id"):
        TaskSpec(env_id="Nope-v0")
