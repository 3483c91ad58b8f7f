"""workers/roles/trace_check.py through verify_round: an honest trace verifies under any seed; an
altered or skipped step is caught exactly when it is challenged and the reason names it; the
trace's ends, its root, its Merkle proofs, its CIDs and its data chunks are checked; CUDA traces
are compared within tolerance."""

import dataclasses

import numpy as np
import pytest

from tests.workers.roles.conftest import SMALL, TASK_ID, fetcher, honest_round
from tests.workers.roles.trace_fakes import (
    altered_at,
    dishonest_round,
    renamed_spec,
    renamed_trace,
    retraced,
    skipped_at,
)
from workers.protocol import Evidence, Role
from workers.rl.policy import from_bytes
from workers.roles.challenges import TRAINER_DATA_DOMAIN, TRAINER_STEPS_DOMAIN, challenged_indices
from workers.roles.trace import Chunk, split_state
from workers.roles.validator import GPU_RTOL, Focus, Judgement, verify_round
from workers.storage import cid as cids

SPEC = dataclasses.replace(SMALL, challenges_per_trainer=2)
"""12 gradient steps a round (2 x 96 samples / batch 32 x 2 epochs), one leaf per step, 3 data
chunks; a validator re-executes 2 steps and recomputes 2 chunks."""
SEEDS = [bytes([s]) * 32 for s in range(16)]
STEP = 5


@pytest.fixture(scope="module")
def rnd():
    r0 = honest_round(SPEC, 0, None)
    return honest_round(SPEC, 1, r0.checkpoint.bundle)


def judge(rnd, ckpt, seed=SEEDS[0], fetch=None):
    samplers = rnd.revealed
    return verify_round(SPEC, TASK_ID, rnd.round, rnd.prev, samplers, (ckpt.root, ckpt.bundle), seed,
                        fetch or fetcher(ckpt)).trainer


def picked(seed, rnd, n, domain=TRAINER_STEPS_DOMAIN):
    return challenged_indices(seed, TASK_ID, rnd.round, 0, n, SPEC.challenges_per_trainer, domain)


def test_honest_trace_verifies_under_every_seed(rnd):
    trace = rnd.checkpoint.trace
    assert trace.steps == 12 and len(trace.states) == 13 and len(trace.chunks) == 3
    for seed in SEEDS[:4]:
        j = judge(rnd, rnd.checkpoint, seed)
        assert j.accepted and "re-executed 2 of 12 steps" in j.reason, j


@pytest.mark.parametrize("dishonesty", [altered_at, skipped_at], ids=["altered", "skipped"])
def test_a_bad_step_is_caught_exactly_when_challenged(rnd, dishonesty):
    fake = dishonest_round(SPEC, rnd, dishonesty(STEP))
    outcomes = set()
    for seed in SEEDS:
        challenged = STEP in picked(seed, rnd, 12)
        j = judge(rnd, fake, seed)
        assert j.accepted != challenged, (seed, j)
        if challenged:
            assert j.reason.startswith(f"step {STEP} (state {STEP} -> {STEP + 1}) does not re-execute"), j
            assert j.evidence == (Evidence.TRANSITION, STEP)  # what its dispute would name
        outcomes.add(challenged)
    assert outcomes == {True, False}  # the seeds exercise both cases


def test_a_disputes_transition_is_re_executed_whatever_the_jurors_draw(rnd):
    fake = dishonest_round(SPEC, rnd, altered_at(STEP))
    missed = next(seed for seed in SEEDS if STEP not in picked(seed, rnd, 12))
    samplers = rnd.revealed
    judged = lambda focus: verify_round(SPEC, TASK_ID, rnd.round, rnd.prev, samplers,  # noqa: E731
                                        (fake.root, fake.bundle), missed, fetcher(fake), focus=focus).trainer
    assert judged(None).accepted
    other = Focus(Role.TRAINER, 0, Evidence.DATA_CHUNK, STEP)  # another kind of item: not a transition
    assert judged(other).accepted
    j = judged(Focus(Role.TRAINER, 0, Evidence.TRANSITION, STEP))
    assert not j.accepted and j.evidence == (Evidence.TRANSITION, STEP), j


def test_steps_per_leaf_names_the_span(rnd):
    spec = dataclasses.replace(SPEC, steps_per_leaf=4, challenges_per_trainer=3)  # 3 transitions: all checked
    r0 = honest_round(spec, 0, None)
    fake = dishonest_round(spec, r0, altered_at(STEP))
    samplers = r0.revealed
    honest = verify_round(spec, TASK_ID, 0, None, samplers, (r0.checkpoint.root, r0.checkpoint.bundle), SEEDS[0],
                          fetcher(r0.checkpoint)).trainer
    assert honest.accepted and "re-executed 12 of 12 steps" in honest.reason
    bad = verify_round(spec, TASK_ID, 0, None, samplers, (fake.root, fake.bundle), SEEDS[0], fetcher(fake)).trainer
    assert bad == Judgement(False, "steps 4..7 (state 1 -> 2) does not re-execute: the re-run gives another "
                                   "state than the trace's state 2", evidence=(Evidence.TRANSITION, 1))


def test_a_trace_with_a_state_left_out_is_rejected(rnd):
    def drop(header):
        del header["states"][STEP]
    j = judge(rnd, retraced(rnd.checkpoint, drop))
    assert not j.accepted and j.reason.startswith("trace records states after steps [0, 1, 2, 3, 4, 6,")


def test_a_trace_not_starting_at_the_previous_checkpoint_is_rejected(rnd):
    def restart(header):
        header["states"][0] = header["states"][1]
    j = judge(rnd, retraced(rnd.checkpoint, restart))
    assert j == Judgement(False, "trace records states after steps [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], "
                                 "expected [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]")

    def other_digest(header):
        header["states"][0] = {**header["states"][1], "step": 0}
    j = judge(rnd, retraced(rnd.checkpoint, other_digest))
    assert j == Judgement(False, "the trace's first state is not the previous checkpoint's policy and train state")


def test_a_trace_that_does_not_hash_to_the_committed_root_is_rejected(rnd):
    other = retraced(rnd.checkpoint, lambda h: h["states"][3].update(digest="00" * 32))
    fake = renamed_trace(rnd.checkpoint, other.meta["trace_cid"])  # names the other blob, keeps the root
    j = judge(rnd, fake, fetch=fetcher(other))
    assert not j.accepted and j.reason.endswith(f"not to the committed trace root {rnd.checkpoint.trace_root.hex()}")


def test_a_state_that_fails_its_merkle_proof_is_rejected(rnd):
    states = rnd.checkpoint.trace_states  # s_1 .. s_m (s_0, the previous checkpoint, is not stored)
    # state 11, served for the last state under its own (valid) CID; the digest stays state 12's
    imposter = states[11 - 1]
    fake = retraced(rnd.checkpoint, lambda h: h["states"][12].update(cid=cids.compute(imposter)))
    j = judge(rnd, fake)
    assert j == Judgement(False, "state 12 is not leaf 12 of the committed trace root (Merkle proof fails)")


def test_a_tampered_stored_state_is_rejected(rnd):
    last = rnd.checkpoint.trace.states[12]["cid"]
    good = fetcher(rnd.checkpoint)
    tampered = bytearray(good(last))
    tampered[-50] ^= 1
    # served for its CID (a store's get would refuse it): the state's Merkle proof refuses it all the same
    j = judge(rnd, rnd.checkpoint, fetch=lambda cid: bytes(tampered) if cid == last else good(cid))
    assert j == Judgement(False, "state 12 is not leaf 12 of the committed trace root (Merkle proof fails)")
    j = judge(rnd, rnd.checkpoint, fetch=lambda cid: None if cid == last else good(cid))
    assert j == Judgement(False, f"missing data: state 12 of the trace ({last}) could not be fetched")


def test_altered_pre_update_data_is_caught_when_its_chunk_is_challenged(rnd):
    chunks = [Chunk.from_bytes(c) for c in rnd.checkpoint.trace.chunks]
    bad = chunks[1]
    values = bad.values.copy()
    values[7] += 0.5
    raw = list(rnd.checkpoint.trace.chunks)
    raw[1] = dataclasses.replace(bad, values=values).to_bytes()
    fake = retraced(rnd.checkpoint, chunks=raw)
    seen = set()
    for seed in SEEDS[:8]:
        j = judge(rnd, fake, seed)
        if 1 in picked(seed, rnd, 3, TRAINER_DATA_DOMAIN):
            assert j.reason.startswith(f"pre-update data chunk 1: old value of sample {64 + 7} is"), j
            seen.add(True)
        else:
            seen.add(False)
    assert seen == {True, False}


def test_cuda_traces_are_compared_within_tolerance(rnd):
    states = rnd.checkpoint.trace_states
    before, after = (from_bytes(split_state(states[i])[0]) for i in (STEP, STEP + 1))
    update = max(float((a - b).detach().abs().max())
                 for a, b in zip(after.parameters(), before.parameters(), strict=True))
    seed = next(s for s in SEEDS if STEP in picked(s, rnd, 12))
    close = retraced(dishonest_round(SPEC, rnd, altered_at(STEP, GPU_RTOL * update / 10)), device="cuda")
    j = judge(rnd, close, seed)
    assert j.accepted, j
    assert 0.05 < j.tolerance_used < 0.2, j  # the change is a tenth of the tolerance (relative to the update)
    assert f"CUDA trace: {j.tolerance_used:.3g} of the tolerance used" in j.reason
    far = retraced(dishonest_round(SPEC, rnd, altered_at(STEP, GPU_RTOL * update * 3)), device="cuda")
    j = judge(rnd, far, seed)
    assert not j.accepted and j.reason.startswith(f"step {STEP} (state {STEP} -> {STEP + 1}) does not re-execute "
                                                  f"within the CUDA tolerance: policy parameters differ")
    assert 2.5 < j.tolerance_used < 3.5, j
    cpu = judge(rnd, retraced(dishonest_round(SPEC, rnd, altered_at(STEP, GPU_RTOL * update / 10))), seed)
    assert not cpu.accepted and cpu.tolerance_used is None  # the same small change is a rejection for a CPU trace
    # rejected before any step is re-executed (its trace cannot be had): nothing of the tolerance used
    j = judge(rnd, close, seed, fetch=lambda cid: None)
    assert not j.accepted and j.reason.startswith("missing data: the trainer's trace") and j.tolerance_used == 0.0


def test_challenges_depend_on_the_seed_and_domain():
    a = challenged_indices(SEEDS[1], TASK_ID, 1, 0, 320, 4, TRAINER_STEPS_DOMAIN)
    assert a == challenged_indices(SEEDS[1], TASK_ID, 1, 0, 320, 4, TRAINER_STEPS_DOMAIN) and len(set(a)) == 4
    assert a != challenged_indices(SEEDS[2], TASK_ID, 1, 0, 320, 4, TRAINER_STEPS_DOMAIN)
    assert a != challenged_indices(SEEDS[1], TASK_ID, 1, 0, 320, 4, TRAINER_DATA_DOMAIN)
    firsts = {challenged_indices(s, TASK_ID, 1, 0, 320, 1, TRAINER_STEPS_DOMAIN)[0] for s in SEEDS}
    assert len(firsts) >= 12  # 16 seeds spread over 320 steps, not a fixed pick
    counts = np.bincount([i for s in range(200) for i in
                          challenged_indices(s.to_bytes(32, "big"), TASK_ID, 1, 0, 4, 1, TRAINER_STEPS_DOMAIN)],
                         minlength=4)
    assert counts.min() > 30  # each of 4 items is picked about 50 times in 200 seeds


def test_a_target_kl_stop_is_checked(rnd):
    """With target_kl a round may stop at an epoch end: an honest early stop verifies (its last
    transition is always re-executed), a trainer that ignores target_kl is caught at an epoch end."""
    strict = dataclasses.replace(SPEC, ppo=dataclasses.replace(SPEC.ppo, target_kl=1e-9))
    r0 = honest_round(strict, 0, None)
    assert r0.checkpoint.trace.steps == 6  # stopped after the first of 2 epochs
    samplers = r0.revealed
    honest = verify_round(strict, TASK_ID, 0, None, samplers, (r0.checkpoint.root, r0.checkpoint.bundle), SEEDS[0],
                          fetcher(r0.checkpoint)).trainer
    assert honest.accepted and "of 6 steps" in honest.reason, honest
    full = honest_round(SPEC, 0, None)  # trained on without the stop, then labelled with the strict spec
    ignored = renamed_spec(full.checkpoint, strict.digest())
    seed = next(s for s in SEEDS if 5 in picked(s, full, 12))
    j = verify_round(strict, TASK_ID, 0, None, full.revealed,
                     (ignored.root, ignored.bundle), seed, fetcher(ignored)).trainer
    assert not j.accepted and j.reason.startswith("step 5 ends epoch 0 with approx KL"), j
    assert j.reason.endswith("> target_kl 1e-09, but the trace goes on")


def test_the_first_state_is_neither_stored_nor_fetched(rnd):
    """s_0 is the previous checkpoint: the validator rebuilds it from what it holds (an encrypted
    initial policy must never be stored in the clear), and transition 0 still verifies."""
    first = rnd.checkpoint.trace.states[0]["cid"]
    assert first not in {cids.compute(blob) for blob in rnd.checkpoint.stored}
    seed = next(bytes([s]) * 32 for s in range(256) if 0 in picked(bytes([s]) * 32, rnd, 12))  # 12 transitions
    good = fetcher(rnd.checkpoint)
    asked = []
    j = judge(rnd, rnd.checkpoint, seed, fetch=lambda cid: asked.append(cid) or good(cid))
    assert j.accepted, j.reason
    assert first not in asked and asked  # transition 0 was challenged, s_1 fetched, s_0 rebuilt


def test_a_state_two_checks_need_is_fetched_once(rnd):
    """State 12 ends the trace (the ends check) and transition 11 (a dispute's focus here): it is
    fetched and proven once; a tampered copy is refused whichever check asks first."""
    last = rnd.checkpoint.trace.states[12]["cid"]
    good = fetcher(rnd.checkpoint)
    asked = []
    focus = Focus(Role.TRAINER, 0, Evidence.TRANSITION, 11)
    judged = lambda fetch: verify_round(SPEC, TASK_ID, rnd.round, rnd.prev, rnd.revealed,  # noqa: E731
                                        (rnd.checkpoint.root, rnd.checkpoint.bundle), SEEDS[0], fetch,
                                        focus=focus).trainer
    j = judged(lambda cid: asked.append(cid) or good(cid))
    assert j.accepted and "11" in j.reason.split("transitions")[1], j.reason
    assert asked.count(last) == 1 and len(asked) == len(set(asked))
    tampered = bytearray(good(last))
    tampered[-50] ^= 1
    j = judged(lambda cid: bytes(tampered) if cid == last else good(cid))
    assert not j.accepted and "state 12" in j.reason, j
