"""The canonical bytes of an environment snapshot: plain values as a JSON tree plus raw arrays.

Framing (workers.framing): magic "DSNP", version 1, a canonical JSON header
{"arrays": [[dtype, shape], ...], "env": {...}, "state": tree}, then each array's bytes (C order,
little-endian) in the order listed. A tree node is a JSON array tagged by its first element:

    ["none"]  ["bool", b]  ["int", n]  ["str", s]  ["list", [node...]]  ["tuple", [node...]]
    ["dict", [[key, node]...]] (str keys, sorted)  ["array", i]  ["float", i]  ["scalar", i]

where i indexes "arrays": a numpy array, a Python float (0-d float64) or a numpy scalar (0-d
array of its dtype). Floats never appear in the JSON, so their bits survive exactly. Only these
plain values are written; nothing is serialised by its Python type (no pickle). `decode` checks
every length and that the bytes are exactly what `encode` writes for what they hold (one state,
one encoding), raising SnapshotError.
"""

from __future__ import annotations

import math

import numpy as np

from workers.framing import Malformed, brief, canonical, frame, is_count, unframe

MAGIC = b"DSNP"
VERSION = 1
MAX_HEADER = 1 << 20
"""A snapshot's header is a few KB (MinAtar's object lists the largest); arrays are in the body."""
MAX_DEPTH = 32
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")


class SnapshotError(Malformed):
    """Bytes that are not a snapshot of the environment at hand, or an env we cannot snapshot."""


def encode(env: dict, state) -> bytes:
    """The canonical bytes of `state` (plain values) for the environment described by `env`."""
    arrays: list[np.ndarray] = []
    tree = _tree(state, arrays, 0)
    header = canonical({"arrays": [[str(a.dtype), list(a.shape)] for a in arrays], "env": env, "state": tree})
    if len(header) > MAX_HEADER:
        raise SnapshotError(f"a snapshot header of {len(header):,} bytes is more than {MAX_HEADER:,}")
    return frame(MAGIC, VERSION, header, *(a.astype(a.dtype.newbyteorder("<")).tobytes() for a in arrays))


def _tree(value, arrays: list, depth: int):
    if depth > MAX_DEPTH:
        raise SnapshotError(f"state nests deeper than {MAX_DEPTH} levels")

    def array(tag: str, a: np.ndarray) -> list:
        if str(a.dtype) not in DTYPES:
            raise SnapshotError(f"cannot snapshot an array of dtype {a.dtype}")
        arrays.append(np.array(a, order="C"))  # a copy, 0-d kept (ascontiguousarray makes it 1-d)
        return [tag, len(arrays) - 1]

    if value is None:
        return ["none"]
    if isinstance(value, np.ndarray):
        return array("array", value)
    if isinstance(value, np.generic):
        return array("scalar", np.asarray(value))
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", value]
    if isinstance(value, float):
        return array("float", np.asarray(value, dtype=np.float64))
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, (list, tuple)):
        return ["list" if isinstance(value, list) else "tuple", [_tree(v, arrays, depth + 1) for v in value]]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return ["dict", [[k, _tree(value[k], arrays, depth + 1)] for k in sorted(value)]]
    raise SnapshotError(f"cannot snapshot a {type(value).__name__}: only None, bool, int, float, str, lists, "
                        f"tuples, str-keyed dicts and numpy arrays/scalars of {', '.join(DTYPES)}")


def decode(data: bytes) -> tuple[dict, object]:
    """(env description, state) of snapshot bytes; SnapshotError if they are not canonical snapshot bytes."""
    data = bytes(data)
    header, at = unframe(data, MAGIC, VERSION, "environment snapshot", SnapshotError)
    if at - 9 > MAX_HEADER:
        raise SnapshotError(f"a snapshot header of {at - 9:,} bytes is more than {MAX_HEADER:,}")
    if not isinstance(header, dict) or sorted(header) != ["arrays", "env", "state"]:
        raise SnapshotError('a snapshot header has exactly the keys "arrays", "env", "state"')
    if not isinstance(header["env"], dict) or not isinstance(header["arrays"], list):
        raise SnapshotError("a snapshot header's env is an object and its arrays a list")
    arrays = []
    for entry in header["arrays"]:
        a, at = _array(data, at, entry)
        arrays.append(a)
    if at != len(data):
        raise SnapshotError(f"{len(data) - at} bytes after the snapshot's last array")
    used: list[int] = []
    state = _value(header["state"], arrays, used, 0)
    if used != list(range(len(arrays))):
        raise SnapshotError("the snapshot's arrays are not each used once, in order")
    if encode(header["env"], state) != data:
        raise SnapshotError("not the canonical encoding of the state it holds")
    return header["env"], state


def _array(data: bytes, at: int, entry) -> tuple[np.ndarray, int]:
    if not (isinstance(entry, list) and len(entry) == 2 and entry[0] in DTYPES and isinstance(entry[1], list)
            and len(entry[1]) <= MAX_DEPTH and all(is_count(n) for n in entry[1])):
        raise SnapshotError(f"an array entry is [dtype, shape] with a dtype of {', '.join(DTYPES)}, got {brief(entry)}")
    dtype = np.dtype(entry[0]).newbyteorder("<")
    size = math.prod(entry[1]) * dtype.itemsize
    if size > len(data) - at:
        raise SnapshotError(f"an array of {entry[0]} {entry[1]} needs {size:,} bytes, {len(data) - at:,} are left")
    a = np.frombuffer(data, dtype=dtype, count=size // dtype.itemsize, offset=at).reshape(entry[1])
    if entry[0] == "bool" and np.any(np.frombuffer(data, np.uint8, size, at) > 1):
        raise SnapshotError("a bool array holds a byte other than 0 or 1")
    return a.astype(a.dtype.newbyteorder("=")), at + size


def _value(node, arrays: list, used: list, depth: int):
    if depth > MAX_DEPTH or not isinstance(node, list) or not node or not isinstance(node[0], str):
        raise SnapshotError(f"bad snapshot state node {brief(node)}")
    tag, rest = node[0], node[1:]
    if tag == "none" and not rest:
        return None
    if len(rest) != 1:
        raise SnapshotError(f"bad snapshot state node {brief(node)}")
    (v,) = rest
    if tag == "bool" and isinstance(v, bool):
        return v
    if tag == "int" and is_count(v, -(1 << 256)):
        return v
    if tag == "str" and isinstance(v, str):
        return v
    if tag in ("list", "tuple") and isinstance(v, list):
        items = [_value(x, arrays, used, depth + 1) for x in v]
        return items if tag == "list" else tuple(items)
    if tag == "dict" and isinstance(v, list) and all(isinstance(kv, list) and len(kv) == 2 and isinstance(kv[0], str)
                                                     for kv in v):
        return {k: _value(x, arrays, used, depth + 1) for k, x in v}
    if tag in ("array", "float", "scalar") and is_count(v) and v < len(arrays):
        used.append(v)
        a = arrays[v]
        if tag == "array":
            return a
        if a.ndim != 0 or (tag == "float" and a.dtype != np.float64):
            raise SnapshotError(f"a {tag} is a 0-d array{' of float64' if tag == 'float' else ''}")
        return float(a) if tag == "float" else a[()]
    raise SnapshotError(f"bad snapshot state node {brief(node)}")
