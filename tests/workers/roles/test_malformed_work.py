"""A validator given malformed work (a shard, a checkpoint bundle, a trace, a trace state: bytes
another node stored, consistent with the roots it committed) rejects it with the parser's reason
instead of failing its job (workers.roles.validator.verify_round)."""

import json
import struct

import torch
from eth_utils import keccak

from tests.workers.roles.conftest import SMALL, TASK_ID, fetcher
from tests.workers.roles.trace_fakes import rebundle, renamed_trace, retraced
from workers.framing import canonical, frame
from workers.merkle import merkle_root
from workers.protocol import Evidence
from workers.rl.ppo import TrainState
from workers.rl.rollout import decode_episode
from workers.roles import sampler, trainer
from workers.roles.challenges import TRAINER_STEPS_DOMAIN, challenged_indices
from workers.roles.trace import split_state, state_bytes
from workers.roles.validator import Judgement, verify_round
from workers.storage import cid as cids

SEED = b"\x07" * 32
STEP = 5


def store_fetch(*extra_ckpts, **blobs):
    """fetch(cid) as a node's store answers it: a string that is not a CID is an error (Store.get's
    ValueError), unknown content None; `blobs` adds content by CID."""
    known = fetcher(*extra_ckpts)

    def fetch(cid):
        cids.decode(cid)
        return blobs.get(cid) or known(cid)
    return fetch


def judge(rnd, samplers=None, ckpt=None, seed=SEED, fetch=None):
    ckpt = ckpt or rnd.checkpoint
    return verify_round(SMALL, TASK_ID, rnd.round, rnd.prev, samplers or rnd.revealed, (ckpt.root, ckpt.bundle),
                        seed, fetch or store_fetch(ckpt))


def shard_of(rnd, slot, items):
    """(root, blob) of a shard blob holding the episode bytes `items`, its header otherwise slot's."""
    blob = rnd.shards[slot].blob
    (hlen,) = struct.unpack_from("<I", blob, 5)
    header = {**json.loads(blob[9:9 + hlen]), "root": merkle_root(items).hex()}
    body = (struct.pack("<I", len(i)) + i for i in items)
    return merkle_root(items), frame(sampler.MAGIC, 1, canonical(header), *body)


def test_a_shard_with_a_malformed_episode_header_is_rejected(rounds):
    rnd = rounds[1]
    items = list(rnd.shards[0].episode_bytes)
    (hlen,) = struct.unpack_from("<I", items[1], 5)
    header = canonical({**json.loads(items[1][9:9 + hlen]), "steps": "many"})
    items[1] = items[1][:5] + struct.pack("<BI", 1, len(header))[1:] + header + items[1][9 + hlen:]
    root, blob = shard_of(rnd, 0, items)
    v = judge(rnd, [(0, root, blob), rnd.revealed[1]])
    assert v.samplers[0] == Judgement(False, "blob does not match the revealed root: shard blob holds a malformed "
                                             "episode: episode header steps must be an integer in [0, 2**256), "
                                             "got 'many'")


def test_an_action_outside_the_space_rejects_the_shard_and_the_trainer_that_trained_on_it(rounds):
    rnd = rounds[1]
    episodes = [decode_episode(b) for b in rnd.shards[0].episode_bytes]
    episodes[-1].actions[0] = 7  # CartPole has actions 0 and 1; the last episode is seldom challenged
    fake = sampler.bundle_shard(TASK_ID, rnd.round, 0, episodes)
    ckpt = rebundle(rnd.checkpoint, inputs=[(0, fake.root), (1, rnd.shards[1].root)])
    v = judge(rnd, [(0, fake.root, fake.blob), rnd.revealed[1]], ckpt)
    last = len(episodes) - 1
    assert v.samplers[0] == Judgement(False, f"episode {last} does not fit the round policy's spaces: it has a "
                                             f"discrete action outside [0, 2)", evidence=(Evidence.EPISODE, last))
    assert v.trainer == Judgement(False, f"trained on episode {last} of the shard of slot 0, which does not fit the "
                                         f"round policy's spaces: it has a discrete action outside [0, 2)")


def test_a_checkpoint_bundle_with_a_size_of_another_type_is_rejected(rounds):
    rnd = rounds[1]
    bundle = rnd.checkpoint.bundle
    (hlen,) = struct.unpack_from("<I", bundle, 5)
    meta = {**json.loads(bundle[9:9 + hlen]), "policy_size": str(len(rnd.checkpoint.policy_bytes))}
    fake = frame(trainer.MAGIC, 1, canonical(meta), bundle[9 + hlen:])
    v = verify_round(SMALL, TASK_ID, rnd.round, rnd.prev, rnd.revealed, (rnd.checkpoint.root, fake), SEED,
                     store_fetch(rnd.checkpoint))
    assert v.trainer == Judgement(False, "checkpoint does not match its revealed root: checkpoint metadata fields "
                                         "['policy_size'] have the wrong type or range")


def test_a_trace_cid_that_is_not_a_cid_is_rejected(rounds):
    j = judge(rounds[1], ckpt=renamed_trace(rounds[1].checkpoint, "not-a-cid")).trainer
    assert not j.accepted and j.reason.startswith("the checkpoint's trace_cid is not a CID: 'not-a-cid'")


def test_a_trace_naming_a_state_by_what_is_not_a_cid_is_rejected(rounds):
    fake = retraced(rounds[1].checkpoint, lambda h: h["states"][12].update(cid="not-a-cid"))
    j = judge(rounds[1], ckpt=fake).trainer
    assert not j.accepted and j.reason.startswith("trace is malformed: trace state entry 12 is malformed: {'cid': "), j


def replaced_state(ckpt, j, data):
    """`ckpt` with its trace's state j replaced by `data` (re-rooted, as a trainer storing it would),
    and a fetch that serves it."""
    def edit(header):
        header["states"][j].update(cid=cids.compute(data), digest=keccak(data).hex(), size=len(data))
    fake = retraced(ckpt, edit)
    return fake, store_fetch(fake, **{cids.compute(data): data})


def test_a_trace_state_whose_train_state_is_not_one_is_rejected(rounds):
    ckpt = rounds[1].checkpoint
    policy_bytes, _ = split_state(ckpt.trace_states[-1])
    fake, fetch = replaced_state(ckpt, 12, state_bytes(policy_bytes, b"\x05"))
    assert judge(rounds[1], ckpt=fake, fetch=fetch).trainer == Judgement(
        False, "state 12 of the trace is malformed: not a safetensors checkpoint: shorter than its 8-byte header "
               "length")


def _seed_challenging(rnd, j):
    return next(s for s in (bytes([i]) * 32 for i in range(256))
                if j in challenged_indices(s, TASK_ID, rnd.round, 0, 12, SMALL.challenges_per_trainer,
                                           TRAINER_STEPS_DOMAIN))


def test_a_challenged_state_whose_policy_is_not_one_is_rejected(rounds):
    ckpt = rounds[1].checkpoint
    _, train_state = split_state(ckpt.trace_states[STEP - 1])  # trace_states holds s_1 .. s_12
    fake, fetch = replaced_state(ckpt, STEP, state_bytes(b"\xff" * 40, train_state))
    j = judge(rounds[1], ckpt=fake, fetch=fetch, seed=_seed_challenging(rounds[1], STEP)).trainer
    assert not j.accepted and j.reason.startswith(f"state {STEP}'s policy is malformed: not a safetensors "
                                                  f"checkpoint: a 18446744073709551615-byte header"), j


def test_a_challenged_state_whose_adam_moments_do_not_fit_the_policy_is_rejected(rounds):
    ckpt = rounds[1].checkpoint
    policy_bytes, train_state = split_state(ckpt.trace_states[STEP - 1])
    state = TrainState.from_bytes(train_state)
    state.adam = {0: {"step": torch.tensor(1.0), "exp_avg": torch.zeros(3), "exp_avg_sq": torch.zeros(3)}}
    fake, fetch = replaced_state(ckpt, STEP, state_bytes(policy_bytes, state.to_bytes()))
    j = judge(rounds[1], ckpt=fake, fetch=fetch, seed=_seed_challenging(rounds[1], STEP)).trainer
    assert not j.accepted and j.reason.startswith(f"state {STEP} is malformed: train state's Adam moments {{0: (3,)}} "
                                                  f"do not fit the policy's 12 parameters"), j
