"""Round 0's policy from a task's encrypted inputs (SPECIFICATION 5.7), for the node's handlers.

A spec whose "inputs" is an encrypted "initial_policy" starts from the requester's policy instead
of the one its seed gives. Every assigned node opens the inputs (workers.crypto.exchange) and
turns the policy into the same *initial checkpoint bundle*: `make_checkpoint` with round -1, no
inputs, a fresh TrainState and the spec's digest. The roles take it exactly like an accepted
checkpoint (samplers roll out its policy, the trainer starts from it, validators re-run from it),
so sampling, training and verification need no change. The bundle exists only in memory: it is
never stored, and its root (a hash) is all that a round-1 checkpoint names as its `prev`."""
from __future__ import annotations

from collections import OrderedDict

from workers.crypto.errors import KeyringNotPosted, NoKeyForNode
from workers.crypto.exchange import open_inputs
from workers.node.queues.dispatch import RetryableError

_BUNDLES: OrderedDict[tuple[int, str], bytes] = OrderedDict()
BUNDLES_MAX = 16


class InputsNotReady(RetryableError):
    """The requester has not posted a keyring covering this node yet: retried with backoff."""


class BadInputs(ValueError):
    """The decrypted inputs cannot be used with the task's spec."""


def check_initial_policy(spec, policy_bytes: bytes, what: str = "the initial policy") -> None:
    """BadInputs ("`what` cannot be used: ...") if `policy_bytes` is not a policy of the spec's
    architecture (a requester checks before encrypting it, a node after decrypting it)."""
    from workers.roles.sampler import round_policy

    try:
        round_policy(spec, policy_bytes)
    except ValueError as error:
        raise BadInputs(f"{what} cannot be used: {error}") from None


def initial_bundle_of(spec, task_id: int, policy_bytes: bytes) -> bytes:
    """The initial checkpoint bundle (module doc) of `policy_bytes`; BadInputs if it is not a
    policy of the spec's architecture."""
    from workers.rl.ppo import TrainState
    from workers.roles.trainer import make_checkpoint

    check_initial_policy(spec, policy_bytes, f"task {task_id}: the encrypted initial policy")
    # No training made this checkpoint: it has no trace (zero root, no CID); nobody verifies it as
    # a round's work, it only seeds round 0 in memory.
    return make_checkpoint(task_id=task_id, round_=-1, spec_digest=spec.digest(), prev_root=None, inputs=[],
                           device="cpu", policy_bytes=policy_bytes, train_state_bytes=TrainState().to_bytes(),
                           trace_root=bytes(32), trace_cid="").bundle


def initial_bundle(ctx, task, spec) -> bytes | None:
    """The task's initial checkpoint bundle when its spec has encrypted inputs, else None."""
    descriptor = spec.encrypted_inputs
    if descriptor is None:
        return None
    key = (task.task_id, descriptor.cid)
    if key not in _BUNDLES:
        try:
            plaintext = open_inputs(ctx.deployment, ctx.store, ctx.account, task.task_id, descriptor)
        except (KeyringNotPosted, NoKeyForNode) as error:
            raise InputsNotReady(str(error)) from None
        _BUNDLES[key] = initial_bundle_of(spec, task.task_id, plaintext)
        while len(_BUNDLES) > BUNDLES_MAX:
            _BUNDLES.popitem(last=False)
    return _BUNDLES[key]
