"""Fuzzing the parsers of other nodes' bytes: ways to damage a valid encoding, and the one property
every fuzz test checks, that a parser either parses or rejects with a reason (workers.framing.
Malformed), never fails with another exception.

Runs are reproducible (derandomize: the same examples on every run and machine) and take seconds."""

import copy
import struct

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from workers.framing import Malformed

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])


def parses_or_rejects(parse, data, rejection=Malformed):
    """parse(data), or None when it raises `rejection` with a reason; any other exception (IndexError,
    struct.error, KeyError, a torch error...) propagates and fails the test."""
    try:
        return parse(data)
    except rejection as error:
        assert str(error), f"{type(error).__name__} without a reason"
        return None


def every_cut(parse, valid: bytes, rejection=Malformed, stride: int = 1, dense: int = 0):
    """Every proper prefix of `valid` is rejected: each of the first `dense` cut points, then one in
    `stride` (every cut point with the defaults)."""
    for cut in sorted(set(range(min(dense, len(valid)))) | set(range(0, len(valid), stride))):
        assert parses_or_rejects(parse, valid[:cut], rejection) is None, f"a {cut}-byte prefix parsed"


_SIZES = st.sampled_from([-1, 0, 1, 2, 7, 8, 9, 255, 2**16, 2**31 - 1, 2**32, 2**53, 2**63, 2**64, 10**30])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _SIZES | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8)
"""Any JSON value (NaN and infinities included), with sizes that sit on boundaries."""


def _places(value, into=None):
    """(container, key) of every entry of a parsed JSON value, however deep."""
    into = [] if into is None else into
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        into.append((value, key))
        _places(inner, into)
    return into


@st.composite
def edited_json(draw, value):
    """`value` (parsed JSON) with one entry somewhere in it replaced by any JSON value or removed,
    or a key added to one of its objects; or the whole value replaced."""
    value = copy.deepcopy(value)
    places = _places(value)
    if not places or draw(st.integers(0, 20)) == 0:
        return draw(JSON)
    container, key = draw(st.sampled_from(places))
    how = draw(st.sampled_from(["replace", "replace", "replace", "remove", "add"]))
    if how == "replace":
        container[key] = draw(JSON)
    elif how == "remove":
        del container[key]
    elif isinstance(container, dict):
        container[draw(st.text(max_size=8))] = draw(JSON)
    else:
        container.append(draw(JSON))
    return value


@st.composite
def damaged(draw, valid: bytes, header_end: int | None = None, fields=()):
    """`valid` cut short, grown, with one bit flipped (mostly in its first `header_end` bytes), a span
    overwritten by random bytes, or one of its integer `fields` ((offset, struct format)) set to any
    value, boundaries included."""
    header_end = len(valid) if header_end is None else min(header_end, len(valid))
    how = draw(st.sampled_from(["cut", "grow", "flip", "flip", "splice"] + ["field"] * 2 * bool(fields)))
    data = bytearray(valid)
    if how == "cut":
        return bytes(data[:draw(st.integers(0, len(valid) - 1))])
    if how == "grow":
        return bytes(data) + draw(st.binary(min_size=1, max_size=16))
    if how == "flip":
        at = draw(st.integers(0, max(header_end - 1, 0)) | st.integers(0, len(valid) - 1))
        data[at] ^= 1 << draw(st.integers(0, 7))
        return bytes(data)
    if how == "splice":
        at = draw(st.integers(0, len(valid)))
        end = draw(st.integers(at, min(at + 16, len(valid))))
        return bytes(data[:at]) + draw(st.binary(max_size=16)) + bytes(data[end:])
    offset, fmt = draw(st.sampled_from(list(fields)))
    bits = 8 * struct.calcsize(fmt)
    value = draw(st.integers(0, 2**bits - 1) | st.sampled_from([0, 1, len(valid), len(valid) + 1, 2**bits - 1]))
    struct.pack_into(fmt, data, offset, value % 2**bits)
    return bytes(data)


def random_bytes(prefix: bytes = b"", max_size: int = 256):
    """Random bytes after `prefix` (a magic, so that they reach the parser past its first check)."""
    return st.binary(max_size=max_size).map(lambda b: prefix + b)
