"""CNN policies (PolicyConfig.kind): seeded init and digest, checkpoint round trip, the tensors the
architecture names, uint8 image preprocessing, sampling consistent with the categorical sampler
and log_prob, and refusing a checkpoint or space of another kind."""

import json

import pytest
import torch
from safetensors.torch import save as st_save

from workers.framing import Malformed
from workers.rl.architecture import F32, F64, misfit, parameter_count, tensor_specs
from workers.rl.config import MINATAR_CNN, NATURE_CNN, PolicyConfig
from workers.rl.envs import BOX, DISCRETE, SpaceSpec
from workers.rl.policy import (
    categorical_from_uniform,
    check_architecture,
    digest,
    from_bytes,
    make_policy,
    read_metadata,
    to_bytes,
)


def image_space(shape=(10, 10, 4), actions=6, kind=DISCRETE):
    box = kind == BOX
    return SpaceSpec(obs_dim=shape[0] * shape[1] * shape[2], action_kind=kind, action_dim=actions,
                     action_low=(-1.0,) * actions if box else None, action_high=(1.0,) * actions if box else None,
                     obs_shape=shape, obs_dtype="uint8")


MINATAR = image_space()
MINATAR_CONFIG = PolicyConfig(kind=MINATAR_CNN, seed=3)


def images(n, shape=(10, 10, 4), seed=0):
    return torch.randint(0, 256, (n, *shape), dtype=torch.uint8, generator=torch.Generator().manual_seed(seed))


def test_minatar_cnn_is_the_papers_net_with_a_shared_trunk():
    policy = make_policy(MINATAR, MINATAR_CONFIG)
    shapes = {k: tuple(v.shape) for k, v in policy.state_dict().items()}
    assert shapes == {"trunk.0.weight": (16, 4, 3, 3), "trunk.0.bias": (16,),
                      "trunk.3.weight": (128, 16 * 8 * 8), "trunk.3.bias": (128,),
                      "critic.0.weight": (1, 128), "critic.0.bias": (1,),
                      "actor.0.weight": (6, 128), "actor.0.bias": (6,)}


def test_same_seed_same_digest_other_seed_other_digest_and_global_rng_untouched():
    torch.manual_seed(5)
    before = torch.rand(3)
    torch.manual_seed(5)
    a = make_policy(MINATAR, MINATAR_CONFIG)
    assert torch.equal(torch.rand(3), before)
    assert to_bytes(a) == to_bytes(make_policy(MINATAR, MINATAR_CONFIG))
    assert digest(make_policy(MINATAR, PolicyConfig(kind=MINATAR_CNN, seed=4))) != digest(a)


@pytest.mark.parametrize("obs_norm", [False, True])
def test_checkpoint_round_trip_keeps_kind_and_outputs(obs_norm):
    policy = make_policy(MINATAR, PolicyConfig(kind=MINATAR_CNN, seed=1, obs_norm=obs_norm))
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(0.01)
    data = to_bytes(policy)
    meta = read_metadata(data)
    assert meta["config"]["kind"] == MINATAR_CNN and meta["spec"]["obs_shape"] == [10, 10, 4]
    loaded = from_bytes(data)
    assert to_bytes(loaded) == data and loaded.config == policy.config and loaded.spec == MINATAR
    obs = images(5)
    assert torch.equal(loaded.actor(obs), policy.actor(obs)) and torch.equal(loaded.value(obs), policy.value(obs))


def test_nature_cnn_on_84x84x4_frames_round_trips_and_samples():
    space = image_space((84, 84, 4))
    policy = make_policy(space, PolicyConfig(kind=NATURE_CNN, seed=0))
    assert parameter_count(space, policy.config) == sum(p.numel() for p in policy.parameters()) == 1_687_719
    assert to_bytes(from_bytes(to_bytes(policy))) == to_bytes(policy)
    obs = images(3, (84, 84, 4))
    actions, logp, values, _ = policy.sample(obs, torch.Generator().manual_seed(0))
    new_logp, _, new_values = policy.evaluate(obs, actions)
    assert torch.equal(new_logp, logp) and torch.equal(new_values, values)


def test_uint8_images_are_scaled_and_permuted_inside():
    policy = make_policy(MINATAR, MINATAR_CONFIG)
    obs = images(4)
    with torch.no_grad():
        want = policy.trunk((obs.float() / 255.0).permute(0, 3, 1, 2))
        assert torch.equal(policy.features(obs), want)
        assert torch.equal(policy.value(obs), torch.nn.functional.linear(want, policy.critic[0].weight,
                                                                         policy.critic[0].bias).squeeze(-1))


def test_sampling_is_the_categorical_sampler_on_the_actors_logits():
    policy = make_policy(MINATAR, MINATAR_CONFIG)
    obs = images(16)
    actions, logp, values, draws = policy.sample(obs, torch.Generator().manual_seed(9))
    assert torch.equal(draws, torch.rand(16, generator=torch.Generator().manual_seed(9)))
    with torch.no_grad():
        probs = torch.softmax(policy.actor(obs), -1)
        assert torch.equal(actions, categorical_from_uniform(probs, draws))
        got_logp, entropy = policy.log_prob_entropy(obs, actions)
        assert torch.allclose(got_logp, logp, atol=1e-6) and torch.allclose(values, policy.value(obs))
        assert torch.equal(policy.deterministic_action(obs), policy.actor(obs).argmax(-1))
        assert bool((entropy > 0).all())


def test_gaussian_actions_on_images():
    space = image_space(actions=3, kind=BOX)
    policy = make_policy(space, MINATAR_CONFIG)
    obs = images(4)
    actions, logp, _, draws = policy.sample(obs, torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.allclose(actions, policy.actor(obs) + policy.log_std.exp() * draws)
        assert torch.allclose(policy.log_prob_entropy(obs, actions)[0], logp, atol=1e-5)
    assert to_bytes(from_bytes(to_bytes(policy))) == to_bytes(policy)


def test_tensor_specs_are_the_built_policys_with_dtypes():
    for space, config in ((MINATAR, PolicyConfig(kind=MINATAR_CNN, obs_norm=True, hidden_sizes=(32, 8))),
                          (image_space((36, 40, 2)), PolicyConfig(kind=NATURE_CNN))):
        policy = make_policy(space, config)
        built = {k: ({torch.float32: F32, torch.float64: F64}[v.dtype], tuple(v.shape))
                 for k, v in policy.state_dict().items()}
        assert tensor_specs(space, config) == built


def test_a_checkpoint_naming_another_kind_is_refused():
    data = to_bytes(make_policy(MINATAR, MINATAR_CONFIG))
    tensors = {k: v.clone() for k, v in from_bytes(data).state_dict().items()}
    meta = read_metadata(data)
    meta["config"]["kind"] = NATURE_CNN
    forged = st_save(tensors, metadata={"decentrl": json.dumps(meta)})
    with pytest.raises(Malformed, match="nature_cnn's convolutions need images of at least 36x36"):
        from_bytes(forged)
    del meta["config"]["kind"]  # an mlp
    with pytest.raises(Malformed, match="an mlp policy takes flat observations"):
        from_bytes(st_save(tensors, metadata={"decentrl": json.dumps(meta)}))


def test_the_task_architecture_check_names_the_kind():
    policy = make_policy(MINATAR, MINATAR_CONFIG)
    check_architecture(policy, MINATAR, PolicyConfig(kind=MINATAR_CNN, seed=99))  # seed is not architecture
    with pytest.raises(ValueError, match="kind 'minatar_cnn' \\(the spec says 'nature_cnn'\\)"):
        check_architecture(policy, MINATAR, PolicyConfig(kind=NATURE_CNN, hidden_sizes=(128,)))
    with pytest.raises(ValueError, match="obs_norm False \\(the spec says True\\)"):
        check_architecture(policy, MINATAR, PolicyConfig(kind=MINATAR_CNN, obs_norm=True))


def test_a_network_that_cannot_take_the_observations_says_what_to_set():
    flat = SpaceSpec(obs_dim=4, action_kind=DISCRETE, action_dim=2)
    assert "set policy kind to \"mlp\"" in misfit(flat, MINATAR_CONFIG)
    assert "\"minatar_cnn\"" in misfit(MINATAR, PolicyConfig())
    with pytest.raises(ValueError, match="need images of at least 36x36"):
        make_policy(MINATAR, PolicyConfig(kind=NATURE_CNN))


def test_kind_defaults_and_the_mlp_dict_without_new_keys():
    assert PolicyConfig(kind=NATURE_CNN).hidden_sizes == (512,) and PolicyConfig(kind=NATURE_CNN).activation == "relu"
    assert PolicyConfig(kind=MINATAR_CNN).hidden_sizes == (128,)
    assert PolicyConfig().to_dict() == {"hidden_sizes": [64, 64], "activation": "tanh", "init_log_std": 0.0,
                                        "seed": 0}
    with pytest.raises(ValueError, match="kind must be one of mlp, nature_cnn, minatar_cnn"):
        PolicyConfig(kind="resnet")
