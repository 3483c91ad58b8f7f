"""workers/roles/plants.py and the validator's recognition of the forced-error plant
(SPECIFICATION.md 5.5.3): the plant is a one-bit involution; a forced sampler's shard and a forced
CPU trainer's trace are judged `planted` (the vote's plant bit), a mix of planted and exact items
or a plant beside another fault is an ordinary rejection, a juror counts a planted forced
submission as good work, and a CUDA trace hides the plant (a stated limit)."""

import dataclasses

import numpy as np
import pytest
import torch

from tests.workers.roles.conftest import SMALL, TASK_ID, fetcher, honest_round
from tests.workers.roles.trace_fakes import altered_at, retraced
from workers.protocol import Evidence, Role, decode_vote, encode_vote
from workers.rl.plants import is_planted_obs, plant_episode, plant_float32
from workers.rl.policy import from_bytes, to_bytes
from workers.rl.rollout import decode_episode, encode_episode
from workers.roles import sampler, trainer
from workers.roles.challenges import TRAINER_STEPS_DOMAIN, challenged_indices
from workers.roles.plants import inconsistent_plant, plant_policy_, plant_shard, planted_policy_bytes
from workers.roles.trace import split_state
from workers.roles.validator import Focus, Judgement, RoundVerdict, as_forced, verify_round

SEED = b"\x07" * 32
SEEDS = [bytes([s]) * 32 for s in range(16)]


# -- the plant itself ------------------------------------------------------------------------------

def some_float32s() -> np.ndarray:
    """Random bit patterns (every class: normals, subnormals, zeros, infinities, NaNs) and edges."""
    bits = np.random.default_rng(0).integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0, 0x80000000, 1, 0x3F800000, 0x3F7FFFFF, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000],
                     dtype=np.uint32)
    return np.concatenate([bits, edges]).view(np.float32)


def test_the_float32_plant_flips_exactly_the_lowest_mantissa_bit_and_is_an_involution():
    for x in some_float32s():
        planted = plant_float32(x)
        assert isinstance(planted, np.float32)
        assert int(planted.view(np.uint32)) ^ int(x.view(np.uint32)) == 1
        assert plant_float32(planted).tobytes() == x.tobytes()  # bit for bit, NaN payloads included
        if np.isfinite(x) and np.isfinite(planted):  # one ulp away
            with np.errstate(over="ignore"):  # the largest float's next one up is inf
                assert planted in (np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf)))
    assert plant_float32(1.0) == np.nextafter(np.float32(1.0), np.float32(2.0))


def test_is_planted_obs_is_element_0_planted_and_nothing_else():
    obs = np.array([0.25, -1.5, 3.0, 0.0], dtype=np.float32)
    planted = obs.copy()
    planted[0] = plant_float32(obs[0])
    assert is_planted_obs(obs, planted)
    assert not is_planted_obs(obs, obs)  # no plant
    assert is_planted_obs(planted, obs)  # the involution: either way round
    other = obs.copy()
    other[1] = plant_float32(obs[1])
    assert not is_planted_obs(obs, other)
    both = planted.copy()
    both[1] = plant_float32(obs[1])
    assert not is_planted_obs(obs, both)
    assert not is_planted_obs(obs, planted[:3]) and not is_planted_obs(obs[:0], planted[:0])


def test_a_planted_episode_is_a_copy_with_only_its_last_observations_element_0_changed(rounds):
    ep = rounds[0].shards[0].episodes[0]
    before = encode_episode(ep)
    planted = plant_episode(ep)
    assert encode_episode(ep) == before  # the original is untouched
    assert planted.obs is not ep.obs and planted.rewards is not ep.rewards
    diff = np.argwhere(planted.obs.view(np.uint32) != ep.obs.view(np.uint32)).tolist()
    assert diff == [[ep.steps, 0]]
    assert planted.obs[-1, 0] == plant_float32(ep.obs[-1, 0])
    for name in ("actions", "rewards", "terminated", "truncated", "logp", "values"):
        assert np.array_equal(getattr(planted, name), getattr(ep, name))
    assert encode_episode(plant_episode(planted)) == before


def test_a_planted_shard_is_rebundled_with_every_episode_planted(rounds):
    shard = rounds[0].shards[0]
    planted = plant_shard(shard)
    assert planted.root != shard.root and sampler.verify_shard(planted.blob, planted.root).root == planted.root
    assert (planted.task_id, planted.round, planted.shard) == (shard.task_id, shard.round, shard.shard)
    assert [encode_episode(e) for e in planted.episodes] == [encode_episode(plant_episode(e)) for e in shard.episodes]


def test_the_policy_plant_changes_one_bit_of_the_first_parameter_in_place(rounds):
    policy = from_bytes(rounds[0].checkpoint.policy_bytes)
    before = {n: p.detach().clone() for n, p in policy.named_parameters()}
    first = next(iter(before))
    param = next(policy.parameters())
    assert plant_policy_(policy) is policy and next(policy.parameters()) is param  # the same tensor, in place
    for name, p in policy.named_parameters():
        changed = (p.detach().view(-1).view(torch.int32) ^ before[name].view(-1).view(torch.int32)).nonzero().view(-1)
        if name == first:
            assert changed.tolist() == [0]
            assert int(p.detach().view(-1)[:1].view(torch.int32) ^ before[name].view(-1)[:1].view(torch.int32)) == 1
        else:
            assert changed.numel() == 0, name


def test_planted_policy_bytes_are_the_planted_policys_bytes_and_an_involution(rounds):
    data = rounds[0].checkpoint.policy_bytes
    planted = planted_policy_bytes(data)
    assert planted != data and len(planted) == len(data)
    assert planted == to_bytes(plant_policy_(from_bytes(data)))
    assert planted_policy_bytes(planted) == data
    assert sum(a != b for a, b in zip(planted, data, strict=True)) == 1  # one byte of the tensor data


def test_inconsistent_plant_names_an_item_of_the_fewer_kind():
    assert inconsistent_plant("episodes", [3], [0, 5])[1] == 3
    assert inconsistent_plant("episodes", [0, 5], [3])[1] == 3
    assert inconsistent_plant("episodes", [2], [4])[1] == 2
    assert inconsistent_plant("transitions", [1], [2])[0].startswith("inconsistent plant: transitions [1]")


# -- votes -----------------------------------------------------------------------------------------

def test_the_vote_sets_plant_bits_for_planted_judgements():
    planted = Judgement(False, "planted", planted=True)
    v = RoundVerdict({0: Judgement(True, ""), 1: planted, 2: Judgement(False, "x")}, planted)
    assert v.bitmap(3) == encode_vote(0b0001, 0b1010)
    assert decode_vote(v.bitmap(3)) == (0b0001, 0b1010)
    assert RoundVerdict({0: Judgement(True, "")}, Judgement(True, "")).bitmap(2) == 0b101  # no plant: as before
    both = Judgement(True, "forced, and planted", planted=True)  # a juror's: accepted wins
    assert RoundVerdict({0: both}).bitmap(1) == encode_vote(1, 0)


def test_as_forced_counts_only_a_planted_judgement_as_good():
    planted = Judgement(False, "planted: x", evidence=(Evidence.EPISODE, 2), planted=True)
    good = as_forced(planted)
    assert good.accepted and good.planted and good.evidence == (Evidence.EPISODE, 2) and "planted: x" in good.reason
    for j in (Judgement(False, "reward at step 3"), Judgement(True, "checks")):
        assert as_forced(j) == j


# -- samplers --------------------------------------------------------------------------------------

def subs(rnd, **replace):
    out = {slot: (s.root, s.blob) for slot, s in rnd.shards.items()}
    out.update({int(k[4:]): (s.root, s.blob) for k, s in replace.items()})
    return [(slot, root, blob) for slot, (root, blob) in sorted(out.items())]


def judged(rnd, samplers, trainer_sub=None, focus=None, fetch=None, seed=SEED, spec=SMALL):
    return verify_round(spec, TASK_ID, rnd.round, rnd.prev, samplers, trainer_sub, seed, fetch or fetcher(),
                        focus=focus)


def challenged(rnd, slot, seed=SEED):
    return challenged_indices(seed, TASK_ID, rnd.round, slot, len(rnd.shards[slot].episodes),
                              SMALL.challenges_per_sampler)


def edited(rnd, slot, edits: dict):
    """Slot's shard with episode i replaced by edits[i](episode), re-bundled."""
    episodes = [decode_episode(b) for b in rnd.shards[slot].episode_bytes]
    for i, edit in edits.items():
        episodes[i] = edit(episodes[i])
    return sampler.bundle_shard(TASK_ID, rnd.round, slot, episodes)


def test_a_forced_samplers_shard_is_judged_planted(rounds):
    rnd = rounds[1]
    v = judged(rnd, subs(rnd, slot0=plant_shard(rnd.shards[0])))
    j, picked = v.samplers[0], challenged(rnd, 0)
    assert (j.accepted, j.planted) == (False, True), j
    assert j.reason == (f"planted: the only discrepancy of the {len(picked)} replayed episodes {picked} is the "
                        f"forced-error plant (obs[-1][0] of each)")
    assert v.samplers[1].accepted and not v.samplers[1].planted
    assert v.bitmap(2) == encode_vote(0b10, 0b01)


def test_a_shard_mixing_planted_and_exact_challenged_episodes_is_rejected(rounds):
    rnd = rounds[1]
    picked = challenged(rnd, 0)
    assert len(picked) == 3
    one = edited(rnd, 0, {picked[0]: plant_episode})
    j = judged(rnd, subs(rnd, slot0=one)).samplers[0]
    assert (j.accepted, j.planted, j.evidence) == (False, False, (Evidence.EPISODE, picked[0])), j
    exact = sorted(picked[1:])
    assert j.reason.startswith(f"inconsistent plant: episodes [{picked[0]}] carry the forced-error plant, "
                               f"episodes {exact} re-execute exactly"), j
    # all but one planted: the exact one is named
    most = edited(rnd, 0, {i: plant_episode for i in picked[:2]})
    j = judged(rnd, subs(rnd, slot0=most)).samplers[0]
    assert (j.accepted, j.planted, j.evidence) == (False, False, (Evidence.EPISODE, picked[2])), j
    assert judged(rnd, subs(rnd, slot0=most)).bitmap(2) == encode_vote(0b10, 0)  # a reject, not a plant vote


def test_an_unchallenged_exact_episode_is_seen_when_a_dispute_names_it(rounds):
    rnd = rounds[1]
    picked = challenged(rnd, 0)
    other = next(i for i in range(len(rnd.shards[0].episodes)) if i not in picked)
    partly = edited(rnd, 0, {i: plant_episode for i in picked})  # every challenged one planted, `other` not
    assert judged(rnd, subs(rnd, slot0=partly)).samplers[0].planted
    j = judged(rnd, subs(rnd, slot0=partly), focus=Focus(Role.SAMPLER, 0, Evidence.EPISODE, other)).samplers[0]
    assert (j.accepted, j.planted, j.evidence) == (False, False, (Evidence.EPISODE, other)), j
    assert j.reason.startswith("inconsistent plant")


def test_a_plant_beside_another_fault_is_rejected_for_that_fault(rounds):
    rnd = rounds[1]
    picked = challenged(rnd, 0)

    def plant_and_fabricate(ep):
        ep = plant_episode(ep)
        ep.rewards[0] = 2.0
        return ep
    edits = {i: plant_episode for i in range(len(rnd.shards[0].episodes))}
    bad = edited(rnd, 0, edits | {picked[1]: plant_and_fabricate})  # every episode planted, one also fabricated
    j = judged(rnd, subs(rnd, slot0=bad)).samplers[0]
    assert (j.accepted, j.planted, j.evidence) == (False, False, (Evidence.EPISODE, picked[1])), j
    assert f"episode {picked[1]} does not replay: reward at step 0" in j.reason


def test_a_juror_counts_a_planted_forced_shard_as_good_work_and_an_unforced_one_as_bad(rounds):
    rnd = rounds[1]
    samplers, i = subs(rnd, slot0=plant_shard(rnd.shards[0])), challenged(rnd, 0)[0]
    forced = judged(rnd, samplers, focus=Focus(Role.SAMPLER, 0, Evidence.EPISODE, i, forced=True)).samplers[0]
    assert (forced.accepted, forced.planted) == (True, True), forced
    unforced = judged(rnd, samplers, focus=Focus(Role.SAMPLER, 0, Evidence.EPISODE, i)).samplers[0]
    assert (unforced.accepted, unforced.planted) == (False, True), unforced
    elsewhere = judged(rnd, samplers, focus=Focus(Role.SAMPLER, 1, Evidence.EPISODE, 0, forced=True)).samplers
    assert not elsewhere[0].accepted  # only the disputed submission is counted as forced
    # a forced submission with an inconsistent plant is still bad work
    mixed = edited(rnd, 0, {i: plant_episode})
    j = judged(rnd, subs(rnd, slot0=mixed), focus=Focus(Role.SAMPLER, 0, Evidence.EPISODE, i, forced=True)).samplers[0]
    assert not j.accepted and not j.planted, j


def test_a_planted_shard_counts_as_accepted_for_the_trainers_inputs(rounds):
    rnd = rounds[1]
    planted = plant_shard(rnd.shards[0])
    samplers = subs(rnd, slot0=planted)
    ckpt = trainer.train_round(SMALL, TASK_ID, rnd.round, rnd.prev, samplers)
    v = judged(rnd, samplers, (ckpt.root, ckpt.bundle), fetch=fetcher(ckpt))
    assert v.samplers[0].planted and v.trainer.accepted, v
    assert v.bitmap(2) == encode_vote(0b110, 0b001)
    without = trainer.train_round(SMALL, TASK_ID, rnd.round, rnd.prev, samplers[1:])
    j = judged(rnd, samplers, (without.root, without.bundle), fetch=fetcher(without)).trainer
    assert not j.accepted and j.reason == "did not train on the accepted shards of slots [0]"


# -- trainer ---------------------------------------------------------------------------------------

SPEC = dataclasses.replace(SMALL, challenges_per_trainer=2)
"""12 gradient steps, one leaf per step; a validator re-executes 2 transitions."""
STEP = 5


@pytest.fixture(scope="module")
def r0():
    return honest_round(SPEC, 0, None)


@pytest.fixture(scope="module")
def forced_ckpt(r0):
    return trainer.train_round(SPEC, TASK_ID, 0, None, r0.revealed, forced=True)


def trace_judgement(r0, ckpt, seed=SEED, focus=None, spec=SPEC):
    return verify_round(spec, TASK_ID, 0, None, r0.revealed, (ckpt.root, ckpt.bundle), seed, fetcher(ckpt),
                        focus=focus).trainer


def picked_transitions(seed, n=12, k=2):
    return challenged_indices(seed, TASK_ID, 0, 0, n, k, TRAINER_STEPS_DOMAIN)


def test_a_forced_trainer_plants_every_stored_state_after_the_first(r0, forced_ckpt):
    honest = r0.checkpoint
    assert forced_ckpt.trace.steps == honest.trace.steps == 12
    assert forced_ckpt.policy_bytes != honest.policy_bytes
    first_policy, first_state = split_state(forced_ckpt.trace_states[0])  # state 1: one step from the same start
    honest_policy, honest_state = split_state(honest.trace_states[0])
    assert first_policy == planted_policy_bytes(honest_policy) and first_state == honest_state
    assert split_state(forced_ckpt.trace_states[-1])[0] == forced_ckpt.policy_bytes


def test_a_forced_cpu_trace_is_judged_planted_under_every_seed(r0, forced_ckpt):
    for seed in SEEDS[:4]:
        j = trace_judgement(r0, forced_ckpt, seed)
        planted = sorted(picked_transitions(seed))
        assert (j.accepted, j.planted, j.evidence) == (False, True, (Evidence.TRANSITION, planted[0])), j
        assert j.reason.startswith(f"planted: the only discrepancy of the re-executed transitions {planted} is the "
                                   f"forced-error plant (element 0 of the first parameter tensor); trace root, "
                                   f"ends and data check"), j
    honest = trace_judgement(r0, r0.checkpoint)
    assert honest.accepted and not honest.planted


def test_a_forced_trace_whose_last_leaf_is_shorter_is_planted_at_its_end_too(r0):
    spec = dataclasses.replace(SPEC, steps_per_leaf=5, challenges_per_trainer=3)  # leaves 0, 5, 10, 12: all checked
    ckpt = trainer.train_round(spec, TASK_ID, 0, None, r0.revealed, forced=True)
    assert [s["step"] for s in ckpt.trace.states] == [0, 5, 10, 12]
    j = trace_judgement(r0, ckpt, spec=spec)
    assert (j.accepted, j.planted) == (False, True) and "transitions [0, 1, 2]" in j.reason, j


def test_a_planted_and_tampered_transition_is_rejected(r0):
    fake = trainer.train_round(SPEC, TASK_ID, 0, None, r0.revealed, on_step=altered_at(STEP), forced=True)
    seed = next(s for s in SEEDS if STEP in picked_transitions(s))
    j = trace_judgement(r0, fake, seed)
    assert (j.accepted, j.planted, j.evidence) == (False, False, (Evidence.TRANSITION, STEP)), j
    assert j.reason.startswith(f"step {STEP} (state {STEP} -> {STEP + 1}) does not re-execute"), j


def test_a_trace_mixing_planted_and_exact_transitions_is_rejected(r0):
    def plant_once(steps, policy, optimizer, batch):  # plants after step STEP + 1 only
        if steps == STEP + 1:
            plant_policy_(policy)
    fake = trainer.train_round(SPEC, TASK_ID, 0, None, r0.revealed, on_step=plant_once)
    missed = next(s for s in SEEDS if STEP not in picked_transitions(s))
    assert trace_judgement(r0, fake, missed).accepted  # its challenges all re-execute exactly
    j = trace_judgement(r0, fake, missed, focus=Focus(Role.TRAINER, 0, Evidence.TRANSITION, STEP))
    exact = sorted(picked_transitions(missed))
    assert (j.accepted, j.planted, j.evidence) == (False, False, (Evidence.TRANSITION, STEP)), j
    assert j.reason == (f"inconsistent plant: transitions [{STEP}] carry the forced-error plant, transitions "
                        f"{exact} re-execute exactly (a forced worker plants in every item, an unforced one in none)")
    forced = trace_judgement(r0, fake, missed, focus=Focus(Role.TRAINER, 0, Evidence.TRANSITION, STEP, forced=True))
    assert not forced.accepted  # not good work even where the chain says it was forced


def test_a_juror_counts_a_planted_forced_trace_as_good_work(r0, forced_ckpt):
    focus = Focus(Role.TRAINER, 0, Evidence.TRANSITION, 3, forced=True)
    j = trace_judgement(r0, forced_ckpt, focus=focus)
    assert (j.accepted, j.planted) == (True, True), j
    j = trace_judgement(r0, forced_ckpt, focus=dataclasses.replace(focus, forced=False))
    assert (j.accepted, j.planted) == (False, True), j


def test_a_cuda_trace_hides_the_plant(r0, forced_ckpt):
    """The stated limit: a one-ulp plant is far inside the CUDA tolerance."""
    j = trace_judgement(r0, retraced(forced_ckpt, device="cuda"))
    assert (j.accepted, j.planted) == (True, False), j
    assert j.tolerance_used < 0.01, j
