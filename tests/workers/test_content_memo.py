"""workers/content_memo.py: a result is found only for bytes equal to its input, and what is kept
stays within a count and a byte budget."""

import pytest

from workers.content_memo import ContentMemo, memoized


def test_a_result_is_found_for_equal_bytes_only():
    memo = ContentMemo(max_items=4, max_bytes=1 << 20)
    data = bytes(range(200)) * 50
    calls = []
    compute = lambda b: calls.append(b) or len(calls)  # noqa: E731 - counts the computations
    assert memoized(memo, data, compute) == 1
    assert memoized(memo, bytes(bytearray(data)), compute) == 1  # equal bytes, another object
    changed = bytearray(data)
    changed[5_000] ^= 1  # one bit, deep inside
    assert memo.get(bytes(changed)) is None
    assert memoized(memo, bytes(changed), compute) == 2 and len(calls) == 2
    assert memoized(memo, data + b"\x00", compute) == 3  # a longer input is another input


def test_kept_results_stay_within_a_count_and_a_byte_budget():
    memo = ContentMemo(max_items=2, max_bytes=100)
    for key in (b"a" * 10, b"b" * 10, b"c" * 10):
        memo.put(key, key[:1])
    assert [r for _, r in memo.items()] == [b"c", b"b"]  # the oldest past the count went
    memo.get(b"b" * 10)  # used: now the newest, so c is the oldest
    memo.put(b"d" * 85, b"d")
    assert [r for _, r in memo.items()] == [b"d", b"b"]  # c went for the count; 10 + 85 bytes fit
    memo.put(b"e" * 20, b"e")
    assert [r for _, r in memo.items()] == [b"e"]  # b went for the count, then d for the bytes (105 > 100)
    memo.put(b"f" * 101, b"f")
    assert [r for _, r in memo.items()] == [b"e"]  # larger than the budget alone: not kept, nothing dropped



def test_only_immutable_bytes_are_keys():
    with pytest.raises(TypeError, match="must be bytes"):
        ContentMemo(max_items=1, max_bytes=10).put(bytearray(b"x"), 1)
