"""A sampler episode's fault that the chain can check by itself (SPECIFICATION.md 13), found in a
stored shard blob, with the Merkle proof DisputeManager.proveFault takes.

`fault_of` mirrors contracts/libraries/EpisodeCheck.sol `faultOf` over one episode's bytes (the
Merkle leaf's item): BadEncoding, WrongRound, WrongShard, WrongSeeds, else None. Where the
contract cannot parse a header (it reverts MalformedEpisode: the jury decides) `fault_of` says
None too. The chain stays the judge: the command simulates proveFault before it sends it.

`shard_items` reads a shard blob's items (workers.roles.sampler layout) without decoding the
episodes: a blob whose episodes do not decode is exactly what may carry a provable fault."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from enum import IntEnum

from workers.framing import Malformed, unframe
from workers.merkle import MerkleTree, merkle_root
from workers.rl.rollout import derive_seeds
from workers.roles.sampler import MAGIC as SHARD_MAGIC
from workers.roles.sampler import VERSION as SHARD_VERSION

EPISODE_MAGIC, EPISODE_VERSIONS = b"DRLE", (1, 2)
HEADER_FIELDS = ("env_seed", "index", "round", "sample_seed", "shard", "task_seed")


class Fault(IntEnum):
    """EpisodeCheck.Fault."""

    NONE = 0
    BAD_ENCODING = 1
    WRONG_ROUND = 2
    WRONG_SHARD = 3
    WRONG_SEEDS = 4


class NotAShard(Malformed):
    """A blob that is no shard blob, or whose items do not hash to the revealed root."""


@dataclass(frozen=True)
class ProvableFault:
    index: int  # the episode's position in the shard (its Merkle leaf)
    fault: Fault
    item: bytes  # the episode's bytes, as stored
    proof: list[bytes]  # sibling hashes from the leaf to the root


def shard_items(blob: bytes, root: bytes) -> list[bytes]:
    """The episode items of a shard blob, checked to hash to `root` (NotAShard otherwise)."""
    blob = bytes(blob)
    _, off = unframe(blob, SHARD_MAGIC, SHARD_VERSION, "shard blob", NotAShard)
    items = []
    while off < len(blob):
        if off + 4 > len(blob):
            raise NotAShard("shard blob ends inside an episode length")
        (n,) = struct.unpack_from("<I", blob, off)
        if off + 4 + n > len(blob):
            raise NotAShard(f"shard blob ends inside episode {len(items)}")
        items.append(blob[off + 4:off + 4 + n])
        off += 4 + n
    if not items:
        raise NotAShard("shard blob holds no episode")
    if merkle_root(items) != bytes(root):
        raise NotAShard(f"the blob's episodes hash to {merkle_root(items).hex()}, not to the revealed root "
                        f"{bytes(root).hex()}")
    return items


def _header(item: bytes) -> dict | None:
    """The integer fields EpisodeCheck reads; None where its parser reverts (the jury decides)."""
    hlen = int.from_bytes(item[5:9], "little")
    try:
        header = json.loads(item[9:9 + hlen].decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(header, dict):
        return None
    for value in header.values():
        if isinstance(value, bool) or not isinstance(value, (int, str)) or (isinstance(value, int) and value < 0):
            return None
    if any(not isinstance(header.get(key), int) or isinstance(header.get(key), bool) for key in HEADER_FIELDS):
        return None
    return header


def fault_of(item: bytes, round_: int, shard: int) -> Fault:
    """EpisodeCheck.faultOf(item, round, shard)."""
    item = bytes(item)
    if len(item) < 9 or item[:4] != EPISODE_MAGIC or item[4] not in EPISODE_VERSIONS:
        return Fault.BAD_ENCODING
    if 9 + int.from_bytes(item[5:9], "little") > len(item):
        return Fault.BAD_ENCODING
    h = _header(item)
    if h is None:
        return Fault.NONE
    if h["round"] != round_:
        return Fault.WRONG_ROUND
    if h["shard"] != shard:
        return Fault.WRONG_SHARD
    if h["task_seed"] >= 2**256 or h["index"] >= 2**256:
        return Fault.NONE
    if (h["env_seed"], h["sample_seed"]) != derive_seeds(h["task_seed"], h["round"], h["shard"], h["index"]):
        return Fault.WRONG_SEEDS
    return Fault.NONE


def provable_faults(items: list[bytes], round_: int, shard: int, only: int | None = None) -> list[ProvableFault]:
    """Each episode of the shard (or only episode `only`) with a fault the chain can check, in
    index order, with its proof. IndexError if `only` is not an episode of the shard."""
    if only is not None and not 0 <= only < len(items):
        raise IndexError(f"the shard holds episodes 0..{len(items) - 1}, not {only}")
    tree = MerkleTree(items)
    indices = [only] if only is not None else range(len(items))
    return [ProvableFault(i, fault, items[i], tree.proof(i)) for i in indices
            if (fault := fault_of(items[i], round_, shard)) != Fault.NONE]
