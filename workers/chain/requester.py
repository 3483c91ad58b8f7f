"""What a requester sends to open a task: the spec's canonical bytes published to the store, the
EIP-712 CreateTask request signed by the requester (with an EIP-2612 permit for the bounty when its
allowance is short), and TaskFront.createTaskWithSig sent by the requester or a relayer. `decentrl task
submit` and the demo use it."""
from __future__ import annotations

from workers.protocol import NO_PERMIT, TaskParams, sign_create_task, sign_permit


def min_bounty(dep, num_samplers: int, num_validators: int, num_rounds: int) -> int:
    """The smallest bounty (wei) the registry accepts now for a task of this shape
    (StateView.minBounty: ProtocolConfig.minBountyPerSlotRound per slot and round, SPECIFICATION.md 5.2)."""
    return dep.state.functions.minBounty(num_samplers, num_validators, num_rounds).call()


def put_pinned(store, task_spec) -> str:
    """Publishes the spec's canonical bytes, pinned; its CID."""
    return store.put(task_spec.to_bytes(), pin=True)


def create_task(dep, store, requester, send, task_spec, publish=put_pinned, **params):
    """Publishes `task_spec` (a workers.spec.TaskSpec) to `store` with `publish(store, task_spec)`
    (which returns its CID; `decentrl task submit` and the demo pass workers.spec_fetch.publish_spec,
    which also reads it back by the nodes' rules), has `requester` (a LocalAccount) sign the request
    and the permit it needs, and sends createTaskWithSig with `send(call)`, which returns the receipt
    (the caller decides how a revert is reported). `params`: the other TaskParams fields. Returns
    (task id, TaskParams, receipt)."""
    from web3.logs import DISCARD

    cid = publish(store, task_spec)  # before anything is signed
    params = TaskParams(spec_cid=cid, spec_digest=task_spec.digest(), **params)
    registry, front, token, w3 = dep.registry, dep.front, dep.token, dep.w3
    deadline = w3.eth.get_block("latest")["timestamp"] + 3600
    nonce = front.functions.nonces(requester.address).call()
    signature = sign_create_task(requester.key, params, requester.address, nonce, deadline, dep.chain_id,
                                 front.address)
    permit = NO_PERMIT
    if token.functions.allowance(requester.address, registry.address).call() < params.bounty:
        permit = sign_permit(requester.key, token.address, dep.chain_id, requester.address, registry.address,
                             params.bounty, token.functions.nonces(requester.address).call(), deadline)
    # The permit's spender is the registry, which pulls the bounty; the front only submits it.
    receipt = send(front.functions.createTaskWithSig(params.as_tuple(), requester.address, deadline, signature,
                                                     permit))
    task_id = registry.events.TaskCreated().process_receipt(receipt, errors=DISCARD)[0]["args"]["taskId"]
    return task_id, params, receipt
