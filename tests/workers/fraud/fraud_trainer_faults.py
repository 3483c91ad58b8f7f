"""Dishonest trainers for the fraud matrix and bench/verify.py, each a drop-in for
workers.roles.trainer.train_round (same signature, `TRAIN` is its dotted name for `Cheat`).

A validator re-executes only `challenges_per_trainer` transitions of a trace (steps_per_leaf
gradient steps each), so a cheat confined to one step is seen only when its transition is
challenged. The matrix's step faults therefore tamper with EVERY transition (`altered_steps`
alters every gradient step, `skipped_steps` skips the first step of every transition): any
challenge exposes them and the verdict does not hinge on which transitions a validator picks.
The single-step variants (`altered_step_at`, `skipped_step_at`) are what bench/verify.py
measures against SPECIFICATION.md's detection formula; the partial ones (`altered_steps_of`,
`skipped_steps_of`: a fraction of the steps or transitions) are what bench/incentives.py plays.

"A checkpoint that does not match its commitment": a trainer commits keccak(root, CID, salt)
and reveals root and CID, where the root binds the policy, the train state and the metadata
(which carries the trace root, so the whole trace is fixed at commitment too). So two
mismatches are possible, and both are faults here: `bundle_off_its_root` reveals a root that its
stored bundle does not hash to, and `policy_off_its_trace` ships a bundle that does hash to the
revealed root but whose policy is not the last state of the trace that root commits (the honest
trace, then a doctored policy)."""
from __future__ import annotations

import dataclasses
import random

import torch
from eth_utils import keccak
from fraud_faults import share_of

from tests.workers.roles.trace_fakes import altered_at, rebundle, skipped_at
from workers.rl.policy import from_bytes, to_bytes
from workers.roles import trainer as trainer_role

HONEST_TRAIN = trainer_role.train_round
TRAIN = "workers.roles.trainer.train_round"


def _with_hooks(*hooks):
    """A train_round that runs honestly with `hooks` (ppo.train_round's on_step) tampering."""
    def train_round(spec, task_id, round_, prev_bundle, shards, *, device="auto", on_step=None, forced=False):
        def hook(*args):
            for h in hooks:
                h(*args)
        return HONEST_TRAIN(spec, task_id, round_, prev_bundle, shards, device=device, on_step=hook, forced=forced)
    return train_round


def _steps(spec, shards) -> int:
    """An upper bound on the round's gradient steps: E x ceil(samples / B) with the spec's PPO."""
    samples = len(shards) * spec.steps_per_shard
    return spec.ppo.update_epochs * -(-samples // spec.ppo.batch_size)


def altered_steps(spec, task_id, round_, prev_bundle, shards, *, device="auto", on_step=None, forced=False):
    """Alters the parameters after every gradient step (the trace records the altered states)."""
    hooks = [altered_at(s) for s in range(_steps(spec, shards))]
    return _with_hooks(*hooks)(spec, task_id, round_, prev_bundle, shards, device=device, forced=forced)


def skipped_steps(spec, task_id, round_, prev_bundle, shards, *, device="auto", on_step=None, forced=False):
    """Skips (undoes) the first gradient step of every transition of steps_per_leaf steps."""
    hooks = [skipped_at(s) for s in range(0, _steps(spec, shards), spec.steps_per_leaf)]
    return _with_hooks(*hooks)(spec, task_id, round_, prev_bundle, shards, device=device, forced=forced)


def altered_step_at(step: int):
    """A train_round that alters the parameters after gradient step `step` only."""
    return _with_hooks(altered_at(step))


def skipped_step_at(step: int):
    """A train_round that skips gradient step `step` only."""
    return _with_hooks(skipped_at(step))


def altered_steps_of(fraction: float, rng: random.Random):
    """A train_round that alters the parameters after a random `fraction` of its gradient steps
    (of _steps' upper bound: a drawn step past the round's last is not played)."""
    def train_round(spec, task_id, round_, prev_bundle, shards, *, device="auto", on_step=None, forced=False):
        hooks = [altered_at(s) for s in sorted(share_of(fraction, rng)(_steps(spec, shards)))]
        return _with_hooks(*hooks)(spec, task_id, round_, prev_bundle, shards, device=device, forced=forced)
    return train_round


def skipped_steps_of(fraction: float, rng: random.Random):
    """A train_round that skips the first gradient step of a random `fraction` of its transitions
    (steps_per_leaf steps each)."""
    def train_round(spec, task_id, round_, prev_bundle, shards, *, device="auto", on_step=None, forced=False):
        firsts = range(0, _steps(spec, shards), spec.steps_per_leaf)
        hooks = [skipped_at(firsts[i]) for i in sorted(share_of(fraction, rng)(len(firsts)))]
        return _with_hooks(*hooks)(spec, task_id, round_, prev_bundle, shards, device=device, forced=forced)
    return train_round


def shard_left_out(spec, task_id, round_, prev_bundle, shards, **kwargs):
    """Trains honestly on every shard but the last, as a trainer that claims it could not fetch
    it (the answer to a sampler whose content has gone) would, to save the work."""
    return HONEST_TRAIN(spec, task_id, round_, prev_bundle, shards[:-1], **kwargs)


def bundle_off_its_root(*args, **kwargs):
    """Trains and stores honestly, but commits (and reveals) a root its bundle does not hash to."""
    honest = HONEST_TRAIN(*args, **kwargs)
    return dataclasses.replace(honest, root=keccak(b"not the root of this bundle" + honest.root))


def policy_off_its_trace(*args, **kwargs):
    """Trains honestly (trace and train state as trained), then bundles a doctored policy: the
    bundle hashes to the root it commits, but the trace under that root does not end in it."""
    honest = HONEST_TRAIN(*args, **kwargs)
    policy = from_bytes(honest.policy_bytes)
    with torch.no_grad():
        policy.actor[0].weight.add_(1e-2)
    doctored = rebundle(honest, policy_bytes=to_bytes(policy))
    return dataclasses.replace(doctored, stats=honest.stats)
