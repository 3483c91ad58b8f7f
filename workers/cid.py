"""CIDs exactly as kubo's default import gives them for `ipfs add --cid-version 1`.

`--cid-version 1` implies raw leaves. The layout (kubo's defaults, also js-ipfs's):

- the content is cut into 256 KiB chunks (`size-262144`); each chunk is a raw block
  (codec raw 0x55) whose CID is sha2-256 of the chunk;
- one chunk (or none: the empty file) is the whole file: its raw CID is the file's CID;
- otherwise the leaves are linked by a balanced DAG of dag-pb (0x70) nodes with at most 174
  links each, all leaves at the same depth: the leaves are grouped 174 at a time into
  parents, the parents 174 at a time into grandparents, and so on up to a single root;
- each dag-pb node is `PBNode{Links, Data}` (Links first, as dag-pb encodes them), every link
  `PBLink{Hash, Name="", Tsize}` with Tsize = the linked block's size plus its links' Tsizes,
  and Data = `UnixFS{Type=File, filesize, blocksizes}` (the file bytes under each link);
- the CID string is multibase base32 ('b' + lowercase RFC 4648, no padding).

Only this profile is supported: CIDv0 (`Qm...`), other chunkers, trickle DAGs or inline CIDs
give other CIDs, and `decode` rejects the strings it cannot be checked against.
"""
from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

CHUNK_SIZE = 256 * 1024
MAX_LINKS = 174
RAW, DAG_PB, SHA2_256 = 0x55, 0x70, 0x12
_UNIXFS_FILE = 2


class CIDMismatch(ValueError):
    """Content does not hash to the CID it was fetched or stored under."""


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _pb_int(field: int, value: int) -> bytes:  # protobuf wire type 0
    return _varint(field << 3) + _varint(value)


def _pb_bytes(field: int, value: bytes) -> bytes:  # protobuf wire type 2
    return _varint(field << 3 | 2) + _varint(len(value)) + value


def _cid(codec: int, block: bytes) -> bytes:
    return _varint(1) + _varint(codec) + bytes([SHA2_256, 32]) + hashlib.sha256(block).digest()


def encode(cid: bytes) -> str:
    """Binary CID -> its base32 string (`bafy...` for dag-pb, `bafk...` for raw)."""
    return "b" + base64.b32encode(cid).decode("ascii").lower().rstrip("=")


def decode(cid: str) -> bytes:
    """Base32 CIDv1 string -> binary CID; ValueError saying what is wrong otherwise."""
    if not isinstance(cid, str) or not cid.startswith("b"):
        hint = " (a CIDv0; add with `--cid-version 1`)" if str(cid).startswith("Qm") else ""
        raise ValueError(f"{cid!r} is not a base32 CIDv1 string{hint}")
    body = cid[1:].upper()
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except ValueError as error:
        raise ValueError(f"{cid!r} is not valid base32: {error}") from None
    if len(raw) != 36 or raw[0] != 1 or raw[1] not in (RAW, DAG_PB) or raw[2:4] != b"\x12\x20":
        raise ValueError(f"{cid!r} is not a CIDv1 raw/dag-pb sha2-256 CID")
    return raw


@dataclass(frozen=True)
class _Node:
    cid: bytes
    file_size: int  # file bytes under this node
    tsize: int  # bytes of all blocks under this node, itself included


def _leaf(chunk: bytes) -> _Node:
    return _Node(_cid(RAW, chunk), len(chunk), len(chunk))


def _parent(children: list[_Node]) -> _Node:
    file_size = sum(c.file_size for c in children)
    unixfs = _pb_int(1, _UNIXFS_FILE) + _pb_int(3, file_size)
    unixfs += b"".join(_pb_int(4, c.file_size) for c in children)
    links = b"".join(_pb_bytes(2, _pb_bytes(1, c.cid) + _pb_bytes(2, b"") + _pb_int(3, c.tsize))
                     for c in children)
    block = links + _pb_bytes(1, unixfs)
    return _Node(_cid(DAG_PB, block), file_size, len(block) + sum(c.tsize for c in children))


def _chunks(source: bytes | bytearray | memoryview | BinaryIO) -> Iterator[bytes]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        view = memoryview(source)
        for start in range(0, len(view), CHUNK_SIZE):
            yield bytes(view[start:start + CHUNK_SIZE])
        return
    while chunk := source.read(CHUNK_SIZE):
        while len(chunk) < CHUNK_SIZE and (more := source.read(CHUNK_SIZE - len(chunk))):
            chunk += more  # short reads (pipes, sockets) must not shift chunk boundaries
        yield chunk


def compute(source: bytes | bytearray | memoryview | BinaryIO) -> str:
    """The CID kubo's `ipfs add --cid-version 1` gives `source` (bytes or a binary file
    object read to its end; memory stays at one chunk plus ~40 bytes per chunk)."""
    level = [_leaf(chunk) for chunk in _chunks(source)] or [_leaf(b"")]
    while len(level) > 1:
        level = [_parent(level[i:i + MAX_LINKS]) for i in range(0, len(level), MAX_LINKS)]
    return encode(level[0].cid)


def verify(data: bytes | bytearray | memoryview, cid: str) -> None:
    """Raise CIDMismatch unless `data` is the content `cid` names."""
    decode(cid)
    actual = compute(data)
    if actual != cid:
        raise CIDMismatch(f"content does not match its CID: expected {cid}, the {len(data)} bytes "
                          f"received hash to {actual} (corrupted or tampered; fetch it again)")
