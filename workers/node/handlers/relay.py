"""The attestation relay and the node's BLS key (SPECIFICATION.md 5.5.2).

RELAY. A Redis that every validator of a task can reach: `--attest-relay URL` /
$DECENTRL_ATTEST_RELAY, by default the node's own REDIS_URL (shared by every node of a local
network and by the hosts of one operator's cluster). `ipfs`: the node's own Redis, filled over
IPFS pubsub by every validator node of the deployment, with no server they must all reach
(relay_gossip, relay_bridge). `off` disables it: the node then always votes with its own `attest`.

Per (chain id, registry, task, round) one hash,
    decentrl:attest-relay:<chainId>:<registry>:<taskId>:<round>
with one field per validator slot -> JSON {"acceptBitmap": int, "signature": ["x", "y"], "node":
"0x.."} (the slot's BLS signature of attestationMessage(taskId, round, acceptBitmap)), expiring
RELAY_TTL_S after the last post. The relay is untrusted: it can withhold entries (the validators
fall back to `attest`) or inject garbage (entries are checked against the chain and the aggregate
is simulated before it is sent: workers.roles.aggregation). Only signatures travel through it,
which the chain would publish anyway; never a key.

BLS KEY. A validator's key is derived from its account key (workers.crypto.attest_messages.
key_from_node_key) and registered with StakeManager.registerBlsKey (`registration_call`,
`ensure_bls_key`) when it stakes as a validator and when `node start` runs the validator role; it
is never logged."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import redis as redis_py

from workers.crypto.attest_messages import key_from_node_key, registration_args
from workers.crypto.bls import BlsKey
from workers.storage.ipfs_pubsub import PubsubUnavailable

log = logging.getLogger(__name__)

RELAY_ENV = "DECENTRL_ATTEST_RELAY"
OFF = "off"
IPFS = "ipfs"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
RelayUnavailable = (redis_py.exceptions.RedisError, PubsubUnavailable)
"""What posting to or reading the relay raises when it is down: the validator then votes alone."""
RELAY_TTL_S = 3600
"""How long a round's entries stay after the last post: well past any Attest window the nodes
serve, short enough that an abandoned relay does not fill up."""


@dataclass(frozen=True)
class RelayEntry:
    """One validator slot's signed vote as the relay carries it, with the salt its sealed vote
    opens with (public once the vote is opened; the aggregate carries it)."""

    accept_bitmap: int
    signature: tuple[int, int]
    node: str
    salt: bytes

    def to_json(self) -> str:
        return json.dumps({"acceptBitmap": int(self.accept_bitmap),
                           "signature": [str(int(v)) for v in self.signature], "node": self.node,
                           "salt": "0x" + bytes(self.salt).hex()},
                          sort_keys=True)

    @classmethod
    def parse(cls, raw: bytes | str) -> RelayEntry | None:
        """The entry, or None for anything that is not one (the relay may hold garbage)."""
        try:
            data = json.loads(raw)
            bitmap = int(data["acceptBitmap"])
            x, y = (int(v) for v in data["signature"])
            node, salt = data["node"], data["salt"]
            if not isinstance(node, str) or not node.startswith("0x") or len(node) != 42 or bitmap < 0:
                return None
            if not isinstance(salt, str) or not salt.startswith("0x") or len(salt) != 66:
                return None
            return cls(bitmap, (x, y), node, bytes.fromhex(salt[2:]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


class AttestRelay:
    """The relay hashes of one deployment (chain id and registry) on one Redis."""

    def __init__(self, client: redis_py.Redis, chain_id: int, registry: str, ttl_s: int = RELAY_TTL_S):
        self.client = client
        self.prefix = f"decentrl:attest-relay:{int(chain_id)}:{registry.lower()}"
        self.ttl_s = int(ttl_s)

    @classmethod
    def from_url(cls, url: str, chain_id: int, registry: str, ttl_s: int = RELAY_TTL_S) -> AttestRelay:
        return cls(redis_py.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5), chain_id, registry,
                   ttl_s)

    def key(self, task_id: int, round_: int) -> str:
        return f"{self.prefix}:{int(task_id)}:{int(round_)}"

    def post(self, task_id: int, round_: int, slot: int, entry: RelayEntry) -> None:
        key = self.key(task_id, round_)
        with self.client.pipeline() as pipe:
            pipe.hset(key, str(int(slot)), entry.to_json())
            pipe.expire(key, self.ttl_s)
            pipe.execute()

    def entries(self, task_id: int, round_: int, num_validators: int) -> dict[int, RelayEntry]:
        """slot -> entry for every well-formed entry of a slot < num_validators; the rest is ignored."""
        out = {}
        for field, raw in self.client.hgetall(self.key(task_id, round_)).items():
            try:
                slot = int(field)
            except ValueError:
                continue
            entry = RelayEntry.parse(raw)
            if entry is not None and 0 <= slot < num_validators:
                out[slot] = entry
        return out


def check_setting(setting: str | None, ipfs_api: str | None) -> None:
    """ValueError, saying what to give, unless `setting` is a valid attest_relay (NodeSettings)."""
    if setting is None or setting == OFF or setting.startswith(REDIS_SCHEMES):
        return
    if setting == IPFS:
        if not ipfs_api:
            raise ValueError("attest relay 'ipfs' needs the node's IPFS node (--ipfs-api): the validators' "
                             "signatures travel over its pubsub")
        return
    raise ValueError(f"attest relay {setting!r}: give a Redis URL ({', '.join(REDIS_SCHEMES)}), "
                     f"'{IPFS}' (over the IPFS node's pubsub) or '{OFF}'")


def relay_url(setting: str | None, redis_url: str) -> str | None:
    """The Redis the relay is read from, from the node's attest_relay setting (NodeSettings): the
    node's own for None and "ipfs" (which the relay bridge fills); "off" means no relay (None)."""
    if setting == OFF:
        return None
    return redis_url if setting in (None, IPFS) else setting


def open_relay(settings, redis_url: str, chain_id: int, registry: str, account):
    """The relay the node's handlers post to and read (an AttestRelay, or a GossipRelay over IPFS
    pubsub that `account` signs for), or None when it is "off"."""
    url = relay_url(settings.attest_relay, redis_url)
    if url is None:
        return None
    local = AttestRelay.from_url(url, chain_id, registry)
    if settings.attest_relay != IPFS:
        return local
    from workers.node.handlers.relay_gossip import GossipRelay

    return GossipRelay(local, account, chain_id, registry, settings.ipfs_api)


# -- the node's BLS key ----------------------------------------------------------------------------

def bls_key(account) -> BlsKey:
    """The node's BLS key (from its account key; never logged: BlsKey's repr omits the secret)."""
    return key_from_node_key(bytes(account.key))


def registered_key(deployment, address: str) -> tuple[tuple, tuple]:
    """(G2 key, G1 key) the chain holds for `address` (zeros when none). Read through ViewCall,
    which decodes by type: blsKeyOf's two outputs are unnamed in the ABI, and web3.py's contract
    call keeps only the last of two equal names."""
    from workers.chain.calls import ViewCall

    pk2, pk1 = ViewCall(deployment.stakes, "blsKeyOf")(address)
    return tuple(pk2), tuple(pk1)


def has_key(deployment, address: str, key: BlsKey) -> bool:
    return registered_key(deployment, address) == (tuple(key.pubkey_g2), tuple(key.pubkey_g1))


def registration_call(deployment, account):
    """The registerBlsKey call for the node's key, or None when the chain already holds exactly it
    (so registering is idempotent); the account must be a staked validator (else NotAValidator)."""
    key = bls_key(account)
    if has_key(deployment, account.address, key):
        return None
    args = registration_args(key, account.address, deployment.chain_id, deployment.stakes.address)
    return deployment.stakes.functions.registerBlsKey(*args)


def register_bls_key(deployment, account, send) -> str:
    """Registers the validator's BLS key unless the chain holds it, sending with `send(call)`; says
    which, for the operator (the key itself is never shown)."""
    call = registration_call(deployment, account)
    if call is None:
        return "BLS key registered already (validator votes can be aggregated)"
    receipt = send(call)
    return (f"registered the node's BLS key (tx {receipt['transactionHash'].to_0x_hex()}): its validator votes "
            "can be aggregated")


def ensure_bls_key(deployment, sender, account):
    """Registers the node's BLS key unless the chain holds it; the receipt, or None when nothing
    was sent."""
    call = registration_call(deployment, account)
    if call is None:
        return None
    receipt = sender.send(call)
    log.info("registered the node's BLS key for %s", account.address)
    return receipt
