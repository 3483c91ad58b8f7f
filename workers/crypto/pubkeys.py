"""A node's secp256k1 public key, recovered from a transaction it signed.

Every node that holds a slot has staked for its role, and `StakeManager.stake` is sent by the node
itself, so its `Staked` events point at transactions signed with the node's key. The public key
recovered from such a signature is checked against the node's address (keccak of the key), so the
chain vouches for it: no key registry and no announcement to trust. A node that signs through a
contract wallet has no such key (NoPublicKey)."""
from __future__ import annotations

from eth_account._utils.legacy_transactions import Transaction, vrs_from
from eth_account._utils.signing import hash_of_signed_transaction, to_standard_v
from eth_account.typed_transactions import TypedTransaction
from eth_keys import keys
from eth_utils import to_checksum_address
from hexbytes import HexBytes

from workers.crypto.errors import NoPublicKey


def public_key_of(private_key: bytes) -> bytes:
    """The 64-byte public key (x || y) of a 32-byte private key."""
    return keys.PrivateKey(bytes(private_key)).public_key.to_bytes()


def public_key_of_raw_tx(raw: bytes) -> bytes:
    """The 64-byte public key that signed a serialized transaction (legacy or typed)."""
    raw = HexBytes(raw)
    if raw and raw[0] <= 0x7F:
        typed = TypedTransaction.from_bytes(raw)
        msg_hash, (v, r, s) = typed.hash(), typed.vrs()
    else:
        legacy = Transaction.from_bytes(raw)
        msg_hash, (v, r, s) = hash_of_signed_transaction(legacy), vrs_from(legacy)
    signature = keys.Signature(vrs=(to_standard_v(v), r, s))
    return signature.recover_public_key_from_msg_hash(msg_hash).to_bytes()


def public_key_from_tx(w3, tx_hash, address: str) -> bytes:
    """The public key of `address`, recovered from its transaction `tx_hash`; NoPublicKey if the
    transaction was signed by another key."""
    raw = w3.eth.get_raw_transaction(tx_hash)
    public = public_key_of_raw_tx(raw)
    signer = keys.PublicKey(public).to_checksum_address()
    if signer != to_checksum_address(address):
        raise NoPublicKey(f"transaction {bytes(tx_hash).hex()} was signed by {signer}, not {address}")
    return public


def node_public_key(deployment, node: str) -> bytes:
    """The public key of `node`, from its first `Staked` transaction since the deployment."""
    node = to_checksum_address(node)
    logs = deployment.stakes.events.Staked.get_logs(argument_filters={"node": node},
                                                    from_block=deployment.block)
    for log in logs:
        tx = deployment.w3.eth.get_transaction(log["transactionHash"])
        if to_checksum_address(tx["from"]) == node:
            return public_key_from_tx(deployment.w3, log["transactionHash"], node)
    raise NoPublicKey(f"no public key for node {node}: it sent no StakeManager.stake transaction since block "
                      f"{deployment.block} that this RPC returns (contract wallets cannot receive encrypted inputs)")
