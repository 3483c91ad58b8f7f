"""Normalisation statistics through the roles: with policy.obs_norm and ppo.norm_reward, honest
rounds verify (samplers act with the statistics the checkpoint carries), and a trainer that fakes
the statistics is rejected whatever the challenge draw: the validator recomputes them in full
(workers.rl.normalization) and compares them exactly (workers.roles.trace_check)."""

import dataclasses

import numpy as np
import pytest

from tests.workers.roles.conftest import SMALL, TASK_ID, fetcher, honest_round
from tests.workers.roles.trace_fakes import dishonest_round, rebundle
from workers.rl.normalization import RunningStats, obs_stats_after, return_stats_after
from workers.rl.policy import from_bytes, to_bytes
from workers.roles.validator import verify_round

SPEC = dataclasses.replace(SMALL, obs_norm=True, ppo=dataclasses.replace(SMALL.ppo, norm_reward=True),
                           challenges_per_trainer=2)
"""12 gradient steps a round (2 x 96 samples / batch 32 x 2 epochs), one leaf per step."""
SEEDS = [bytes([s]) * 32 for s in range(3)]


@pytest.fixture(scope="module")
def rounds():
    r0 = honest_round(SPEC, 0, None)
    return r0, honest_round(SPEC, 1, r0.checkpoint.bundle)


def episodes_of(rnd):
    return [ep for _, shard in sorted(rnd.shards.items()) for ep in shard.episodes]


def judge(spec, rnd, ckpt, seed=SEEDS[0]):
    return verify_round(spec, TASK_ID, rnd.round, rnd.prev, rnd.revealed, (ckpt.root, ckpt.bundle), seed,
                        fetcher(ckpt))


def test_honest_rounds_verify_and_carry_the_updated_statistics(rounds):
    r0, r1 = rounds
    start = from_bytes(r0.checkpoint.policy_bytes).obs_stats()
    assert start.same(obs_stats_after(RunningStats.initial((4,)), episodes_of(r0)))
    after = from_bytes(r1.checkpoint.policy_bytes).obs_stats()
    assert after.same(obs_stats_after(start, episodes_of(r1)))  # round 1 acted with round 0's statistics
    ret_rms = r1.checkpoint.train_state().ret_rms
    assert ret_rms.same(return_stats_after(r0.checkpoint.train_state().ret_rms, episodes_of(r1), SPEC.ppo.gamma))
    for rnd in rounds:
        for seed in SEEDS:
            verdict = judge(SPEC, rnd, rnd.checkpoint, seed)
            assert verdict.trainer.accepted, verdict.trainer
            assert all(j.accepted for j in verdict.samplers.values()), verdict.samplers


def test_observation_statistics_left_stale_are_rejected(rounds):
    _, r1 = rounds
    policy = from_bytes(r1.checkpoint.policy_bytes)
    policy.set_obs_stats_(from_bytes(rounds[0].checkpoint.policy_bytes).obs_stats())  # not updated this round
    fake = rebundle(r1.checkpoint, policy_bytes=to_bytes(policy))
    for seed in SEEDS:
        j = judge(SPEC, r1, fake, seed).trainer
        assert not j.accepted and j.reason == ("the checkpoint's observation statistics are not the round's updated "
                                               "by its observations (recomputed in float64)"), j


def test_training_with_other_observation_statistics_is_rejected(rounds):
    _, r1 = rounds
    new = obs_stats_after(from_bytes(rounds[0].checkpoint.policy_bytes).obs_stats(), episodes_of(r1))

    def ahead(steps, policy, optimizer, batch):  # normalises with next round's statistics from step 1 on
        if steps == 1:
            policy.set_obs_stats_(new)
    fake = dishonest_round(SPEC, r1, ahead)
    for seed in SEEDS:
        j = judge(SPEC, r1, fake, seed).trainer
        assert not j.accepted and j.reason == ("state 12's observation statistics are not the round's (those of "
                                               "its first state)"), j


def test_faked_return_statistics_are_rejected(rounds):
    _, r1 = rounds
    state = r1.checkpoint.train_state()
    state.ret_rms = RunningStats(state.ret_rms.mean, state.ret_rms.var * 2, state.ret_rms.count)
    fake = rebundle(r1.checkpoint, train_state_bytes=state.to_bytes())
    j = judge(SPEC, r1, fake).trainer
    assert not j.accepted and j.reason == ("the trace's last state (after step 12) does not finish into the "
                                           "checkpoint's train state"), j


def test_training_on_unscaled_rewards_is_caught_where_re_executed():
    """A trainer that ignores norm_reward in its gradient steps but writes the right statistics:
    every re-executed transition shows it (all 12 are, here)."""
    spec = dataclasses.replace(SPEC, challenges_per_trainer=12)
    plain = dataclasses.replace(spec, ppo=dataclasses.replace(spec.ppo, norm_reward=False))
    r0 = honest_round(plain, 0, None)
    state = r0.checkpoint.train_state()
    state.ret_rms = return_stats_after(None, episodes_of(r0), spec.ppo.gamma)
    fake = rebundle(r0.checkpoint, spec_digest=spec.digest(), train_state_bytes=state.to_bytes())
    j = judge(spec, r0, fake).trainer
    assert not j.accepted and j.reason.startswith("step 0 (state 0 -> 1) does not re-execute"), j
    assert np.isfinite(state.ret_rms.var)
