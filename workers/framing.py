"""The framing our stored blobs share (shards, checkpoints, traces): 4 magic bytes, a uint8
version, a uint32 LE header length, a canonical JSON header, then the body."""

from __future__ import annotations

import json
import struct


def canonical(obj) -> bytes:
    """Canonical JSON: sorted keys, "," and ":" separators, ASCII."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def frame(magic: bytes, version: int, header: bytes, *body: bytes) -> bytes:
    return b"".join([magic, struct.pack("<BI", version, len(header)), header, *body])


def unframe(blob: bytes, magic: bytes, version: int, what: str, error: type[Exception]) -> tuple[object, int]:
    """(the parsed JSON header, offset of the body) of a framed blob; `error(message)` naming
    `what` if the magic, the version or the JSON is wrong."""
    if blob[:4] != magic or len(blob) < 9:
        raise error(f"not a {what}: bad magic")
    got, hlen = struct.unpack_from("<BI", blob, 4)
    if got != version:
        raise error(f"{what} version {got} is not supported (expected {version})")
    try:
        return json.loads(blob[9:9 + hlen]), 9 + hlen
    except ValueError as exc:
        raise error(f"{what} header is not JSON: {exc}") from None
