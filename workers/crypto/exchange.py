"""The key exchange of encrypted inputs over the chain and the store (SPECIFICATION 5.7).

Requester (`post_keyring`): reads the task's assigned nodes from the registry (through the
caller's ChainView: crypto imports nothing of the chain layer), recovers each
one's public key from its own `Staked` transaction, wraps the data key for each (bound to chain,
registry, task and node), stores the keyring and posts its CID with `KeyringBoard.postKeyring`.
Posting again after an assignment change replaces the keyring; posting the same set is skipped.

Node (`open_inputs`): only while it holds a slot in the task, reads the keyring CID from the
board (the requester is the only account that can post it), fetches the keyring and the
ciphertext (both checked against their CIDs by the store), opens its own entry with its account
key, checks the data key against the spec's commitment, verifies the GCM tag and returns the
plaintext. The plaintext and the keys stay in memory: nothing here writes them anywhere."""
from __future__ import annotations

from dataclasses import dataclass

from eth_utils import to_checksum_address

from workers.crypto import inputs, keyring
from workers.crypto.errors import KeyringNotPosted, NotAssigned, NotRequester
from workers.crypto.pubkeys import node_public_key


@dataclass(frozen=True)
class Posted:
    """What `post_keyring` did: the keyring's CID, the nodes it covers, and the receipt (None
    when the board already held a keyring for exactly these nodes)."""

    cid: str
    nodes: tuple[str, ...]
    receipt: dict | None


def assigned_nodes(view, task_id: int) -> tuple[str, ...]:
    """Every node holding a slot in the task (any role), sorted; `view` is a workers.chain.view.ChainView."""
    return tuple(sorted({s.node for s in view.slots(task_id) if s.node}))


def _current_keyring(deployment, store, task_id: int, descriptor) -> keyring.Keyring | None:
    cid = deployment.keyrings.functions.keyringOf(task_id).call()
    if not cid:
        return None
    return keyring.parse(store.get(cid), chain_id=deployment.chain_id, registry=deployment.registry.address,
                         task_id=task_id, inputs_cid=descriptor.cid)


def post_keyring(view, store, requester, send, task_id: int, descriptor: inputs.EncryptedInputs) -> Posted:
    """Wraps the data key of `descriptor` for every node assigned to the task and posts the
    keyring. `view` is a ChainView of the deployment; `requester` is the requester's LocalAccount;
    `send(call)` sends a contract call from it and returns the receipt. NotRequester if the account
    is not the task's requester, NoPublicKey for a node without a recoverable key."""
    deployment = view.deployment
    task = deployment.state.functions.taskOf(task_id).call()
    if to_checksum_address(task.requester) != requester.address:
        raise NotRequester(f"task {task_id}'s requester is {task.requester}, not {requester.address}: only the "
                         f"requester can wrap its data key")
    nodes = assigned_nodes(view, task_id)
    current = _current_keyring(deployment, store, task_id, descriptor)
    if current is not None and tuple(sorted(current.entries)) == nodes:
        return Posted(deployment.keyrings.functions.keyringOf(task_id).call(), nodes, None)
    ring = keyring.build(chain_id=deployment.chain_id, registry=deployment.registry.address, task_id=task_id,
                         inputs_cid=descriptor.cid, data_key=inputs.data_key(requester.key, descriptor.key_salt),
                         public_keys={n: node_public_key(deployment, n) for n in nodes})
    cid = store.put(ring.to_bytes(), pin=True)
    receipt = send(deployment.keyrings.functions.postKeyring(task_id, cid))
    return Posted(cid, nodes, receipt)


def open_inputs(deployment, store, account, task_id: int, descriptor: inputs.EncryptedInputs) -> bytes:
    """The plaintext of the task's encrypted inputs for `account` (a node's LocalAccount).

    NotAssigned: the node holds no slot in the task. KeyringNotPosted / NoKeyForNode: the
    requester has not (yet) posted a keyring that covers this node; try again later. WrongTask:
    the posted keyring is another task's. TamperedCiphertext / KeyCommitmentMismatch: the keyring
    entry, the ciphertext or the key were altered."""
    membership = deployment.state.functions.membershipOf(task_id, account.address).call()
    if not membership.assigned:
        raise NotAssigned(f"node {account.address} holds no slot in task {task_id}: only assigned nodes get the "
                          f"key of its encrypted inputs")
    cid = deployment.keyrings.functions.keyringOf(task_id).call()
    if not cid:
        raise KeyringNotPosted(f"the requester of task {task_id} has not posted a keyring yet "
                               f"(`decentrl task keys {task_id}`)")
    ring = keyring.parse(store.get(cid), chain_id=deployment.chain_id, registry=deployment.registry.address,
                         task_id=task_id, inputs_cid=descriptor.cid)
    key = ring.key_for(account.address, account.key)
    return inputs.decrypt(descriptor, store.get(descriptor.cid), key)
