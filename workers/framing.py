"""The framing our stored blobs share (shards, checkpoints, traces): 4 magic bytes, a uint8
version, a uint32 LE header length, a canonical JSON header, then the body.

Their bytes come from other nodes, so their parsers check every length, offset and count before
using it and raise `Malformed` (or a subclass) saying what is wrong: a validator rejects the work
with that reason instead of failing its job."""

from __future__ import annotations

import json
import struct


class Malformed(ValueError):
    """Bytes another node committed (a shard, episode, checkpoint, policy, train state, trace) that
    do not parse as what they claim to be; the message says why."""


def brief(value, limit: int = 80) -> str:
    """repr(value), cut to `limit` characters: a reason may quote untrusted input, never all of it."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def is_count(x, least: int = 0) -> bool:
    """Whether `x` is a JSON integer (not a bool) of at least `least`: a size, index or counter as a
    parser must find it in a header before using it."""
    return isinstance(x, int) and not isinstance(x, bool) and x >= least


def is_hex32(x) -> bool:
    """Whether `x` is a 32-byte digest as headers write it: 64 lowercase hex digits."""
    return isinstance(x, str) and len(x) == 64 and not x.strip("0123456789abcdef")


def canonical(obj) -> bytes:
    """Canonical JSON: sorted keys, "," and ":" separators, ASCII."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _no_constant(name: str):
    raise ValueError(f"{name} is not allowed")


def json_header(raw: bytes | str, what: str, error: type[Exception] = Malformed):
    """The JSON value in `raw`; `error` naming `what` if it is not UTF-8 JSON, uses NaN or
    Infinity, or nests deeper than the parser's recursion limit."""
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise error(f"{what} is not JSON: {brief(str(exc))}") from None


def frame(magic: bytes, version: int, header: bytes, *body: bytes) -> bytes:
    return b"".join([magic, struct.pack("<BI", version, len(header)), header, *body])


def unframe(blob: bytes, magic: bytes, version: int, what: str, error: type[Exception]) -> tuple[object, int]:
    """(the parsed JSON header, offset of the body) of a framed blob; `error(message)` naming
    `what` if the magic, the version, the header's length or its JSON is wrong."""
    if blob[:4] != magic or len(blob) < 9:
        raise error(f"not a {what}: bad magic")
    got, hlen = struct.unpack_from("<BI", blob, 4)
    if got != version:
        raise error(f"{what} version {got} is not supported (expected {version})")
    if 9 + hlen > len(blob):
        raise error(f"{what} announces a {hlen}-byte header but holds {len(blob) - 9} bytes after its prefix")
    return json_header(blob[9:9 + hlen], f"{what} header", error), 9 + hlen
