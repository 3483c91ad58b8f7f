"""workers/rl/rollout.py: seeds, bit-identical rollouts (also across processes), the canonical
episode encoding and the episodes' Merkle root."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from workers.merkle import merkle_root, verify
from workers.rl.envs import make_env
from workers.rl.policy import to_bytes
from workers.rl.rollout import decode_episode, derive_seeds, encode_episode, episode_root, episode_tree, rollout

ROOT = Path(__file__).resolve().parents[3]


def roll(policy, env_id="CartPole-v1", shard=0, **budget):
    budget = budget or {"num_steps": 300}
    return rollout(policy, env_id, task_seed=42, round_=3, shard=shard, **budget)


def test_seeds_are_deterministic_and_distinct():
    assert derive_seeds(1, 2, 3, 4) == derive_seeds(1, 2, 3, 4)
    seen = {derive_seeds(1, r, s, i) for r in range(3) for s in range(3) for i in range(3)}
    assert len(seen) == 27
    env_seed, sample_seed = derive_seeds(2**256 - 1, 0, 0, 0)
    assert 0 <= env_seed < 2**32 and 0 <= sample_seed < 2**63


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_same_inputs_give_identical_bytes(env_id, policy_for):
    a = roll(policy_for(env_id), env_id)
    b = roll(policy_for(env_id), env_id)
    assert [encode_episode(e) for e in a] == [encode_episode(e) for e in b]
    assert episode_root(roll(policy_for(env_id), env_id, shard=1)) != episode_root(a)


def test_step_budget_is_exact_and_cuts_last_episode(cartpole_policy):
    episodes = roll(cartpole_policy, num_steps=300)
    assert sum(e.steps for e in episodes) == 300
    assert [e.index for e in episodes] == list(range(len(episodes)))
    assert all(e.end == "terminated" for e in episodes[:-1])
    assert episodes[-1].end in ("cut", "terminated")
    assert all(e.obs.shape == (e.steps + 1, 4) for e in episodes)


def test_episode_budget(pendulum_policy):
    episodes = roll(pendulum_policy, "Pendulum-v1", num_episodes=2)
    assert [e.end for e in episodes] == ["truncated", "truncated"]
    assert [e.steps for e in episodes] == [200, 200]
    assert episodes[0].actions.shape == (200, 1)


def test_budget_must_be_one_of_the_two(cartpole_policy):
    with pytest.raises(ValueError, match="exactly one of num_episodes or num_steps"):
        rollout(cartpole_policy, "CartPole-v1", task_seed=1, round_=0, shard=0)
    with pytest.raises(ValueError, match="positive integer"):
        roll(cartpole_policy, num_steps=0)


def test_policy_must_fit_env(cartpole_policy):
    with pytest.raises(ValueError, match="policy was built for"):
        roll(cartpole_policy, "Acrobot-v1")


SUBPROCESS = """
import sys, torch
torch.set_num_threads(1)
from workers.rl.policy import from_bytes
from workers.rl.rollout import rollout, episode_root
policy = from_bytes(open(sys.argv[1], 'rb').read())
eps = rollout(policy, sys.argv[2], task_seed=42, round_=3, shard=0, num_steps=300)
print(episode_root(eps).hex())
"""


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCarContinuous-v0"])
def test_identical_root_in_a_subprocess(tmp_path, env_id, policy_for):
    policy = policy_for(env_id, seed=11)
    (tmp_path / "p.safetensors").write_bytes(to_bytes(policy))
    out = subprocess.run([sys.executable, "-c", SUBPROCESS, str(tmp_path / "p.safetensors"), env_id],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == episode_root(roll(policy, env_id)).hex()


def test_encoding_round_trip(pendulum_policy, cartpole_policy):
    for ep in roll(cartpole_policy) + roll(pendulum_policy, "Pendulum-v1", num_steps=50):
        data = encode_episode(ep)
        back = decode_episode(data)
        assert encode_episode(back) == data
        for name in ("obs", "actions", "rewards", "terminated", "truncated", "logp", "values"):
            assert np.array_equal(getattr(back, name), getattr(ep, name)), name
        assert ((back.env_seed, back.sample_seed, back.policy, back.end)
                == (ep.env_seed, ep.sample_seed, ep.policy, ep.end))


def test_decoding_rejects_non_canonical_bytes(cartpole_policy):
    data = encode_episode(roll(cartpole_policy, num_steps=20)[0])
    with pytest.raises(ValueError, match="trailing bytes"):
        decode_episode(data + b"\x00")
    with pytest.raises(ValueError, match="too short"):
        decode_episode(data[:-1])
    with pytest.raises(ValueError, match="bad magic"):
        decode_episode(b"XXXX" + data[4:])
    spaced = data.replace(b'"end":', b'"end": ', 1)
    spaced = spaced[:5] + (int.from_bytes(data[5:9], "little") + 1).to_bytes(4, "little") + spaced[9:]
    with pytest.raises(ValueError, match="not canonical JSON"):
        decode_episode(spaced)


def test_episode_root_is_merkle_root_of_encodings(cartpole_policy):
    episodes = roll(cartpole_policy)
    leaves = [encode_episode(e) for e in episodes]
    assert episode_root(episodes) == merkle_root(leaves)
    tree = episode_tree(episodes)
    for i, leaf in enumerate(leaves):
        assert verify(tree.root, leaf, tree.proof(i))
    tampered = decode_episode(leaves[0])
    tampered.rewards[0] = 2.0
    assert episode_root([tampered] + episodes[1:]) != episode_root(episodes)


def sequential(policy, env_id, budget):
    """The reference: episodes 0, 1, ... one after the other, one-row forward passes, each
    stopped by the env or by the steps the budget leaves it."""
    env, out, left = make_env(env_id), [], budget
    while left > 0:
        env_seed, sample_seed = derive_seeds(42, 3, 0, len(out))
        generator = torch.Generator().manual_seed(sample_seed)
        obs, steps = [np.asarray(env.reset(seed=env_seed)[0], dtype=np.float32)], []
        while len(steps) < left:
            a, logp, value, _ = policy.sample(torch.from_numpy(obs[-1]).unsqueeze(0), generator)
            o, r, term, trunc, _ = env.step(policy.env_action(a[0]))
            obs.append(np.asarray(o, dtype=np.float32))
            steps.append((int(a[0]), r, term, trunc, float(logp[0]), float(value[0])))
            if term or trunc:
                break
        out.append((np.stack(obs), steps))
        left -= len(steps)
    return out


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Acrobot-v1"])
@pytest.mark.parametrize("budget", [1, 37, 300, 777])
def test_lockstep_episodes_are_the_sequential_ones(env_id, budget, policy_for):
    """Episodes rolled in lockstep (LANES at a time, speculative ones trimmed or dropped) are the
    ones of rolling them one by one: same steps, cuts and actions; log-probs and values up to the
    rounding of a batched forward pass."""
    policy = policy_for(env_id, seed=3)
    episodes, reference = roll(policy, env_id, num_steps=budget), sequential(policy, env_id, budget)
    assert len(episodes) == len(reference)
    for ep, (obs, steps) in zip(episodes, reference, strict=True):
        actions, rewards, term, trunc, logp, values = (np.array(x) for x in zip(*steps, strict=True))
        assert np.array_equal(ep.obs, obs) and np.array_equal(ep.actions, actions)
        assert np.array_equal(ep.rewards, rewards)
        assert np.array_equal(ep.terminated, term) and np.array_equal(ep.truncated, trunc)
        assert ep.end == ("terminated" if term[-1] else "truncated" if trunc[-1] else "cut")
        assert np.allclose(ep.logp, logp, rtol=0, atol=1e-5) and np.allclose(ep.values, values, rtol=0, atol=1e-5)


@pytest.mark.parametrize(("env_id", "budget", "lengths"), [
    ("HalfCheetah-v5", 256, [256]),  # 1,000-step episodes: one lane, not three speculative ones
    ("Pendulum-v1", 450, [200, 200, 50]),
    ("Pendulum-v1", 200, [200]),
])
def test_an_env_whose_episodes_run_to_the_limit_starts_none_the_budget_cannot_reach(env_id, budget, lengths,
                                                                                 policy_for, monkeypatch):
    from workers.rl.envs import EnvConfig

    policy, made, real_make = policy_for(env_id), [], EnvConfig.make
    monkeypatch.setattr(EnvConfig, "make", lambda self: made.append(1) or real_make(self))
    episodes = roll(policy, env_id, num_steps=budget)
    assert [len(ep.rewards) for ep in episodes] == lengths
    assert len(made) == len(lengths)  # an env for each episode it keeps, none for a speculative one


def test_an_env_said_to_run_to_its_limit_that_ends_earlier_still_fills_the_budget(policy_for, monkeypatch):
    """fixed_episode_steps only holds back speculative episodes: an episode that ends early counts
    by its real length, so a wrong claim (CartPole's episodes end after tens of steps) changes
    which episodes share a forward pass, never which episodes the shard holds."""
    from workers.rl.envs import EnvConfig

    policy = policy_for("CartPole-v1", seed=3)
    honest = roll(policy, "CartPole-v1", num_steps=300)
    monkeypatch.setattr(EnvConfig, "fixed_episode_steps", lambda self: 500)
    claimed = roll(policy, "CartPole-v1", num_steps=300)
    assert sum(len(ep.rewards) for ep in claimed) == 300
    assert [(ep.actions.tolist(), ep.rewards.tolist(), ep.end) for ep in claimed] == \
        [(ep.actions.tolist(), ep.rewards.tolist(), ep.end) for ep in honest]
    for a, b in zip(claimed, honest, strict=True):
        assert np.array_equal(a.obs, b.obs) and np.allclose(a.logp, b.logp, rtol=0, atol=1e-5)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_same_bytes_with_any_thread_count(env_id, policy_for):
    policy, previous, roots = policy_for(env_id, seed=4), torch.get_num_threads(), set()
    try:
        for threads in (1, 2, 4):
            torch.set_num_threads(threads)
            roots.add(episode_root(roll(policy, env_id, num_steps=500)))
    finally:
        torch.set_num_threads(previous)
    assert len(roots) == 1
