"""workers/roles/validator.py: an honest round is accepted; each fraud is rejected with a reason
(fabricated reward, altered observation, actions not drawn from the policy, a stale policy, a
checkpoint not matching its root, a checkpoint that is not its trace's end) and missing data is a
reject. The trainer's trace itself: test_trace_check.py."""

import dataclasses

import pytest
import torch

from tests.workers.roles.conftest import SMALL, TASK_ID, fetcher
from tests.workers.roles.trace_fakes import rebundle
from workers.protocol import Evidence, Role
from workers.rl.policy import from_bytes, to_bytes
from workers.rl.rollout import decode_episode, rollout
from workers.roles import sampler, trainer
from workers.roles.validator import (
    Focus,
    Judgement,
    RoundVerdict,
    SamplerChecks,
    challenged_indices,
    verify_round,
    verify_samplers,
    verify_trainer,
)

SEED = b"\x07" * 32


def samplers_of(rnd, **replace):
    """[(slot, root, blob)] of an honest round, with some slots replaced by (root, blob)."""
    out = {slot: (s.root, s.blob) for slot, s in rnd.shards.items()}
    out.update({int(k[4:]): v for k, v in replace.items()})
    return [(slot, root, blob) for slot, (root, blob) in sorted(out.items())]


def verify(rnd, samplers=None, trainer_sub="honest", *ckpts):
    """verify_round of `rnd` with the honest trainer's stored trace (and that of `ckpts`) fetchable."""
    if trainer_sub == "honest":
        trainer_sub = (rnd.checkpoint.root, rnd.checkpoint.bundle)
    return verify_round(SMALL, TASK_ID, rnd.round, rnd.prev, samplers or samplers_of(rnd), trainer_sub, SEED,
                        fetcher(rnd.checkpoint, *ckpts))


def forged(rnd, slot, edit):
    """Slot's shard with its first challenged episode edited by `edit(ep)`, re-bundled so that the
    blob matches the (new) root the fraudster would reveal."""
    shard = rnd.shards[slot]
    i = challenged_indices(SEED, TASK_ID, rnd.round, slot, len(shard.episodes), SMALL.challenges_per_sampler)[0]
    episodes = [decode_episode(b) for b in shard.episode_bytes]
    edit(episodes[i])
    fake = sampler.bundle_shard(TASK_ID, rnd.round, slot, episodes)
    return fake.root, fake.blob


def test_honest_rounds_are_accepted(rounds):
    for rnd in rounds:
        v = verify(rnd)
        assert all(j.accepted for j in v.samplers.values()), v
        assert v.trainer.accepted
        assert v.trainer.reason.startswith("trace root, ends and data check; re-executed 1 of 12")
        assert v.bitmap(2) == 0b111


def test_bitmap():
    v = RoundVerdict({0: Judgement(True, ""), 2: Judgement(False, "x")}, Judgement(True, ""))
    assert v.bitmap(3) == 0b1001
    assert RoundVerdict({1: Judgement(True, "")}, None).bitmap(2) == 0b010
    with pytest.raises(ValueError, match="outside the task's 2 slots"):
        RoundVerdict({2: Judgement(True, "")}).bitmap(2)


def test_challenges_are_deterministic_distinct_and_seeded():
    a = challenged_indices(SEED, TASK_ID, 1, 0, 50, 5)
    assert a == challenged_indices(SEED, TASK_ID, 1, 0, 50, 5) and a == sorted(set(a)) and len(a) == 5
    assert a != challenged_indices(b"\x08" * 32, TASK_ID, 1, 0, 50, 5)
    assert challenged_indices(SEED, TASK_ID, 1, 0, 3, 5) == [0, 1, 2]


def test_fabricated_reward_is_rejected(rounds):
    def edit(ep):
        ep.rewards[0] = 2.0
    subs = samplers_of(rounds[0], slot1=forged(rounds[0], 1, edit))
    ckpt = trainer.train_round(SMALL, TASK_ID, 0, None, subs)  # an honest trainer uses what was revealed
    v = verify(rounds[0], subs, (ckpt.root, ckpt.bundle), ckpt)
    assert v.samplers[0].accepted and not v.samplers[1].accepted
    assert "does not replay: reward at step 0: expected 1.0, got 2.0" in v.samplers[1].reason
    assert v.bitmap(2) == 0b101  # the trainer is not blamed for the sampler's fraud
    n = len(rounds[0].shards[1].episodes)
    episode = challenged_indices(SEED, TASK_ID, 0, 1, n, SMALL.challenges_per_sampler)[0]
    assert v.samplers[1].evidence == (Evidence.EPISODE, episode)  # what its dispute would name


def unchallenged_forgery(rnd, slot, edit):
    """Slot's shard with an episode SEED does not challenge edited; (its index, root, blob)."""
    shard = rnd.shards[slot]
    n = len(shard.episodes)
    i = next(i for i in range(n - 1) if i not in challenged_indices(SEED, TASK_ID, rnd.round, slot, n,
                                                                    SMALL.challenges_per_sampler))
    episodes = [decode_episode(b) for b in shard.episode_bytes]
    edit(episodes[i])
    fake = sampler.bundle_shard(TASK_ID, rnd.round, slot, episodes)
    return i, fake.root, fake.blob


def test_a_disputes_episode_is_replayed_whatever_the_jurors_draw(rounds):
    def edit(ep):
        ep.rewards[0] = 2.0
    i, root, blob = unchallenged_forgery(rounds[1], 0, edit)
    subs = samplers_of(rounds[1], slot0=(root, blob))
    judged = lambda focus: verify_round(SMALL, TASK_ID, 1, rounds[1].prev, subs, None, SEED, fetcher(),  # noqa: E731
                                        focus=focus).samplers[0]
    assert judged(None).accepted  # its challenges missed it
    assert judged(Focus(Role.SAMPLER, 1, Evidence.EPISODE, i)).accepted  # a focus on another shard
    j = judged(Focus(Role.SAMPLER, 0, Evidence.EPISODE, i))
    assert not j.accepted and j.evidence == (Evidence.EPISODE, i) and f"episode {i} does not replay" in j.reason


def test_an_episode_truncated_before_the_time_limit_is_rejected_unchallenged(rounds):
    def edit(ep):
        ep.end = "truncated"
        ep.terminated[-1], ep.truncated[-1] = 0, 1
    i, root, blob = unchallenged_forgery(rounds[1], 0, edit)
    j = verify_round(SMALL, TASK_ID, 1, rounds[1].prev, samplers_of(rounds[1], slot0=(root, blob)), None, SEED,
                     fetcher()).samplers[0]
    steps = decode_episode(rounds[1].shards[0].episode_bytes[i]).steps
    assert not j.accepted and j.evidence == (Evidence.EPISODE, i)
    assert j.reason == f"episode {i} is marked truncated after {steps} steps; CartPole-v1 truncates at step 500"


def test_altered_observation_is_rejected(rounds):
    def edit(ep):
        ep.obs[3, 1] += 1e-3
    v = verify(rounds[1], samplers_of(rounds[1], slot0=forged(rounds[1], 0, edit)), trainer_sub=None)
    assert not v.samplers[0].accepted and "does not replay: obs at step 3" in v.samplers[0].reason
    assert v.trainer is None and v.bitmap(2) == 0b010


def greedy(policy):
    """The policy acting by argmax instead of its seeded draws (simulation stays honest)."""
    sample_from = policy.sample_from

    def act(obs, draws):
        _, _, values = sample_from(obs, draws)
        actions = policy.deterministic_action(obs)
        with torch.no_grad():
            logp, _ = policy.log_prob_entropy(obs, actions)
        return actions, logp, values
    policy.sample_from = act
    return policy


def test_actions_not_drawn_from_the_policy_are_rejected(rounds):
    rnd = rounds[1]
    policy = greedy(sampler.round_policy(SMALL, trainer.unbundle_checkpoint(rnd.prev).policy_bytes))
    episodes = rollout(policy, SMALL.env_id, task_seed=SMALL.seed, round_=1, shard=0,
                       num_steps=SMALL.steps_per_shard)
    fake = sampler.bundle_shard(TASK_ID, 1, 0, episodes)
    v = verify(rnd, samplers_of(rnd, slot0=(fake.root, fake.blob)))
    assert not v.samplers[0].accepted and "does not replay: sample at step" in v.samplers[0].reason


def test_rollouts_from_a_stale_policy_are_rejected(rounds):
    stale = sampler.sample_shard(SMALL, TASK_ID, 1, 1, None)  # round 1 rolled with round 0's policy
    v = verify(rounds[1], samplers_of(rounds[1], slot1=(stale.root, stale.blob)))
    assert not v.samplers[1].accepted and "rolled out with policy" in v.samplers[1].reason


def test_short_or_misplaced_shards_are_rejected(rounds):
    rnd = rounds[0]
    short = sampler.bundle_shard(TASK_ID, 0, 0, rnd.shards[0].episodes[:-1])
    v = verify(rnd, samplers_of(rnd, slot0=(short.root, short.blob)))
    assert "the spec asks for 96" in v.samplers[0].reason
    v = verify(rnd, samplers_of(rnd, slot1=(rnd.shards[0].root, rnd.shards[0].blob)))  # copied shard
    assert "expected task 42 round 0 shard 1" in v.samplers[1].reason


def test_blob_not_matching_its_root_is_rejected(rounds):
    rnd = rounds[0]
    v = verify(rnd, samplers_of(rnd, slot0=(rnd.shards[1].root, rnd.shards[0].blob)))
    assert not v.samplers[0].accepted and v.samplers[0].reason.startswith("blob does not match the revealed root")


def test_missing_data_is_rejected(rounds):
    rnd = rounds[0]
    v = verify(rnd, samplers_of(rnd, slot1=(rnd.shards[1].root, None)), trainer_sub=(rnd.checkpoint.root, None))
    assert v.samplers[1] == Judgement(False, "missing data: the blob of sampler slot 1 could not be fetched")
    assert v.trainer.reason == "missing data: the trainer's checkpoint bundle could not be fetched"
    v = verify(rnd, samplers_of(rnd, slot1=(rnd.shards[1].root, None)))
    assert not v.trainer.accepted and "cannot check the update without the blob of slot 1" in v.trainer.reason
    assert v.bitmap(2) == 0b001


def test_checkpoint_not_matching_its_root_is_rejected(rounds):
    rnd = rounds[1]
    v = verify(rnd, trainer_sub=(rounds[0].checkpoint.root, rnd.checkpoint.bundle))
    assert not v.trainer.accepted and "checkpoint does not match its revealed root" in v.trainer.reason
    v = verify(rnd, trainer_sub=(rounds[0].checkpoint.root, rounds[0].checkpoint.bundle))  # last round's, replayed
    assert not v.trainer.accepted and "does not name this round" in v.trainer.reason


def perturbed(ckpt, scale):
    policy = from_bytes(ckpt.policy_bytes)
    with torch.no_grad():
        policy.actor[0].weight[0, 0] += scale
    return to_bytes(policy)


def test_checkpoint_that_is_not_its_traces_last_state_is_rejected(rounds):
    rnd = rounds[1]
    # the honest trace, a perturbed policy
    fake = rebundle(rnd.checkpoint, policy_bytes=perturbed(rnd.checkpoint, 1e-6))
    v = verify(rnd, trainer_sub=(fake.root, fake.bundle))
    assert v.trainer == Judgement(False, "the trace's last state (after step 12) is not the checkpoint's policy")
    assert all(j.accepted for j in v.samplers.values())


def test_trainer_must_use_the_accepted_revealed_shards(rounds):
    rnd = rounds[0]
    only0 = trainer.train_round(SMALL, TASK_ID, 0, None, [(0, rnd.shards[0].root, rnd.shards[0].blob)])
    v = verify(rnd, samplers_of(rnd), (only0.root, only0.bundle), only0)
    assert v.trainer.reason == "did not train on the accepted shards of slots [1]"
    v = verify(rnd, samplers_of(rnd)[:1])  # slot 1 never revealed, yet trained on
    assert "which was not revealed this round" in v.trainer.reason


def test_logp_tolerance_comes_from_the_spec(rounds):
    rnd = rounds[0]
    strict = dataclasses.replace(SMALL, logp_tolerance=1e-12)
    def edit(ep):
        ep.logp[0] += 5e-5  # within replay's own tolerance, above the strict spec's
    v = verify_round(strict, TASK_ID, 0, None, samplers_of(rnd, slot0=forged(rnd, 0, edit)), None, SEED, fetcher())
    assert not v.samplers[0].accepted and "exceeds the spec's tolerance 1e-12" in v.samplers[0].reason


def test_the_trainer_check_reads_a_shard_again_when_the_parsed_one_is_not_its_input(rounds):
    rnd = rounds[0]
    revealed = {slot: (s.root, s.blob) for slot, s in rnd.shards.items()}
    ckpt = rnd.checkpoint
    args = (SMALL, TASK_ID, 0, None, None, ckpt.root, ckpt.bundle, revealed, {0, 1}, fetcher(ckpt), SEED)
    assert verify_trainer(*args).accepted
    # slot 0's parsed shard swapped for slot 1's: its root is not the input's, so slot 0's blob is read
    assert verify_trainer(*args, parsed={0: rnd.shards[1]}).accepted
    # slot 0's blob swapped too: the check must see the bad blob, not trust the parsed shard
    revealed[0] = (rnd.shards[0].root, rnd.shards[1].blob)
    judgement = verify_trainer(*args, parsed={0: rnd.shards[1]})  # `revealed` is in args
    assert not judgement.accepted and "whose blob does not match its root" in judgement.reason


def test_samplers_judged_early_give_the_verdict_of_judging_them_at_attest(rounds):
    def edit(ep):
        ep.rewards[0] = 2.0
    rnd = rounds[1]
    subs = samplers_of(rnd, slot1=forged(rnd, 1, edit))
    early = verify_samplers(SMALL, TASK_ID, rnd.round, rnd.prev, subs, SEED)
    at_attest = verify(rnd, subs)
    assert {slot: judged[1] for slot, judged in early.judged.items()} == at_attest.samplers
    assert at_attest.samplers[0].accepted and not at_attest.samplers[1].accepted
    trainer_sub = (rnd.checkpoint.root, rnd.checkpoint.bundle)
    with_early = verify_round(SMALL, TASK_ID, rnd.round, rnd.prev, subs, trainer_sub, SEED, fetcher(rnd.checkpoint),
                              early=early)
    assert with_early == at_attest
    assert early.prev_root == trainer.unbundle_checkpoint(rnd.prev).root


def test_an_early_verdict_is_taken_only_for_the_root_and_checkpoint_it_judged(rounds):
    rnd = rounds[1]
    subs = samplers_of(rnd)
    prev_root = trainer.unbundle_checkpoint(rnd.prev).root
    marked = Judgement(False, "judged early")  # not what judging gives: shows where a verdict came from
    roots = {slot: bytes(s.root) for slot, s in rnd.shards.items()}
    judge = lambda early: verify_round(SMALL, TASK_ID, rnd.round, rnd.prev, subs, None, SEED, fetcher(),  # noqa: E731
                                       early=early).samplers
    taken = judge(SamplerChecks(prev_root, {0: (roots[0], marked, None)}))
    assert taken[0] is marked and taken[1] == judge(None)[1] and taken[1].accepted
    assert judge(SamplerChecks(prev_root, {0: (roots[1], marked, None)}))[0].accepted  # another root revealed
    assert judge(SamplerChecks(None, {0: (roots[0], marked, None)}))[0].accepted  # under another checkpoint


def test_a_shard_not_fetched_early_is_left_to_attest(rounds):
    rnd = rounds[0]
    (slot0, root0, blob0), (slot1, root1, _) = samplers_of(rnd)
    early = verify_samplers(SMALL, TASK_ID, 0, None, [(slot0, root0, blob0), (slot1, root1, None)], SEED)
    assert sorted(early.judged) == [0] and early.judged[0][1].accepted
    assert early.blob(0, root0) == blob0 and early.blob(0, root1) is None and early.blob(1, root1) is None
